"""The local transcription service: OpenAI's `POST /v1/audio/transcriptions` over faster-whisper, `GET /health`,
when started with --embeddings-model, OpenAI's `POST /v1/embeddings` over an ONNX sentence-embedding model, and, when
started with --ner-model, `POST /v1/entities` (named entities of texts, spaCy's en_core_web_sm, English only).

Bound to 127.0.0.1 unless --host says otherwise (the container image binds its own interface,
never published). One model is loaded at start; requests are decoded one at a time (each
uses every core), while /health keeps answering. Errors are OpenAI's JSON shape
`{"error": {"message", "type", "param", "code"}}`.

Usage: server.py --port N [--host ADDRESS] --model <model folder | hub id> [--name NAME] [--max-bytes N]
                 [--embeddings-model <Transformers.js model folder>] [--embeddings-pooling cls|mean]
                 [--ner-model <spaCy en_core_web_sm model folder>]
"""

from __future__ import annotations

import argparse
import email.parser
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
from typing import Any

import engine
from embeddings import EmbeddingModel
from entities import EntityModel, UnsupportedLanguage

FORMATS = ("json", "verbose_json")
EMBED_MAX_BYTES = 8 * 1024 * 1024
EMBED_MAX_INPUTS = 2048
# An hour of speech is about 55,000 characters; the client sends an episode in batches of a few dozen segments.
ENTITIES_MAX_BYTES = 1024 * 1024
ENTITIES_MAX_TEXTS = 1000
ENTITIES_MAX_CHARS = 200_000
GRANULARITIES = ("word", "segment")


class RequestError(Exception):
    """A request we refuse, answered in OpenAI's error shape."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.param = param
        self.code = code


def log(**fields: Any) -> None:
    print(json.dumps({"time": round(time.time() * 1000), **fields}), file=sys.stderr, flush=True)


def parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, list[str]], bytes | None, str | None]:
    """Form fields (repeatable, as `timestamp_granularities[]` is) and the uploaded file's bytes and name."""
    message = email.parser.BytesParser().parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise RequestError(400, "the body is not multipart/form-data", code="invalid_body")
    fields: dict[str, list[str]] = {}
    file: bytes | None = None
    filename: str | None = None
    for part in message.get_payload():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if name == "file":
            file, filename = payload, part.get_filename() or "audio"
        elif isinstance(name, str):
            fields.setdefault(name, []).append(payload.decode("utf-8", "replace"))
    return fields, file, filename


