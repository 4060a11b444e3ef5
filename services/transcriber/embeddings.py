"""Sentence embeddings for OpenAI's `POST /v1/embeddings`: one ONNX sentence-embedding model with its tokenizer.json.

The same files the Node side loads (a Transformers.js model folder: `onnx/model_quantized.onnx` or
`onnx/model.onnx`, and `tokenizer.json`), pooled and normalised as the API's local embedder does
it, so a deployment can move its embedding to this service (or to any OpenAI-compatible one)
and get the same vectors (while onnxruntime stays at the version requirements.txt pins: the int8
model amplifies any change in the runtime's float kernels). Texts are run one per model call: the
int8 model quantizes its activations per call, so a text's vector would otherwise depend on its
batch mates.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

MAX_TOKENS = 512
POOLINGS = ("cls", "mean")


class EmbeddingModel:
    """Loaded on its first use, so the transcription service starts as fast without it."""

    def __init__(self, folder: str, pooling: str = "cls", threads: int | None = None):
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(POOLINGS)}")
        self.folder = folder
        self.pooling = pooling
        self.threads = threads or os.cpu_count() or 1
        self.lock = threading.Lock()
        self.session: Any = None
        self.tokenizer: Any = None
        self.inputs: list[str] = []

    def model_file(self) -> str:
        for name in ("model_quantized.onnx", "model.onnx"):
            path = os.path.join(self.folder, "onnx", name)
            if os.path.isfile(path):
                return path
        raise FileNotFoundError(f"no onnx/model_quantized.onnx or onnx/model.onnx in {os.path.basename(self.folder)}")

    def load(self) -> None:
        if self.session is not None:
            return
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        session = onnxruntime.InferenceSession(self.model_file(), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(os.path.join(self.folder, "tokenizer.json"))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        self.inputs = [i.name for i in session.get_inputs()]
        self.tokenizer, self.session = tokenizer, session

    def embed_one(self, text: str) -> tuple[list[float], int]:
        """The unit vector of `text` and its token count."""
        encoding = self.tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self.session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in self.inputs})
        if self.pooling == "cls":
            vector = hidden[0, 0, :]
        else:
            weights = mask[0, :, None].astype(np.float32)
            vector = (hidden[0] * weights).sum(axis=0) / max(float(weights.sum()), 1.0)
        norm = float(np.linalg.norm(vector))
        return (vector / norm if norm > 0 else vector).astype(np.float32).tolist(), len(encoding.ids)

    def embed(self, texts: list[str]) -> tuple[list[list[float]], int]:
        with self.lock:
            self.load()
            vectors: list[list[float]] = []
            tokens = 0
            for text in texts:
                vector, n = self.embed_one(text)
                vectors.append(vector)
                tokens += n
            return vectors, tokens
