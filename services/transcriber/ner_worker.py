"""spaCy in a process of its own, with a deadline per request (security review 2026-12-01 #1).

A text spaCy is slow on (its tokenizer is quadratic on some runs; entities.bound_text cuts the known ones) would hold
the server's GIL for minutes, and with it every connection, transcription included. In a child process it holds only
the child: the server waits on a pipe without the GIL, and a request over its deadline kills the child, which is started
again for the next request. Requests go one at a time, as spaCy runs them; one waits at most a deadline for its turn.

The child speaks JSON lines on stdin/stdout: it writes `{"ready": true}` once its models are loaded, then answers each
`{"texts", "language"}` with `{"entities": [...]}` or `{"error": "..."}`. Run as `ner_worker.py en=<model folder> …`.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from typing import Any, Callable

from entities import EntityModel

# Loading en_core_web_sm takes about 1.5 s; a loaded machine may take ten times that.
START_SECONDS = 60.0


class Overrun(Exception):
    """The request ran past its deadline: the child was killed (and is started again)."""


class Busy(Exception):
    """Another request held the model for the whole wait."""


class WorkerFailed(Exception):
    """The child died, or answered something other than one JSON line."""


class NerProcess:
    """The parent's side: one child at a time, started on first use and after a kill."""

    def __init__(self, paths: dict[str, str], deadline: float, log: Callable[..., None]):
        self.paths = dict(paths)
        self.deadline = deadline
        self.log = log
        # For /health: a test (and an operator) sees an overrun stopped and the process started again.
        self.counts = {"ner_overrun": 0, "ner_starts": 0, "ner_active": 0}
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._ready = False
        self._pending = b""

    def recognise(self, texts: list[str], language: str) -> list[list[dict[str, Any]]]:
        """The child's answer within the deadline, or Busy, Overrun or WorkerFailed; a child's own error as WorkerFailed."""
        if not self._lock.acquire(timeout=self.deadline):
            raise Busy()
        self.counts["ner_active"] = 1
        try:
            child = self._started()
            line = json.dumps({"texts": texts, "language": language}).encode() + b"\n"
            started = time.monotonic()
            try:
                assert child.stdin is not None
                child.stdin.write(line)
                child.stdin.flush()
                answer = self._read_line(started + self.deadline)
            except TimeoutError:
                self.counts["ner_overrun"] += 1
                self.log(msg="entities overran", seconds=round(time.monotonic() - started, 3), deadline=self.deadline, chars=sum(map(len, texts)))
                self._stop()
                self._spawn()  # loading while nobody waits: the next request finds it ready sooner
                raise Overrun() from None
            except (OSError, ValueError) as err:
                self._stop()
                raise WorkerFailed(f"the entity process failed: {err}") from None
            if "error" in answer:
                raise WorkerFailed(str(answer["error"]))
            return answer["entities"]
        finally:
            self.counts["ner_active"] = 0
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _started(self) -> subprocess.Popen[bytes]:
        """The running child, started (and waited for until ready) if there is none."""
        if self._child is None or self._child.poll() is not None:
            self._stop()
            self._spawn()
        if not self._ready:
            try:
                hello = self._read_line(time.monotonic() + START_SECONDS)
            except (TimeoutError, OSError, ValueError) as err:
                self._stop()
                raise WorkerFailed(f"the entity process did not start: {type(err).__name__} {err}") from None
            if hello.get("ready") is not True:
                self._stop()
                raise WorkerFailed(f"the entity process did not start: {hello.get('error')}")
            self._ready = True
        return self._child

    def _spawn(self) -> None:
        args = [sys.executable, "-B", os.path.abspath(__file__), *(f"{lang}={path}" for lang, path in self.paths.items())]
        # stderr is the server's. stdout is read from its fd (never through the buffered wrapper), with a deadline.
        self._child = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._ready, self._pending = False, b""
        self.counts["ner_starts"] += 1

    def _read_line(self, until: float) -> dict[str, Any]:
        """The child's next JSON line; TimeoutError past `until`, ValueError when it closed its side or wrote no JSON."""
        assert self._child is not None and self._child.stdout is not None
        fd = self._child.stdout.fileno()
        while b"\n" not in self._pending:
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError()
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise ValueError("the entity process exited")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        answer = json.loads(line)
        if not isinstance(answer, dict):
            raise ValueError("the entity process answered something other than an object")
        return answer

    def _stop(self) -> None:
        child, self._child, self._ready = self._child, None, False
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()


def serve(paths: dict[str, str]) -> None:
    """The child: load every model, then answer one JSON line per request line until stdin ends."""
    # The answers get the pipe to themselves: anything a library prints goes to stderr, never into the protocol.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)

    def send(body: dict[str, Any]) -> None:
        out.write(json.dumps(body).encode() + b"\n")
        out.flush()

    try:
        model = EntityModel(paths)
        for language in model.languages:
            model.recognise([""], language)  # loaded before "ready": the deadline counts recognition only
    except Exception as err:  # noqa: BLE001 - told to the parent, which answers the request
        send({"error": f"{type(err).__name__}: {err}"})
        return
    send({"ready": True})
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
            send({"entities": model.recognise(request["texts"], request["language"])})
        except Exception as err:  # noqa: BLE001 - one failed request, not the process
            send({"error": f"{type(err).__name__}: {err}"})


if __name__ == "__main__":
    serve(dict(arg.split("=", 1) for arg in sys.argv[1:]))
