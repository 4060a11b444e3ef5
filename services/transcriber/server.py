"""The local transcription service: OpenAI's `POST /v1/audio/transcriptions` over faster-whisper, `GET /health`,
when started with --embeddings-model, OpenAI's `POST /v1/embeddings` over an ONNX sentence-embedding model, and, when
started with --ner-model, `POST /v1/entities` (named entities of texts, spaCy's en_core_web_sm, English only).

Bound to 127.0.0.1 unless --host says otherwise (the container image binds its own interface,
never published). One model is loaded at start; requests are decoded one at a time (each
uses every core), while /health keeps answering. Errors are OpenAI's JSON shape
`{"error": {"message", "type", "param", "code"}}`.

What one client can hold (review 2026-11-27 #9): an upload is streamed to a temporary file as it arrives (the
multipart body is parsed in 64 KB chunks, never held whole), at most --max-uploads are read or waiting for the engine at
once (the next waits a few seconds for a place, then gets 503), a request must arrive whole within --request-timeout
seconds or its connection is cut, at most --max-threads connections are served at once (the next gets 503 at once),
and a file larger than --max-bytes is refused with 413 before its body is read. With TRANSCRIBE_API_KEY in the
environment, transcription requests must carry `Authorization: Bearer <that key>` (401 otherwise); /health,
/v1/embeddings and /v1/entities stay open (bounded JSON, and their clients are configured apart).

Named entities run in a process of their own (ner_worker.py), one request at a time, each within --ner-timeout
seconds: one over it is stopped (the process killed and started again) and answered 504 `entities_timeout`, and the
server, its /health and transcription keep answering meanwhile (review 2026-12-01 #1). A text over 20,000 characters is
refused (413 `text_too_long`), and runs spaCy's tokenizer is quadratic on are cut before it (entities.bound_text).

Usage: server.py --port N [--host ADDRESS] --model <model folder | hub id> [--name NAME] [--max-bytes N]
                 [--max-uploads N] [--max-threads N] [--request-timeout SECONDS]
                 [--embeddings-model <Transformers.js model folder>] [--embeddings-pooling cls|mean]
                 [--ner-model <spaCy en_core_web_sm model folder>] [--ner-timeout SECONDS]
"""

from __future__ import annotations

import argparse
import email.message
import email.parser
import hmac
import json
import os
import select
import socket
import sys
import tempfile
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, BinaryIO

import engine
from embeddings import EmbeddingModel
from entities import EntityModel
from ner_worker import Busy, NerProcess, Overrun, WorkerFailed

FORMATS = ("json", "verbose_json")
EMBED_MAX_BYTES = 8 * 1024 * 1024
EMBED_MAX_INPUTS = 2048
# An hour of speech is about 55,000 characters; the client sends an episode in batches of a few dozen segments.
ENTITIES_MAX_BYTES = 1024 * 1024
ENTITIES_MAX_TEXTS = 1000
ENTITIES_MAX_CHARS = 200_000
# One text (the client sends passages of a few segments, and splits a longer text at this size).
ENTITIES_MAX_TEXT_CHARS = 20_000
# Seconds one /v1/entities request may hold the model (a batch of 20,000 characters takes 1-2 s), below the client's 30 s.
DEFAULT_NER_TIMEOUT = 20.0
GRANULARITIES = ("word", "segment")
# The client's TRANSCRIBE_MAX_UPLOAD_BYTES default: the largest audio file a request may carry.
DEFAULT_MAX_BYTES = 24 * 1024 * 1024
# Room around the file in a multipart body: part headers and the form fields (model, response_format, prompt, ...).
FORM_SLACK_BYTES = 64 * 1024
FIELDS_MAX_BYTES = 32 * 1024
PART_HEADERS_MAX_BYTES = 8 * 1024
CHUNK_BYTES = 64 * 1024
# How long a request that passed its checks waits for an upload place before 503.
UPLOAD_WAIT_SECONDS = 10


