"""The bare engine for `npm run bench:transcribe`: faster-whisper called directly, with the service's settings (engine.py).

Usage: bench_engine.py --model <folder | hub id> <audio>...
Loads the model once (not timed), transcribes each file and prints one JSON line per file:
{"audio", "audioSeconds", "seconds", "words", "peakRssMb"} (peak RSS of this process so far).
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("audio", nargs="+")
    args = parser.parse_args()
    model = engine.load_model(args.model)
    for audio in args.audio:
        started = time.perf_counter()
        result = engine.transcribe(model, audio, word_timestamps=True)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(json.dumps({"audio": audio, "audioSeconds": result.duration, "seconds": seconds, "words": len(result.words), "peakRssMb": round(peak)}), flush=True)


if __name__ == "__main__":
    main()
