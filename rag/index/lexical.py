"""A BM25 index (bm25s) beside the vector store, rebuilt from the store so the two always agree.

With it lives the collection's **paper table** (``papers.npy`` + ``papers.json``): one row per
paper with its mean chunk vector, venue, year and stemmed title+abstract terms. Topic selection
("Which papers work on X?", ``summarize``) judges *every* paper of a conference against a topic
and the vocabulary it learns from the topic's core; reading 5,000 vectors from Chroma per
question took seconds, the table loads in milliseconds and shares the BM25 index's lifecycle
(rebuilt after every ingest, checked against the same manifest).

Lexical matching catches what dense MiniLM misses: method names (AdaSCALE, OptFS), numbers and
rare terms. The index is derived data: it is rebuilt from Chroma's documents after every ingest,
and whenever it is missing, marked dirty by an interrupted ingest, or its chunk count disagrees
with the store's. Its manifest records each file's size and SHA-256, so a truncated or damaged
file is found before bm25s or numpy reads it, and the index is rebuilt (with a warning).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from rag.errors import disk_full, warn
from rag.index.store import Store
from rag.settings import Settings
from rag.text import acronyms_in, bm25s_module, indexed_text, lexical_sequence, stemmer

_STOPWORDS = "en"
# The saved index's layout; an older one is rebuilt once, at its first query. 2: the paper table
# beside BM25; 3: with the acronyms it defines; 4: closed compounds spell two of their letters
# ("multilayer perceptron (MLP)"); 5: digits raised after a letter are indexed on the line
# ("$C^3$" as "C3", rag.text.indexed_text).
LAYOUT = 5


class DamagedIndex(Exception):
    """A saved BM25 index whose files do not match its manifest."""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
        self._papers: PaperTable | None = None
        self._loaded = False
        self.damaged = False  # found damaged on disk (then rebuilt by the caller)

    @property
    def _dirty_marker(self) -> Path:
        return self.directory.with_name(self.directory.name + ".dirty")

    def _lock(self):
        from filelock import FileLock

        self.directory.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.directory.with_name(self.directory.name + ".lock")), timeout=600)

    def mark_dirty(self) -> None:
        """Note that the store is being written, so the index may not match it."""
        self.directory.parent.mkdir(parents=True, exist_ok=True)
        self._dirty_marker.touch()

    def clear_dirty(self) -> None:
        """The index matches the store again."""
        self._dirty_marker.unlink(missing_ok=True)

    def exists(self) -> bool:
        """A saved index is on disk."""
        return (self.directory / "citeline.json").is_file()

    def _manifest(self) -> dict:
        """The saved manifest, with every file it lists present at its recorded size."""
        try:
            manifest = json.loads((self.directory / "citeline.json").read_text())
            for name, (size, _) in manifest["files"].items():
                if (self.directory / name).stat().st_size != size:
                    raise DamagedIndex(name)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DamagedIndex(str(exc)) from None
        return manifest

    def is_current(self, chunk_count: int, generation: str | None = None) -> bool:
        """Saved, not dirty, built from ``chunk_count`` chunks of the store's ``generation`` (see
        :attr:`Store.generation`: an equal-count change by another machine shows there), and every
        file of its full size.

        A damaged index sets :attr:`damaged` (an index saved before manifests listed files is
        merely out of date).
        """
        if self._dirty_marker.exists() or not self.directory.is_dir():
            return False
        try:
            manifest = self._manifest()
            return (
                manifest.get("count") == chunk_count
                and manifest.get("generation") == generation
                and manifest.get("layout") == LAYOUT
            )
        except DamagedIndex:
            self.damaged = not self._old_format()
            return False

    def _old_format(self) -> bool:
        try:
            return "files" not in json.loads((self.directory / "citeline.json").read_text())
        except (OSError, ValueError, TypeError):
            return False

    @staticmethod
    def _build(store: Store):
        bm25s = bm25s_module()

        ids, texts, papers = [], [], PaperRows()
        for chunk_id, text, vector, meta in store.all_chunks_with_vectors():
            ids.append(chunk_id)
            texts.append(text)
            papers.add(meta, vector)
        table = papers.table()
        if not ids:
            return None, ids, table
        written = [indexed_text(t) for t in texts]
        tokens = bm25s.tokenize(written, stopwords=_STOPWORDS, stemmer=stemmer(), show_progress=False)
        if not tokens.vocab:
            return None, ids, table  # nothing but stop words and one-letter tokens: no term to match
        retriever = bm25s.BM25()  # NumPy's build (bm25s 0.3's default; SciPy's gives the same matrix)
        retriever.index(tokens, show_progress=False)
        return retriever, ids, table

    def rebuild(self, store: Store) -> int:
        """Index every chunk in ``store``, save it, and clear the dirty mark."""
        generation = store.generation  # before reading: a later change must not look included
        retriever, ids, papers = self._build(store)
        with self._lock():
            tmp = Path(tempfile.mkdtemp(prefix=self.directory.name + ".tmp-", dir=self.directory.parent))
            try:
                if retriever is not None:
                    retriever.save(str(tmp), show_progress=False)
                (tmp / "ids.json").write_text(json.dumps(ids))
                papers.save(tmp)
                files = {p.name: [p.stat().st_size, _digest(p)] for p in sorted(tmp.iterdir())}
                manifest = {"count": len(ids), "generation": generation, "layout": LAYOUT, "files": files}
                (tmp / "citeline.json").write_text(json.dumps(manifest))
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)  # a full disk leaves no half-written copy behind
                raise
            old = self.directory.with_name(self.directory.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            if self.directory.exists():
                os.replace(self.directory, old)
            os.replace(tmp, self.directory)
            shutil.rmtree(old, ignore_errors=True)
            self.clear_dirty()
        self._retriever, self._ids, self._papers, self._loaded = retriever, ids, papers, True
        return len(ids)

    def build_in_memory(self, store: Store) -> int:
        """Index the store for this process only, leaving the saved index to the running ingest."""
        self._retriever, self._ids, self._papers = self._build(store)
        self._loaded = True
        return len(self._ids)

    def _load(self) -> None:
        """Read the saved index, after checking every file against the manifest."""
        bm25s = bm25s_module()

        with self._lock():
            for name, (_, digest) in self._manifest()["files"].items():
                if _digest(self.directory / name) != digest:
                    raise DamagedIndex(name)
            self._ids = json.loads((self.directory / "ids.json").read_text())
            self._papers = (
                PaperTable.load(self.directory) if (self.directory / "papers.json").is_file() else None
            )
            saved = (self.directory / "params.index.json").is_file()
            self._retriever = bm25s.BM25.load(str(self.directory), show_progress=False) if saved else None
        self._loaded = True

    def load(self) -> bool:
        """Read the saved index now; False (and nothing loaded) when it is damaged."""
        try:
            self._load()
        except DamagedIndex:
            self._retriever, self._ids, self._papers, self._loaded = None, [], None, False
            self.damaged = True
            return False
        return True

    def document_frequencies(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many chunks contain each (stemmed) term, and how many chunks there are."""
        if not self._loaded:
            self.load()
        if self._retriever is None:
            return {}, 0
        vocab, indptr = self._retriever.vocab_dict, self._retriever.scores["indptr"]
        df = {t: int(indptr[vocab[t] + 1] - indptr[vocab[t]]) for t in terms if t in vocab}
        return df, len(self._ids)

    def papers(self) -> PaperTable:
        """The collection's paper table (empty when the collection is)."""
        if not self._loaded:
            self.load()
        return self._papers or PaperTable.empty()

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """(chunk id, BM25 score) for chunks sharing a term with ``query``, best first."""
        bm25s = bm25s_module()

        if not self._loaded:
            self.load()
        if self._retriever is None:
            return []
        asked = [indexed_text(query)]
        tokens = bm25s.tokenize(asked, stopwords=_STOPWORDS, stemmer=stemmer(), show_progress=False)
        query_tokens = [[t for t in tokens.vocab if t in self._retriever.vocab_dict]]
        if not query_tokens[0]:
            return []
        docs, scores = self._retriever.retrieve(query_tokens, k=min(k, len(self._ids)), show_progress=False)
        return [(self._ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


class PaperRows:
    """Collects a paper table while the chunks stream by: vectors summed per paper, the
    metadata of its first chunk (which carries the abstract)."""

    def __init__(self) -> None:
        self.sums: dict[str, list] = {}
        self.firsts: dict[str, dict] = {}

    def add(self, meta: dict, vector) -> None:
        """Count one chunk: its vector into its paper's sum, its metadata if it is the first chunk."""
        import numpy as np

        pid = str(meta["paper_id"])
        vec = np.asarray(vector, dtype=np.float32)
        if pid in self.sums:
            self.sums[pid][0] += vec
        else:
            self.sums[pid] = [vec.copy()]
        if "abstract" in meta or pid not in self.firsts:
            self.firsts[pid] = meta

    def table(self) -> PaperTable:
        """The table of the papers seen: unit mean vectors, venue, year and stemmed terms."""
        import numpy as np

        ids = sorted(self.sums)
        if not ids:
            return PaperTable.empty()
        vectors = np.stack([self.sums[p][0] for p in ids])
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        metas = [self.firsts[p] for p in ids]
        return PaperTable(
            ids=ids,
            vectors=vectors,
            venues=[str(m.get("venue") or "") for m in metas],
            years=[int(m["year"]) if m.get("year") is not None else None for m in metas],
            terms=[
                lexical_sequence(f"{m.get('title') or ''} {m.get('label') or ''} {m.get('abstract') or ''}")
                for m in metas
            ],
            acronyms=acronyms_in(f"{m.get('title') or ''}. {m.get('abstract') or ''}" for m in metas),
        )


class PaperTable:
    """One row per paper of a collection: id, unit mean vector, venue, year, stemmed terms in order."""

    def __init__(
        self,
        ids: list[str],
        vectors,
        venues: list[str],
        years: list,
        terms: list[list[str]],
        acronyms: dict[str, tuple[str, int]] | None = None,
    ) -> None:
        self.ids, self.vectors, self.venues, self.years, self.terms = ids, vectors, venues, years, terms
        self.acronyms = acronyms or {}  # "gnn" → ("graph neural networks", papers defining it so)

    @classmethod
    def empty(cls) -> PaperTable:
        """The table of an empty collection."""
        import numpy as np

        return cls([], np.zeros((0, 0), dtype=np.float32), [], [], [])

    def __len__(self) -> int:
        return len(self.ids)

    def save(self, directory: Path) -> None:
        """Write the vectors as ``papers.npy`` (no pickles) and the rest as ``papers.json``."""
        import numpy as np

        np.save(directory / "papers.npy", self.vectors, allow_pickle=False)
        rows = {
            "ids": self.ids,
            "venues": self.venues,
            "years": self.years,
            "terms": [" ".join(t) for t in self.terms],
            "acronyms": self.acronyms,
        }
        (directory / "papers.json").write_text(json.dumps(rows))

    @classmethod
    def load(cls, directory: Path) -> PaperTable:
        """Read a table :meth:`save` wrote (the caller checked the files against the manifest)."""
        import numpy as np

        rows = json.loads((directory / "papers.json").read_text())
        vectors = np.load(directory / "papers.npy", allow_pickle=False)
        terms = [t.split() for t in rows["terms"]]
        acronyms = {k: (str(v[0]), int(v[1])) for k, v in rows.get("acronyms", {}).items()}
        return cls(rows["ids"], vectors, rows["venues"], rows["years"], terms, acronyms)


def lexical_index(settings: Settings) -> LexicalIndex:
    """The BM25 index of the settings' collection, on this store."""
    return LexicalIndex(settings.store_dir / "bm25" / settings.collection)


def collection_lock(settings: Settings):
    """The lock one ingest (or BM25 rebuild) of a collection holds on this machine."""
    from filelock import FileLock

    settings.store_dir.mkdir(parents=True, exist_ok=True)
    return FileLock(str(settings.store_dir / f"{settings.collection}.lock"))


def query_lexical_index(settings: Settings, store: Store) -> LexicalIndex:
    """The BM25 index a query should use, without racing an ingest of the same collection.

    Current: used as is. Stale with no ingest running (a crashed ingest, or another host wrote the
    Chroma server): rebuilt and saved. Stale because an ingest is writing right now: the last
    saved index is used as it stands (it matches the collection as the previous ingest left it,
    and retrieval skips chunks it names that are gone), or, before the first ingest has finished,
    an index built in memory for this process only. Only an ingest or a rebuild under the
    collection lock clears the dirty mark.
    """
    from filelock import Timeout

    lexical = lexical_index(settings)
    if lexical.is_current(store.count(), store.generation) and lexical.load():
        return lexical
    if lexical.damaged:
        warn(f"the BM25 index of collection {settings.collection!r} was damaged; rebuilt it from the store")
    lock = collection_lock(settings)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        if lexical.damaged or not lexical.load():
            lexical.build_in_memory(store)
        return lexical
    try:
        lexical.rebuild(store)
    except OSError as exc:
        if not disk_full(exc, settings.data_dir):
            raise
        warn(
            f"disk full: could not save the BM25 index of {settings.collection!r} in {settings.data_dir}; "
            "searching with one built in memory"
        )
        lexical.build_in_memory(store)
    finally:
        lock.release()
    return lexical