class RequestError(Exception):
    """A request we refuse, answered in OpenAI's error shape."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None, drain: bool = False):
        super().__init__(message)
        self.status = status
        self.param = param
        self.code = code
        # Refused before the body was read, for a reason the client can act on: the body is read and dropped after the
        # answer, so that a client still sending it gets the answer rather than a reset connection.
        self.drain = drain


def log(**fields: Any) -> None:
    print(json.dumps({"time": round(time.time() * 1000), **fields}), file=sys.stderr, flush=True)


def multipart_boundary(content_type: str) -> bytes:
    """The boundary named by a multipart/form-data Content-Type (RFC 2046: 1 to 70 characters)."""
    header = email.message.Message()
    header["content-type"] = content_type
    boundary = header.get_param("boundary")
    if header.get_content_type() != "multipart/form-data" or not isinstance(boundary, str) or not 0 < len(boundary) <= 70:
        raise RequestError(400, "send the audio as multipart/form-data with a boundary", code="invalid_body")
    return boundary.encode("latin-1")


def part_name(headers: bytes) -> tuple[str | None, str | None]:
    """The form field name and the file name of a part, from its Content-Disposition."""
    message = email.parser.BytesHeaderParser().parsebytes(headers.strip(b"\r\n") + b"\r\n\r\n")
    name = message.get_param("name", header="content-disposition")
    filename = message.get_filename()
    return (name if isinstance(name, str) else None), filename


def read_multipart(read: Any, boundary: bytes, sink: BinaryIO, max_file_bytes: int) -> tuple[dict[str, list[str]], str | None, int]:
    """Streams a multipart/form-data body: the part named `file` into `sink`, the other fields kept (repeatable, as
    `timestamp_granularities[]` is). `read()` gives the body's next bytes (b"" at its end). Memory stays at a few chunks
    whatever the body's size. Returns the fields, the file's name and its size.
    """
    delimiter = b"\r\n--" + boundary
    keep = len(delimiter) - 1  # a delimiter may straddle two chunks
    buf = b"\r\n"  # the first boundary line then reads like every other delimiter
    fields: dict[str, list[str]] = {}
    field_bytes = 0
    filename: str | None = None
    file_size = 0
    seen_file = False

    def fill() -> None:
        nonlocal buf
        chunk = read()
        if not chunk:
            raise RequestError(400, "the multipart body ended before its closing boundary", code="invalid_body")
        buf += chunk

    while (at := buf.find(delimiter)) < 0:  # the preamble, if any
        buf = buf[-keep:]
        fill()
    buf = buf[at + len(delimiter) :]
    while True:
        while len(buf) < 2:
            fill()
        if buf.startswith(b"--"):
            return fields, filename, file_size
        while (end := buf.find(b"\r\n\r\n")) < 0:
            if len(buf) > PART_HEADERS_MAX_BYTES:
                raise RequestError(400, "a multipart part has headers over 8 KB", code="invalid_body")
            fill()
        name, part_filename = part_name(buf[:end])
        buf = buf[end + 4 :]
        is_file = name == "file"
        if is_file:
            if seen_file:
                raise RequestError(400, "send one file per request", param="file", code="invalid_body")
            seen_file, filename = True, part_filename or "audio"
        value = bytearray()

        def emit(data: bytes) -> None:
            nonlocal file_size, field_bytes
            if is_file:
                file_size += len(data)
                if file_size > max_file_bytes:
                    raise RequestError(413, f"Maximum allowed size is {max_file_bytes} bytes", param="file", code="file_too_large")
                sink.write(data)
            else:
                field_bytes += len(data)
                if field_bytes > FIELDS_MAX_BYTES:
                    raise RequestError(400, f"the form fields hold more than {FIELDS_MAX_BYTES} bytes", code="invalid_body")
                value.extend(data)

        while (at := buf.find(delimiter)) < 0:
            if len(buf) > keep:
                emit(buf[:-keep])
                buf = buf[-keep:]
            fill()
        emit(buf[:at])
        buf = buf[at + len(delimiter) :]
        if not is_file and name is not None:
            fields.setdefault(name, []).append(value.decode("utf-8", "replace"))


def one(fields: dict[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    return values[-1].strip() if values else None


class Handler(BaseHTTPRequestHandler):
    server_version = "cca-transcriber/1"
    model: Any = None
    model_name = "base"
    max_bytes = DEFAULT_MAX_BYTES
    # Seconds a request has to arrive whole (headers and body) before its connection is cut; also each socket read's.
    request_timeout = 300.0
    timeout = request_timeout
    uploads = threading.BoundedSemaphore(4)
    api_key: str | None = None
    languages: set[str] = set()
    embedder: EmbeddingModel | None = None
    entities: EntityModel | None = None
    ner: NerProcess | None = None
    lock = threading.Lock()
    # Counted for /health: a test (and an operator) can see that an abandoned request stopped decoding.
    counts = {"transcribed": 0, "abandoned": 0, "cut": 0, "busy": 0}
    counts_lock = threading.Lock()  # not `lock`, which the engine holds for a whole transcription

    def setup(self) -> None:
        super().setup()  # the socket's timeout: each read (and write) waits at most `timeout`
        # A client trickling one byte per read would pass any per-read timeout: the whole request has a deadline.
        self.was_cut = False
        self.deadline = threading.Timer(self.request_timeout, self.cut_off)
        self.deadline.daemon = True
        self.deadline.start()

    def cut_off(self) -> None:
        # Counted before the socket is shut: whoever sees the connection close then finds it in /health.
        with self.counts_lock:
            self.counts["cut"] += 1
        self.was_cut = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def received(self) -> None:
        """The request has arrived whole: its deadline no longer applies (decoding may take minutes)."""
        self.deadline.cancel()

    def finish(self) -> None:
        self.deadline.cancel()
        try:
            super().finish()
        except OSError:
            pass  # a connection cut off or reset

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # one JSON line per request instead, from the handlers

    def answer(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        if self.was_cut:
            return  # nobody to answer: the connection is shut
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the client went away meanwhile

    def fail(self, err: RequestError) -> None:
        kind = "invalid_request_error" if err.status < 500 else "server_error"
        headers = {"Retry-After": str(UPLOAD_WAIT_SECONDS)} if err.status == 503 else {}
        if err.status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        self.answer(err.status, {"error": {"message": str(err), "type": kind, "param": err.param, "code": err.code}}, headers)

    def do_GET(self) -> None:
        if self.path.split("?")[0] == "/health":
            self.answer(200, {"status": "ok", "model": self.model_name, **self.counts, **(self.ner.counts if self.ner else {})})
        else:
            self.fail(RequestError(404, f"no route GET {self.path.split('?')[0]}", code="not_found"))

    def do_POST(self) -> None:
        if self.path.split("?")[0] == "/v1/embeddings":
            self.embeddings_route()
            return
        if self.path.split("?")[0] == "/v1/entities":
            self.entities_route()
            return
        started = time.monotonic()
        try:
            if self.path.split("?")[0] != "/v1/audio/transcriptions":
                raise RequestError(404, f"no route POST {self.path.split('?')[0]}", code="not_found")
            result = self.transcribe()
            self.answer(200, result)
            self.counts["transcribed"] += 1
            log(msg="transcribed", seconds=round(time.monotonic() - started, 3), audio_seconds=result.get("duration"))
        except engine.Abandoned:
            self.close_connection = True
            self.counts["abandoned"] += 1
            log(msg="abandoned", seconds=round(time.monotonic() - started, 3))
        except RequestError as err:
            self.close_connection = True  # the body may be unread
            if self.was_cut:  # counted by cut_off
                log(msg="cut", seconds=round(time.monotonic() - started, 3), after=self.request_timeout)
                return
            self.fail(err)
            log(msg="refused", status=err.status, error=str(err))
            if err.drain:
                self.discard_body()
        except TimeoutError:
            self.close_connection = True
            if not self.was_cut:
                with self.counts_lock:
                    self.counts["cut"] += 1
            log(msg="cut", seconds=round(time.monotonic() - started, 3), reason="no bytes within the read timeout")
        except Exception as err:  # noqa: BLE001 - a decoding failure must still answer in the API's shape
            self.fail(RequestError(500, f"transcription failed: {type(err).__name__}", code="transcription_failed"))
            log(msg="failed", error=repr(err))

    def embeddings_route(self) -> None:
        started = time.monotonic()
        try:
            body = self.embed()
            self.answer(200, body)
            log(msg="embedded", seconds=round(time.monotonic() - started, 3), inputs=len(body["data"]))
        except RequestError as err:
            self.close_connection = True
            self.fail(err)
            log(msg="refused", status=err.status, error=str(err))
        except Exception as err:  # noqa: BLE001 - a model failure must still answer in the API's shape
            self.fail(RequestError(500, f"embedding failed: {type(err).__name__}", code="embedding_failed"))
            log(msg="failed", error=repr(err))

    def embed(self) -> dict[str, Any]:
        """`{model, input: string | string[]}` to `{data: [{embedding, index}], model, usage}` (floats only)."""
        if self.embedder is None:
            raise RequestError(404, "this service was started without an embeddings model", code="not_found")
        request = self.read_json(EMBED_MAX_BYTES)
        model = request.get("model")
        if not isinstance(model, str) or not model.strip():
            raise RequestError(400, "the field model is missing", param="model", code="missing_model")
        texts = request.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise RequestError(400, "input must be a string or a non-empty array of strings", param="input", code="invalid_input")
        if len(texts) > EMBED_MAX_INPUTS:
            raise RequestError(400, f"input holds more than {EMBED_MAX_INPUTS} texts", param="input", code="invalid_input")
        if request.get("encoding_format", "float") != "float":
            raise RequestError(400, "encoding_format must be float here", param="encoding_format")
        vectors, tokens = self.embedder.embed(texts)
        return {
            "object": "list",
            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
            # The one model this service serves answers to whatever name the deployment gave it.
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def read_json(self, max_bytes: int) -> dict[str, Any]:
        """The request's JSON object, refused before reading when it is larger than `max_bytes`."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            raise RequestError(411, "send the request with a Content-Length", code="length_required")
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            raise RequestError(411, "send the request with a Content-Length", code="length_required") from None
        if length > max_bytes:
            raise RequestError(413, f"Maximum allowed size is {max_bytes} bytes", code="body_too_large")
        body = self.rfile.read(length)
        if len(body) < length:
            raise RequestError(400, "the body ended before its Content-Length", code="invalid_body")
        self.received()
        try:
            request = json.loads(body or b"null")
        except (ValueError, UnicodeDecodeError):
            raise RequestError(400, "the body is not JSON", code="invalid_body") from None
        if not isinstance(request, dict):
            raise RequestError(400, "the body must be a JSON object", code="invalid_body")
        return request

    def entities_route(self) -> None:
        started = time.monotonic()
        try:
            body, chars = self.recognise()
            self.answer(200, body)
            log(msg="entities", seconds=round(time.monotonic() - started, 3), texts=len(body["entities"]), chars=chars)
        except RequestError as err:
            self.close_connection = True
            self.fail(err)
            log(msg="refused", status=err.status, error=str(err))
        except Exception as err:  # noqa: BLE001 - a model failure must still answer in the API's shape
            self.fail(RequestError(500, f"entity recognition failed: {type(err).__name__}", code="entities_failed"))
            log(msg="failed", error=repr(err))

    def recognise(self) -> tuple[dict[str, Any], int]:
        """`{texts: string[], language}` to `{entities: [[{text, label, start, end}]], language, model}`.

        A language without a model is refused (400, code unsupported_language) rather than answered with empty
        lists, so that a caller can tell "no names here" from "nobody looked".
        """
        if self.entities is None or self.ner is None:
            raise RequestError(404, "this service was started without a named-entity model", code="not_found")
        request = self.read_json(ENTITIES_MAX_BYTES)
        texts = request.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise RequestError(400, "texts must be an array of strings", param="texts", code="invalid_input")
        if len(texts) > ENTITIES_MAX_TEXTS:
            raise RequestError(400, f"texts holds more than {ENTITIES_MAX_TEXTS} texts", param="texts", code="invalid_input")
        longest = max(range(len(texts)), key=lambda i: len(texts[i]), default=None)
        if longest is not None and len(texts[longest]) > ENTITIES_MAX_TEXT_CHARS:
            raise RequestError(
                413, f"texts[{longest}] holds {len(texts[longest])} characters, over {ENTITIES_MAX_TEXT_CHARS} a text", param=f"texts[{longest}]", code="text_too_long"
            )
        chars = sum(len(t) for t in texts)
        if chars > ENTITIES_MAX_CHARS:
            raise RequestError(413, f"texts hold more than {ENTITIES_MAX_CHARS} characters in all", param="texts", code="body_too_large")
        language = request.get("language")
        if not isinstance(language, str) or not language.strip():
            raise RequestError(400, "the field language is missing (a BCP 47 tag such as en)", param="language", code="missing_language")
        if not self.entities.supports(language):
            have = ", ".join(self.entities.languages)
            raise RequestError(
                400, f"no named-entity model for language {EntityModel.primary(language)}: this service has one for {have}", param="language", code="unsupported_language"
            )
        # In the entity process: a text spaCy is slow on holds that process (killed at the deadline), never this one.
        try:
            found = self.ner.recognise(texts, EntityModel.primary(language))
        except Overrun:
            raise RequestError(
                504, f"named-entity recognition ran past its {self.ner.deadline:g} s deadline and was stopped: this text is not recognised", code="entities_timeout"
            ) from None
        except Busy:
            raise RequestError(503, "the named-entity model is busy: retry later", code="server_busy") from None
        except WorkerFailed as err:
            raise RequestError(500, f"entity recognition failed: {err}", code="entities_failed") from None
        return {"entities": found, "language": EntityModel.primary(language), "model": self.entities.names[EntityModel.primary(language)]}, chars

    def client_gone(self) -> bool:
        """True once the client has closed its side of the connection (it sends nothing while it waits)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def announced_length(self) -> int:
        """The body's Content-Length, refused (413) before any of it is read when the file cannot fit in --max-bytes."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            raise RequestError(411, "send the upload with a Content-Length", code="length_required")
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            raise RequestError(411, "send the upload with a Content-Length", code="length_required") from None
        if length < 0:
            raise RequestError(400, "the Content-Length is negative", code="invalid_body")
        if length > self.max_bytes + FORM_SLACK_BYTES:
            raise RequestError(413, f"Maximum allowed size is {self.max_bytes} bytes", param="file", code="file_too_large")
        return length

    def discard_body(self) -> None:
        """Reads and drops a body within --max-bytes (none larger), in chunks, until it ends or the deadline cuts it."""
        try:
            remaining = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            return
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower() or remaining > self.max_bytes + FORM_SLACK_BYTES:
            return
        try:
            while remaining > 0 and (chunk := self.rfile.read1(min(CHUNK_BYTES, remaining))):
                remaining -= len(chunk)
        except OSError:
            pass

    def authorise(self) -> None:
        if self.api_key is None:
            return
        given = self.headers.get("Authorization") or ""
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), self.api_key.encode()):
            raise RequestError(401, "a valid bearer key is required (TRANSCRIBE_API_KEY)", code="invalid_api_key", drain=True)

    def receive_upload(self, folder: str) -> tuple[dict[str, list[str]], str, int]:
        """Streams the upload's file into `folder` as it arrives; returns the form fields, the file's path and size."""
        boundary = multipart_boundary(self.headers.get("Content-Type") or "")
        length = self.announced_length()
        remaining = length

        def read() -> bytes:
            nonlocal remaining
            if remaining <= 0:
                return b""
            chunk = self.rfile.read1(min(CHUNK_BYTES, remaining))
            remaining -= len(chunk)
            return chunk

        partial = os.path.join(folder, "upload")
        with open(partial, "wb") as sink:
            fields, filename, size = read_multipart(read, boundary, sink, self.max_bytes)
        self.received()
        # The decoder may look at the extension (a raw AAC stream has no header to probe).
        suffix = "".join(c for c in os.path.splitext(filename or "")[1][:8] if c.isalnum() or c == ".")
        audio = os.path.join(folder, "audio" + suffix)
        os.rename(partial, audio)
        return fields, audio, size

    def transcribe(self) -> dict[str, Any]:
        self.authorise()
        content_type = self.headers.get("Content-Type") or ""
        if not content_type.lower().startswith("multipart/form-data"):
            raise RequestError(400, "send the audio as multipart/form-data", code="invalid_body")
        self.announced_length()  # 411/413 before waiting for a place
        # A place before reading: at most --max-uploads bodies on disk and requests waiting for the engine.
        if not self.uploads.acquire(timeout=UPLOAD_WAIT_SECONDS):
            self.counts["busy"] += 1
            raise RequestError(503, "the transcription service is busy: retry later", code="server_busy", drain=True)
        try:
            with tempfile.TemporaryDirectory(prefix="cca-transcriber-") as folder:
                return self.transcribe_upload(folder)
        finally:
            self.uploads.release()

    def transcribe_upload(self, folder: str) -> dict[str, Any]:
        fields, audio, size = self.receive_upload(folder)
        if not size:
            raise RequestError(400, "the field file is missing or empty", param="file", code="missing_file")
        if not one(fields, "model"):
            raise RequestError(400, "the field model is missing", param="model", code="missing_model")
        response_format = one(fields, "response_format") or "json"
        if response_format not in FORMATS:
            raise RequestError(400, f"response_format {response_format} is not supported here: use json or verbose_json", param="response_format")
        granularities = [g.strip() for g in fields.get("timestamp_granularities[]", []) + fields.get("timestamp_granularities", [])]
        unknown = [g for g in granularities if g not in GRANULARITIES]
        if unknown:
            raise RequestError(400, f"timestamp_granularities {unknown[0]} is not one of word, segment", param="timestamp_granularities")
        if granularities and response_format != "verbose_json":
            raise RequestError(400, "timestamp_granularities needs response_format=verbose_json", param="timestamp_granularities")
        language = one(fields, "language") or None
        if language is not None and language not in self.languages:
            raise RequestError(400, f"language {language} is not an ISO-639-1 code this model knows", param="language")
        try:
            temperature = float(one(fields, "temperature") or "0")
        except ValueError:
            raise RequestError(400, "temperature must be a number from 0 to 1", param="temperature") from None
        if not 0 <= temperature <= 1:
            raise RequestError(400, "temperature must be a number from 0 to 1", param="temperature")
        words = "word" in granularities

        with self.lock:
            if self.client_gone():  # gave up while waiting for the engine
                raise engine.Abandoned()
            try:
                result = engine.transcribe(
                    self.model,
                    audio,
                    language=language,
                    prompt=one(fields, "prompt"),
                    temperature=temperature,
                    word_timestamps=words,
                    abandoned=self.client_gone,
                )
            except (ValueError, OSError) as err:
                raise RequestError(400, f"the audio could not be decoded ({type(err).__name__})", param="file", code="invalid_audio") from None
        text = "".join(s["text"] for s in result.segments).strip()
        if response_format == "json":
            return {"text": text}
        body: dict[str, Any] = {
            "task": "transcribe",
            "language": result.language,
            "duration": round(result.duration, 3),
            "text": text,
            "segments": result.segments,
        }
        if words:
            body["words"] = result.words
        return body


BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 10\r\nConnection: close\r\n\r\n" + json.dumps(
    {"error": {"message": "the transcription service has too many connections: retry later", "type": "server_error", "param": None, "code": "server_busy"}}
).encode()


class BoundedServer(ThreadingHTTPServer):
    """One thread per connection, at most `max_threads` at once: past that a connection gets 503 at once and is closed."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], max_threads: int):
        super().__init__(address, handler)
        self.slots = threading.BoundedSemaphore(max_threads)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            Handler.counts["busy"] += 1
            try:
                request.settimeout(1)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            log(msg="refused", status=503, error="too many connections")
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


def main() -> None:
    parser = argparse.ArgumentParser(description="Local OpenAI-compatible transcription service (faster-whisper).")
    parser.add_argument("--port", type=int, required=True)
    # Loopback unless told otherwise: a container binds its own interface, reachable only on the compose network.
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--model", required=True, help="model folder, or a faster-whisper hub id")
    parser.add_argument("--name", default=None, help="name shown by /health")
    # The worker's TRANSCRIBE_MAX_UPLOAD_BYTES, when the environment gives it (compose passes the same value to both).
    max_bytes = int(os.environ.get("TRANSCRIBE_MAX_UPLOAD_BYTES") or DEFAULT_MAX_BYTES)
    parser.add_argument("--max-bytes", type=int, default=max_bytes, help="largest audio file one request may carry (default TRANSCRIBE_MAX_UPLOAD_BYTES, else 24 MiB, the client's)")
    parser.add_argument("--max-uploads", type=int, default=4, help="requests read or waiting for the engine at once (default 4)")
    parser.add_argument("--max-threads", type=int, default=16, help="connections served at once (default 16)")
    parser.add_argument("--request-timeout", type=float, default=300.0, help="seconds a request has to arrive whole (default 300)")
    parser.add_argument("--embeddings-model", default=None, help="Transformers.js model folder served on /v1/embeddings")
    parser.add_argument("--embeddings-pooling", default="cls", choices=["cls", "mean"], help="pooling of that model (default cls, as bge)")
    parser.add_argument("--ner-model", default=None, help="spaCy en_core_web_sm model folder served on /v1/entities (loaded on first use)")
    parser.add_argument("--ner-timeout", type=float, default=DEFAULT_NER_TIMEOUT, help=f"seconds one /v1/entities request may run (default {DEFAULT_NER_TIMEOUT:g})")
    args = parser.parse_args()
    if args.embeddings_model:
        Handler.embedder = EmbeddingModel(args.embeddings_model, args.embeddings_pooling)
    if args.ner_model:
        if not all(os.path.isfile(os.path.join(args.ner_model, f)) for f in ("config.cfg", "meta.json")):
            parser.error(f"--ner-model {args.ner_model} is not a spaCy model folder (config.cfg, meta.json)")
        Handler.entities = EntityModel({"en": args.ner_model})
        Handler.ner = NerProcess(Handler.entities.paths, args.ner_timeout, log)

    from faster_whisper.tokenizer import _LANGUAGE_CODES

    started = time.monotonic()
    Handler.model = engine.load_model(args.model)
    Handler.model_name = args.name or args.model
    Handler.max_bytes = args.max_bytes
    Handler.request_timeout = Handler.timeout = args.request_timeout
    Handler.uploads = threading.BoundedSemaphore(args.max_uploads)
    Handler.api_key = os.environ.get("TRANSCRIBE_API_KEY") or None
    Handler.languages = set(_LANGUAGE_CODES)
    server = BoundedServer((args.host, args.port), Handler, args.max_threads)
    log(
        msg="listening",
        url=f"http://{args.host}:{args.port}",
        model=Handler.model_name,
        load_seconds=round(time.monotonic() - started, 2),
        max_bytes=args.max_bytes,
        max_uploads=args.max_uploads,
        max_threads=args.max_threads,
        request_timeout=args.request_timeout,
        ner_timeout=args.ner_timeout if args.ner_model else None,
        api_key=Handler.api_key is not None,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if Handler.ner is not None:
            Handler.ner.close()


if __name__ == "__main__":
    main()
