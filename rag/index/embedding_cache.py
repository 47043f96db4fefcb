"""A persistent cache of document vectors, keyed by embedding model and exact text.

Content hashes already make an unchanged re-ingest free, but a paper's hash covers its metadata
too, and the vectors live inside one collection of one store. A corrected author list, a new URL,
ingesting the same list into another collection (one per venue, or one combined), or moving to a
Chroma server would otherwise embed text whose vector is already known, and on a CPU embedding is
over 90% of ingest time. SQLite (stdlib) keeps the cache crash-safe (a batch is one transaction)
and safe for several processes at once (WAL, busy timeout); it lives under the data dir but
outside the index, so deleting an index does not throw the vectors away. The cache is derived
data: a damaged file is moved aside (``embeddings.sqlite.damaged-<time>``) with a warning and the
cache starts afresh, so it can cost time but never an ingest.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from rag.errors import warn
from rag.index.embeddings import Embedder

_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    key BLOB NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, key)
) WITHOUT ROWID
"""
# SQLite's default limit on host parameters is 999 in old builds; stay under it.
_LOOKUP_BATCH = 900


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:20]


class EmbeddingCache:
    """Vectors stored as float32 bytes, so a cached vector is bit-identical to what Chroma holds.

    ``path`` None keeps the cache in memory for one run (the cache turned off in the settings):
    duplicate texts within the run are still embedded once.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._safely(self._open)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path or ":memory:"), timeout=60, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("quick_check failed")
            db.commit()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _safely(self, work: Callable[[], _T]) -> _T:
        """Run ``work``; if the file turns out damaged, move it aside, start afresh and run it again."""
        try:
            return work()
        except sqlite3.DatabaseError as exc:
            damaged = any(sign in str(exc) for sign in ("malformed", "not a database", "quick_check"))
            if self.path is None or not damaged:
                raise  # a locked, read-only or full disk is not damage: the file stays
            if getattr(self, "_db", None) is not None:
                self._db.close()
            aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
            for suffix in ("", "-wal", "-shm"):
                part = self.path.with_name(self.path.name + suffix)
                if part.exists():
                    part.replace(aside.with_name(aside.name + suffix))
            warn(
                f"the embedding cache {self.path} was damaged ({exc}); "
                f"moved it to {aside.name} and started afresh"
            )
            self._db = self._open()
            return work()

    def get(self, model: str, texts: Sequence[str]) -> dict[str, list[float]]:
        """Cached vectors of ``texts`` under ``model`` (missing texts are absent)."""
        return self._safely(lambda: self._get(model, texts))

    def _get(self, model: str, texts: Sequence[str]) -> dict[str, list[float]]:
        import numpy as np

        keys = {_key(t): t for t in texts}
        found: dict[str, list[float]] = {}
        items = list(keys)
        for start in range(0, len(items), _LOOKUP_BATCH):
            part = items[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})", [model, *part]
            )
            for key, blob in rows:
                found[keys[key]] = np.frombuffer(blob, dtype=np.float32).tolist()
        return found

    def put(self, model: str, texts: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        """Store vectors, one transaction per batch (crash-safe)."""
        self._safely(lambda: self._put(model, texts, vectors))

    def _put(self, model: str, texts: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        import numpy as np

        rows = [
            (model, _key(t), np.asarray(v, dtype=np.float32).tobytes())
            for t, v in zip(texts, vectors, strict=True)
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def count(self, model: str) -> int:
        """Vectors cached for ``model`` (tests and diagnostics)."""
        return self._db.execute("SELECT count(*) FROM vectors WHERE model = ?", [model]).fetchone()[0]

    def close(self) -> None:
        """Close the database (an ingest's end)."""
        self._db.close()


class CachedEmbedder:
    """An :class:`Embedder` that embeds only the texts the cache has not seen for this model.

    Queries are not cached: each is new text, and looking it up would only add latency.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self.hits = 0
        self.misses = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for ``texts``, embedding only those the cache lacks."""
        import numpy as np

        known = self.cache.get(self.name, texts)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            fresh = self.inner.embed_documents(missing)
            # Round through float32 so that a fresh vector equals the one a later run reads back.
            fresh = [np.asarray(v, dtype=np.float32).tolist() for v in fresh]
            self.cache.put(self.name, missing, fresh)
            known.update(zip(missing, fresh, strict=True))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return [known[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """A query vector, never cached (each query is new text)."""
        return self.inner.embed_query(text)