def one(fields: dict[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    return values[-1].strip() if values else None


class Handler(BaseHTTPRequestHandler):
    server_version = "cca-transcriber/1"
    model: Any = None
    model_name = "base"
    max_bytes = 256 * 1024 * 1024
    languages: set[str] = set()
    embedder: EmbeddingModel | None = None
    entities: EntityModel | None = None
    lock = threading.Lock()
    # Counted for /health: a test (and an operator) can see that an abandoned request stopped decoding.
    counts = {"transcribed": 0, "abandoned": 0}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # one JSON line per request instead, from the handlers

    def answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def fail(self, err: RequestError) -> None:
        kind = "invalid_request_error" if err.status < 500 else "server_error"
        self.answer(err.status, {"error": {"message": str(err), "type": kind, "param": err.param, "code": err.code}})

    def do_GET(self) -> None:
        if self.path.split("?")[0] == "/health":
            self.answer(200, {"status": "ok", "model": self.model_name, **self.counts})
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
            self.fail(err)
            log(msg="refused", status=err.status, error=str(err))
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
        try:
            request = json.loads(self.rfile.read(length) or b"null")
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
        if self.entities is None:
            raise RequestError(404, "this service was started without a named-entity model", code="not_found")
        request = self.read_json(ENTITIES_MAX_BYTES)
        texts = request.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise RequestError(400, "texts must be an array of strings", param="texts", code="invalid_input")
        if len(texts) > ENTITIES_MAX_TEXTS:
            raise RequestError(400, f"texts holds more than {ENTITIES_MAX_TEXTS} texts", param="texts", code="invalid_input")
        chars = sum(len(t) for t in texts)
        if chars > ENTITIES_MAX_CHARS:
            raise RequestError(413, f"texts hold more than {ENTITIES_MAX_CHARS} characters in all", param="texts", code="body_too_large")
        language = request.get("language")
        if not isinstance(language, str) or not language.strip():
            raise RequestError(400, "the field language is missing (a BCP 47 tag such as en)", param="language", code="missing_language")
        try:
            found = self.entities.recognise(texts, language)
        except UnsupportedLanguage as err:
            have = ", ".join(self.entities.languages)
            raise RequestError(
                400, f"no named-entity model for language {err}: this service has one for {have}", param="language", code="unsupported_language"
            ) from None
        return {"entities": found, "language": EntityModel.primary(language), "model": self.entities.names[EntityModel.primary(language)]}, chars

    def client_gone(self) -> bool:
        """True once the client has closed its side of the connection (it sends nothing while it waits)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            raise RequestError(411, "send the upload with a Content-Length", code="length_required")
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            raise RequestError(411, "send the upload with a Content-Length", code="length_required") from None
        if length > self.max_bytes:
            raise RequestError(413, f"Maximum allowed size is {self.max_bytes} bytes", param="file", code="file_too_large")
        return self.rfile.read(length)

    def transcribe(self) -> dict[str, Any]:
        content_type = self.headers.get("Content-Type") or ""
        if not content_type.lower().startswith("multipart/form-data"):
            raise RequestError(400, "send the audio as multipart/form-data", code="invalid_body")
        fields, audio, filename = parse_multipart(content_type, self.read_body())
        if not audio:
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

        suffix = os.path.splitext(filename or "")[1][:8]
        with tempfile.NamedTemporaryFile(suffix=suffix) as tmp:
            tmp.write(audio)
            tmp.flush()
            with self.lock:
                if self.client_gone():  # gave up while waiting for the engine
                    raise engine.Abandoned()
                try:
                    result = engine.transcribe(
                        self.model,
                        tmp.name,
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Local OpenAI-compatible transcription service (faster-whisper).")
    parser.add_argument("--port", type=int, required=True)
    # Loopback unless told otherwise: a container binds its own interface, reachable only on the compose network.
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--model", required=True, help="model folder, or a faster-whisper hub id")
    parser.add_argument("--name", default=None, help="name shown by /health")
    parser.add_argument("--max-bytes", type=int, default=256 * 1024 * 1024)
    parser.add_argument("--embeddings-model", default=None, help="Transformers.js model folder served on /v1/embeddings")
    parser.add_argument("--embeddings-pooling", default="cls", choices=["cls", "mean"], help="pooling of that model (default cls, as bge)")
    parser.add_argument("--ner-model", default=None, help="spaCy en_core_web_sm model folder served on /v1/entities (loaded on first use)")
    args = parser.parse_args()
    if args.embeddings_model:
        Handler.embedder = EmbeddingModel(args.embeddings_model, args.embeddings_pooling)
    if args.ner_model:
        if not all(os.path.isfile(os.path.join(args.ner_model, f)) for f in ("config.cfg", "meta.json")):
            parser.error(f"--ner-model {args.ner_model} is not a spaCy model folder (config.cfg, meta.json)")
        Handler.entities = EntityModel({"en": args.ner_model})

    from faster_whisper.tokenizer import _LANGUAGE_CODES

    started = time.monotonic()
    Handler.model = engine.load_model(args.model)
    Handler.model_name = args.name or args.model
    Handler.max_bytes = args.max_bytes
    Handler.languages = set(_LANGUAGE_CODES)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    log(msg="listening", url=f"http://{args.host}:{args.port}", model=Handler.model_name, load_seconds=round(time.monotonic() - started, 2))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
