"""A BM25 index (bm25s) beside the vector store, rebuilt from the store so the two always agree.

Lexical matching catches what dense MiniLM misses: method names (AdaSCALE, OptFS), numbers and
rare terms. The index is derived data: it is rebuilt from Chroma's documents after every ingest,
and whenever it is missing, marked dirty by an interrupted ingest, or its chunk count disagrees
with the store's.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from rag.store import Store

_STOPWORDS = "en"


@functools.cache
def stemmer():
    """English Snowball stemmer (PyStemmer), shared by BM25, the judges and topic selection."""
    try:
        import Stemmer

        return Stemmer.Stemmer("english")
    except ImportError:  # optional: plain tokens still work, recall on word forms is lower
        return None


_TERM = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")


def stem_terms(text: str, stopwords: frozenset[str], min_length: int = 2) -> list[str]:
    """Lower-cased, stemmed words of ``text`` minus ``stopwords``: the unit of lexical overlap."""
    words = [w.lower() for w in _TERM.findall(text) if len(w) >= min_length and w.lower() not in stopwords]
    stem = stemmer()
    return stem.stemWords(words) if stem else words


class LexicalIndex:
    """BM25 over one collection's chunks, saved beside the store.

    A rebuild and a load hold the same small file lock, so a process never reads a directory
    another process is swapping; the swap itself (new directory in, old one out) happens inside
    that lock. An ingest marks the index dirty while it writes and rebuilds it at the end.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._retriever = None
        self._ids: list[str] = []
        self._loaded = False

    @property
    def _dirty_marker(self) -> Path:
        return self.directory.with_name(self.directory.name + ".dirty")

    def _lock(self):
        from filelock import FileLock

        self.directory.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.directory.with_name(self.directory.name + ".lock")), timeout=600)

    def mark_dirty(self) -> None:
        self.directory.parent.mkdir(parents=True, exist_ok=True)
        self._dirty_marker.touch()

    def clear_dirty(self) -> None:
        self._dirty_marker.unlink(missing_ok=True)

    def exists(self) -> bool:
        return (self.directory / "citeline.json").is_file()

    def is_current(self, chunk_count: int) -> bool:
        meta = self.directory / "citeline.json"
        if self._dirty_marker.exists() or not meta.is_file():
            return False
        return json.loads(meta.read_text()).get("count") == chunk_count

    @staticmethod
    def _build(store: Store):
        import bm25s

        ids, texts = [], []
        for chunk_id, text in store.all_chunks():
            ids.append(chunk_id)
            texts.append(text)
        if not ids:
            return None, ids
        tokens = bm25s.tokenize(texts, stopwords=_STOPWORDS, stemmer=stemmer(), show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        return retriever, ids

    def rebuild(self, store: Store) -> int:
        """Index every chunk in ``store``, save it, and clear the dirty mark."""
        retriever, ids = self._build(store)
        with self._lock():
            tmp = Path(tempfile.mkdtemp(prefix=self.directory.name + ".tmp-", dir=self.directory.parent))
            if retriever is not None:
                retriever.save(str(tmp), show_progress=False)
            (tmp / "ids.json").write_text(json.dumps(ids))
            (tmp / "citeline.json").write_text(json.dumps({"count": len(ids)}))
            old = self.directory.with_name(self.directory.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            if self.directory.exists():
                os.replace(self.directory, old)
            os.replace(tmp, self.directory)
            shutil.rmtree(old, ignore_errors=True)
            self.clear_dirty()
        self._retriever, self._ids, self._loaded = retriever, ids, True
        return len(ids)

    def build_in_memory(self, store: Store) -> int:
        """Index the store for this process only, leaving the saved index to the running ingest."""
        self._retriever, self._ids = self._build(store)
        self._loaded = True
        return len(self._ids)

    def _load(self) -> None:
        import bm25s

        with self._lock():
            self._ids = json.loads((self.directory / "ids.json").read_text())
            self._retriever = bm25s.BM25.load(str(self.directory), show_progress=False) if self._ids else None
        self._loaded = True

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """(chunk id, BM25 score) for chunks sharing a term with ``query``, best first."""
        import bm25s

        if not self._loaded:
            self._load()
        if self._retriever is None:
            return []
        tokens = bm25s.tokenize([query], stopwords=_STOPWORDS, stemmer=stemmer(), show_progress=False)
        query_tokens = [[t for t in tokens.vocab if t in self._retriever.vocab_dict]]
        if not query_tokens[0]:
            return []
        docs, scores = self._retriever.retrieve(query_tokens, k=min(k, len(self._ids)), show_progress=False)
        return [(self._ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
