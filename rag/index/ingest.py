"""Ingest paper lists: parse → chunk → diff against the index → embed what changed → upsert.

Idempotent and restartable. Chunk IDs are stable (``<paper id>#<n>``) and every chunk carries its
paper's content hash, so a re-run skips papers whose chunks are all present with the same hash,
re-embeds changed ones, redoes any paper a crash left half-written, and deletes entries that
vanished from their source file. New chunks are upserted before stale ones are deleted, so an
interrupted run never leaves a paper with no chunks that it had before. One ingest per collection
at a time (a lock file); the BM25 index is marked dirty while Chroma is written and rebuilt after.
Vectors go through the embedding cache, so text embedded once (in any collection) is not again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import CitelineError
from rag.index.chunking import chunk_paper, paper_hash
from rag.index.corpus import ParsedSource, Problem, expand_paths, parse_source
from rag.index.embedding_cache import CachedEmbedder, EmbeddingCache
from rag.index.embeddings import make_embedder
from rag.index.lexical import collection_lock, lexical_index
from rag.index.store import PaperState, Store
from rag.records import Chunk
from rag.resources import bundled_corpus
from rag.settings import DEFAULT_COLLECTION, Settings

EMBED_BATCH = 64


@dataclass
class IngestReport:
    """What an ingest did, for the user and ``--json``."""

    files: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    chunks_written: int = 0
    vectors_reused: int = 0  # chunks whose vector came from the embedding cache
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    embed_seconds: float = 0.0

    @property
    def papers_ingested(self) -> int:
        """Papers now in the index from the files given."""
        return self.added + self.updated + self.unchanged

    def to_dict(self) -> dict:
        """JSON-ready, problems as ``file:line: message`` strings."""
        data = {k: v for k, v in self.__dict__.items() if k != "problems"}
        data["problems"] = [str(p) for p in self.problems]
        return data


# Called with (event, amount): "total" once per file with its paper count, "advance" per paper done.
Progress = Callable[[str, int, str], None]


def _noop(event: str, amount: int, detail: str) -> None:
    pass


def _single_collection(settings: Settings) -> None:
    name = settings.collection
    if len(settings.collection_names) != 1 or any(c in name for c in "*?[]"):
        raise CitelineError(f"ingest writes one collection at a time, not {name!r}; name one --collection")


class _Writer:
    """Buffers chunks so that embedding runs in batches, and writes each batch as it fills."""

    def __init__(self, store: Store, embedder: CachedEmbedder, report: IngestReport) -> None:
        self.store, self.embedder, self.report = store, embedder, report
        self.pending: list[Chunk] = []
        self.stale: list[str] = []

    def add(self, chunks: Iterable[Chunk], stale: Iterable[str] = ()) -> None:
        """Queue chunks to write and chunk IDs to delete; write when a batch is full."""
        self.pending.extend(chunks)
        self.stale.extend(stale)
        if len(self.pending) >= EMBED_BATCH:
            self.flush()

    def flush(self) -> None:
        """Embed and upsert what is queued, then delete what is stale (upsert first: no gap)."""
        if self.pending:
            started, reused = time.perf_counter(), self.embedder.hits
            vectors = self.embedder.embed_documents([c.text for c in self.pending])
            self.report.embed_seconds += time.perf_counter() - started
            self.report.vectors_reused += self.embedder.hits - reused
            self.store.upsert(self.pending, vectors)
            self.report.chunks_written += len(self.pending)
            self.pending = []
        if self.stale:
            self.store.delete(self.stale)
            self.stale = []


def _sync_file(
    parsed: ParsedSource,
    states: dict[str, PaperState],
    settings: Settings,
    writer: _Writer,
    progress: Progress,
) -> set[str]:
    """Queue what changed in one file for writing; returns the IDs the file still holds."""
    report = writer.report
    report.files += 1
    report.problems.extend(parsed.problems)
    report.skipped += sum(1 for p in parsed.problems if p.line is not None)
    progress("total", len(parsed.papers), parsed.name)
    seen: set[str] = set()
    for paper in parsed.papers:
        progress("advance", 1, "")
        state = states.get(paper.id)
        if state and state.source != paper.source:
            message = f"id {paper.id!r} is already indexed from {state.source}; skipped"
            report.problems.append(Problem(paper.source, paper.line, message))
            report.skipped += 1
            continue
        seen.add(paper.id)
        digest = paper_hash(paper, settings.chunk_tokens, settings.chunk_overlap)
        if state and state.is_complete(paper.id, digest):
            report.unchanged += 1
            continue
        chunks = chunk_paper(paper, settings.chunk_tokens, settings.chunk_overlap)
        writer.add(chunks, state.chunk_ids - {c.id for c in chunks} if state else ())
        if state:
            report.updated += 1
        else:
            report.added += 1
    return seen


def ingest(paths: list[Path], settings: Settings, progress: Progress = _noop) -> IngestReport:
    """Bring the collection in line with ``paths``. Raises only if nothing at all could be read."""
    from filelock import Timeout

    started = time.perf_counter()
    _single_collection(settings)
    report = IngestReport()
    files = expand_paths(paths)
    lock = collection_lock(settings)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise CitelineError(
            f"another citeline process is writing collection {settings.collection!r} "
            "(an ingest, or a query rebuilding its BM25 index); wait for it to finish"
        ) from None
    cache = EmbeddingCache(settings.embedding_cache_file)
    try:
        embedder = CachedEmbedder(make_embedder(settings), cache)
        store = Store(settings)
        store.open(embedder.name, create=True)
        lexical = lexical_index(settings)
        lexical_was_current = lexical.is_current(store.count())
        lexical.mark_dirty()
        states = store.paper_states()
        by_source: dict[str, set[str]] = {}
        for paper_id, state in states.items():
            by_source.setdefault(state.source, set()).add(paper_id)
        writer = _Writer(store, embedder, report)
        for path in files:
            try:
                parsed = parse_source(path)
            except CitelineError as exc:
                report.problems.append(Problem(path.name, None, str(exc).removeprefix(f"{path}: ")))
                continue
            seen = _sync_file(parsed, states, settings, writer, progress)
            gone = (by_source.get(path.name, set()) - seen) & states.keys()  # a name listed twice
            for paper_id in gone:
                writer.add((), states.pop(paper_id).chunk_ids)
            report.removed += len(gone)
            writer.flush()
        if store.created and not report.papers_ingested:
            store.drop()  # a failed first ingest leaves no empty collection behind
            lexical.clear_dirty()
        elif lexical_was_current and not report.chunks_written and not report.removed:
            lexical.clear_dirty()  # nothing was written: the saved BM25 index still matches
        else:
            lexical.rebuild(store)
    finally:
        cache.close()
        lock.release()
    report.seconds = time.perf_counter() - started
    if report.papers_ingested == 0 and report.removed == 0:
        detail = "; ".join(str(p) for p in report.problems[:3]) or "the files hold no papers"
        raise CitelineError(f"nothing could be ingested: {detail}")
    return report


def ensure_index(settings: Settings, progress: Progress = _noop) -> IngestReport | None:
    """Ingest the bundled ICML 2026 corpus when the default collection does not exist or is empty.

    Only the default collection: a collection the user named must have been ingested on purpose,
    and filling a mistyped name with the bundled corpus would answer from the wrong papers.
    """
    if settings.collection != DEFAULT_COLLECTION:
        return None
    store = Store(settings)
    if store.exists():
        embedder_name = make_embedder(settings).name
        if store.open(embedder_name).count() > 0:
            return None
    return ingest(bundled_corpus(), settings, progress)


def paper_hashes(paths: list[Path], settings: Settings) -> dict[str, str]:
    """Content hashes of the papers in ``paths`` (for tests and diagnostics)."""
    return {
        p.id: paper_hash(p, settings.chunk_tokens, settings.chunk_overlap)
        for path in expand_paths(paths)
        for p in parse_source(path).papers
    }
