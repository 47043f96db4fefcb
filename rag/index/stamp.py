"""Has the index on disk changed? A digest of what it holds, for processes that outlive a command.

The warm process (:mod:`rag.ui.query_server`) exits when the digest changes; a long-lived session
(the MCP server, ``chat``, a LangChain retriever: anything holding a :class:`rag.Library`) reopens
its retriever instead (:class:`FreshIndex`). Without that, papers another process ingested stayed
invisible to it (its BM25 index and paper table were loaded once), and a new scope on the changed
collection failed inside Chroma: an embedded client keeps the HNSW segment it first loaded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def index_stamp(data_dir: Path) -> str | None:
    """What the index holds, as a digest that any ingest, new or removed collection changes.

    Chroma rewrites its HNSW files whenever a process opens a collection, so file times would
    call every reader a writer: its SQLite store is read instead (collections, their metadata and
    the write log's last sequence number); every other index file (BM25) by size and time. None
    when the store cannot be read now (a writer holds it): then nothing is trusted.
    """
    import hashlib

    digest = hashlib.sha256()
    index = data_dir / "index"
    for root, dirs, files in os.walk(index):
        dirs.sort()
        if Path(root) == index / "chroma":
            dirs.clear()  # HNSW segment folders: rewritten by readers, covered by the write log
        for name in sorted(files):
            if name.endswith(".lock"):
                continue  # taken (and so touched) by readers too
            try:
                info = os.stat(os.path.join(root, name))
            except FileNotFoundError:
                continue
            if name == "chroma.sqlite3":
                contents = _chroma_contents(Path(root, name))
                if contents is None:
                    return None
                digest.update(contents.encode())
            else:
                add_stat(digest, Path(root, name), info)
    return digest.hexdigest()


def add_stat(digest: Any, path: Path, info: os.stat_result) -> None:
    """A file as the stamps see it: its path, size and modification time."""
    digest.update(f"{path}:{info.st_size}:{info.st_mtime_ns};".encode())


def _chroma_contents(path: Path) -> str | None:
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = [
                db.execute("SELECT id, name FROM collections ORDER BY id").fetchall(),
                db.execute("SELECT * FROM collection_metadata ORDER BY 1, 2").fetchall(),
                db.execute("SELECT MAX(seq_id), COUNT(*) FROM embeddings_queue").fetchall(),
            ]
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return repr(rows)


class FreshIndex(Generic[T]):
    """Something a long-lived process built over the index (a retriever), built again when
    another process changed the index since.

    The digest is taken before building, so a change made while it builds is seen by the next
    call. A digest that cannot be read now (a writer holds the store) is no change: what is built
    keeps serving until the writer is done. The digest covers every collection of the data dir,
    so an ingest into another collection rebuilds too (once per ingest). One build at a time:
    parallel callers (the MCP server's tool calls) wait for it and share it.
    """

    # The digest whose change last dropped the embedded Chroma clients: every holder that sees a
    # change rebuilds, but only the first drops the clients, so the scopes of one process (up to
    # 8 in the MCP server) go on sharing one store instance instead of one each.
    _forgotten_at: str | None = None
    _forgetting = threading.Lock()

    def __init__(self, data_dir: Path, build: Callable[[], T]) -> None:
        self.data_dir = data_dir
        self._build = build
        self._built: T | None = None
        self._stamp: str | None = None
        self._lock = threading.Lock()

    @property
    def opened(self) -> bool:
        """Whether it has been built (and so holds the index open)."""
        return self._built is not None

    def get(self) -> T:
        """What was built, rebuilt first if the index changed since."""
        with self._lock:
            if self._built is not None and self._changed():
                self._built = None
            if self._built is None:
                self._stamp = index_stamp(self.data_dir)
                self._built = self._build()
            return self._built

    def _changed(self) -> bool:
        now = index_stamp(self.data_dir)
        if now is None or now == self._stamp:
            return False
        with FreshIndex._forgetting:
            if FreshIndex._forgotten_at != now:
                from rag.index.store import forget_embedded_clients

                forget_embedded_clients()  # the rebuilt store reads the index afresh
                FreshIndex._forgotten_at = now
        return True
