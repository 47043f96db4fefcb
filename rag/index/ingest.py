"""Ingest paper lists: parse → chunk → diff against the index → embed what changed → upsert.

Idempotent and restartable. Chunk IDs are stable (``<paper id>#<n>``) and every chunk carries its
paper's content hash, so a re-run skips papers whose chunks are all present with the same hash,
re-embeds changed ones, redoes any paper a crash left half-written, and deletes entries that
vanished from their source file. New chunks are upserted before stale ones are deleted, so an
interrupted run never leaves a paper with no chunks that it had before. One ingest per collection
at a time (a lock file); the BM25 index is marked dirty while Chroma is written and rebuilt after.
Vectors go through the embedding cache, so text embedded once (in any collection) is not again,
and a rewritten chunk whose text is unchanged keeps the vector the store holds.

Sources are keyed by their path below the folder given (see :mod:`rag.index.corpus`); each paper
also records where its file was read. A key held by a *different* file that still exists is never
taken over (the new file gets a longer key, ``b/papers.jsonl``), so ingesting one list never
deletes another list's papers; a key whose file is gone (the folder moved) is. An id found in two
files of one run is kept from the first and reported at the second.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import BadInput, CitelineError, StoreBusy, disk_full, disk_full_error, warn
from rag.index.chunking import chunk_paper, paper_hash
from rag.index.corpus import ParsedSource, Problem, SourceError, SourceFile, expand_paths, parse_source
from rag.index.embedding_cache import CachedEmbedder, EmbeddingCache
from rag.index.embeddings import make_embedder
from rag.index.lexical import collection_lock, lexical_index
from rag.index.store import PaperState, Store, check_data_dir
from rag.records import Chunk, IngestEvents
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


# Called with (event, amount, detail): "start" once when an ingest really begins (ensure_index calls
# nothing when the index exists), "total" once per file with its paper count, "advance" per paper done.


def _noop(event: str, amount: int, detail: str) -> None:
    pass


def _single_collection(settings: Settings) -> None:
    name = settings.collection
    if len(settings.collection_names) != 1 or any(c in name for c in "*?[]"):
        raise BadInput(f"ingest writes one collection at a time, not {name!r}; name one --collection")


class _Writer:
    """Buffers chunks so that embedding runs in batches, and writes each batch as it fills."""

    def __init__(
        self,
        store: Store,
        embedder: CachedEmbedder,
        report: IngestReport,
        renew: Callable[[], None] = lambda: None,
    ) -> None:
        self.store, self.embedder, self.report, self.renew = store, embedder, report, renew
        self.pending: list[Chunk] = []
        self.stale: list[str] = []
        self.stored: set[str] = set()  # queued chunk IDs the store already holds

    def add(self, chunks: Iterable[Chunk], stale: Iterable[str] = (), stored: Iterable[str] = ()) -> None:
        """Queue chunks to write and chunk IDs to delete; write when a batch is full."""
        self.pending.extend(chunks)
        self.stale.extend(stale)
        self.stored.update(stored)
        if len(self.pending) >= EMBED_BATCH:
            self.flush()

    def flush(self) -> None:
        """Embed and upsert what is queued, then delete what is stale (upsert first: no gap)."""
        if self.pending:
            started, cached = time.perf_counter(), self.embedder.hits
            vectors = self._vectors(self.pending)
            self.report.embed_seconds += time.perf_counter() - started
            self.report.vectors_reused += self.embedder.hits - cached
            self.store.upsert(self.pending, vectors)
            self.report.chunks_written += len(self.pending)
            self.pending, self.stored = [], set()
        if self.stale:
            self.store.delete(self.stale)
            self.stale = []
        self.renew()

    def _vectors(self, chunks: list[Chunk]) -> list:
        """The store's vector where a chunk's text is unchanged (a metadata or layout change), else embed."""
        held = self.store.stored_vectors([c.id for c in chunks if c.id in self.stored])
        vectors = [held[c.id][1] if c.id in held and held[c.id][0] == c.text else None for c in chunks]
        todo = [i for i, v in enumerate(vectors) if v is None]
        fresh = self.embedder.embed_documents([chunks[i].text for i in todo]) if todo else []
        for i, vector in zip(todo, fresh, strict=True):
            vectors[i] = vector
        self.report.vectors_reused += len(chunks) - len(todo)
        return vectors


@dataclass
class _IngestLedger:
    """What one ingest run knows: the index's papers, and which keys and IDs this run has taken."""

    states: dict[str, PaperState]
    keys: dict[str, str] = field(default_factory=dict)  # key -> resolved path that holds it this run
    ids: dict[str, str] = field(default_factory=dict)  # paper id -> "source:line" that holds it this run
    legacy_claimed: set[str] = field(default_factory=set)  # file names of pre-key sources migrated

    def __post_init__(self) -> None:
        self.by_source: dict[str, set[str]] = {}
        for paper_id, state in self.states.items():
            self.by_source.setdefault(state.source, set()).add(paper_id)

    def _held_elsewhere(self, key: str, where: str) -> bool:
        """``key`` belongs to another file: one of this run, or one the index names that still exists."""
        if self.keys.get(key, where) != where:
            return True
        held = {self.states[i].source_path for i in self.by_source.get(key, ()) if i in self.states}
        others = held - {None, where}
        return any(os.path.exists(other) and not _same_file(other, where) for other in others)

    def key_for(self, file: SourceFile) -> str | None:
        """The key this file is indexed under: the one it had, else the shortest free path suffix."""
        where = str(file.path.resolve())
        had = {s.source for s in self.states.values() if s.source_path == where}
        candidates = sorted(had) if len(had) == 1 else []
        parts = file.path.absolute().parts[1:]
        depth = file.key.count("/") + 1
        candidates.append(file.key)
        candidates += ["/".join(parts[-n:]) for n in range(depth + 1, len(parts) + 1)]
        for key in candidates:
            if not self._held_elsewhere(key, where):
                self.keys[key] = where
                return key
        return None

    def owned(self, key: str, file: SourceFile) -> set[str]:
        """IDs the index holds from this source, including those an index from before keys gave its name."""
        ids = set(self.by_source.get(key, set()))
        name = file.path.name
        if name != key and name not in self.legacy_claimed:
            legacy = {
                i
                for i in self.by_source.get(name, ())
                if i in self.states and self.states[i].source_path is None
            }
            if legacy:
                self.legacy_claimed.add(name)
                ids |= legacy
        return ids & self.states.keys()


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _sync_file(
    parsed: ParsedSource,
    owned: set[str],
    run: _IngestLedger,
    settings: Settings,
    writer: _Writer,
    progress: IngestEvents,
) -> set[str]:
    """Queue what changed in one file for writing; returns the IDs the file still holds."""
    report = writer.report
    report.problems.extend(parsed.problems)
    report.skipped += sum(1 for p in parsed.problems if p.line is not None and p.skipped)
    progress("total", len(parsed.papers), parsed.name)
    where = str(parsed.path.resolve())
    seen: set[str] = set()
    for paper in parsed.papers:
        progress("advance", 1, "")
        state = run.states.get(paper.id)
        if paper.id in run.ids:
            message = f"id {paper.id!r} is also at {run.ids[paper.id]}, which was kept; skipped"
        elif state and paper.id not in owned:
            message = f"id {paper.id!r} is already indexed from {state.source}; skipped"
        else:
            message = ""
        if message:
            report.problems.append(Problem(paper.source, paper.line, message))
            report.skipped += 1
            continue
        run.ids[paper.id] = f"{paper.source}:{paper.line}"
        seen.add(paper.id)
        digest = paper_hash(paper, settings.chunk_tokens, settings.chunk_overlap)
        if state and state.is_complete(paper.id, digest):
            report.unchanged += 1
            continue
        chunks = chunk_paper(paper, settings.chunk_tokens, settings.chunk_overlap, source_path=where)
        stale = state.chunk_ids - {c.id for c in chunks} if state else ()
        writer.add(chunks, stale, state.chunk_ids if state else ())
        if state:
            report.updated += 1
        else:
            report.added += 1
    return seen


def _ingest_files(
    files: list[SourceFile], run: _IngestLedger, writer: _Writer, settings: Settings, progress: IngestEvents
) -> None:
    """Sync each file with the index: its key, its papers, the ones it no longer holds."""
    report = writer.report
    report.files = len(files)
    for file in files:
        key = run.key_for(file)
        if key is None:
            report.problems.append(Problem(file.key, None, "every key for this file is taken; skipped"))
            continue
        try:
            parsed = parse_source(file.path, key)
        except SourceError as exc:
            report.problems.append(Problem(key, exc.line, exc.message))
            continue
        owned = run.owned(key, file)
        if not parsed.papers:
            if owned:
                # An emptied or wholly unreadable list is taken for a damaged one (a download cut
                # short, a bad export), not as "delete every paper": its papers stay.
                kept = f"holds no readable papers; its {len(owned)} indexed papers are kept"
                report.problems.append(Problem(key, None, kept, skipped=False))  # first: always named
                report.problems.extend(parsed.problems)  # then why its lines could not be read
                report.skipped += sum(1 for p in parsed.problems if p.line is not None and p.skipped)
                continue
            if not parsed.problems:
                report.problems.append(Problem(key, None, "holds no papers", skipped=False))
        seen = _sync_file(parsed, owned, run, settings, writer, progress)
        gone = owned - seen
        for paper_id in gone:
            writer.add((), run.states.pop(paper_id).chunk_ids)
        report.removed += len(gone)
        writer.flush()


class _Lease:
    """This process's ingest lease on a server collection (machines share no lock file).

    Taken before the first write, renewed after a batch once a quarter of its time has passed, so
    a crashed ingest frees the collection after :attr:`SECONDS` at most.
    """

    SECONDS = 600.0

    def __init__(self, store: Store) -> None:
        self.store = store
        self.holder = f"{socket.gethostname()} pid {os.getpid()}#{uuid.uuid4().hex[:8]}"
        store.lease.claim(self.holder, self.SECONDS, _gone)
        self.renewed = time.monotonic()

    def renew(self) -> None:
        """Extend the lease when it is due."""
        if time.monotonic() - self.renewed > self.SECONDS / 4:
            self.store.lease.claim(self.holder, self.SECONDS, _gone)
            self.renewed = time.monotonic()


def _gone(holder: str) -> bool:
    """A lease holder on this machine whose process no longer runs (a killed ingest)."""
    host, _, rest = holder.partition(" pid ")
    pid = rest.split("#", 1)[0]
    # The holder is metadata anyone with the collection can write: only a plain pid is looked up,
    # and in /proc, so nothing is ever signalled (not even signal 0 to a process group).
    if host != socket.gethostname() or not (pid.isascii() and pid.isdigit() and 1 < int(pid) <= 4_194_304):
        return False
    return not Path(f"/proc/{pid}").exists()


def ingest(paths: list[Path], settings: Settings, progress: IngestEvents = _noop) -> IngestReport:
    """Bring the collection in line with ``paths``. Raises only if nothing at all could be read."""
    from filelock import Timeout

    started = time.perf_counter()
    _single_collection(settings)
    check_data_dir(settings)
    progress("start", 0, settings.collection)
    report = IngestReport()
    files = expand_paths(paths)
    lock = collection_lock(settings)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise StoreBusy(
            f"another citeline process is writing collection {settings.collection!r} "
            "(an ingest, or a query rebuilding its BM25 index); wait for it to finish"
        ) from None
    try:
        _ingest_locked(files, settings, progress, report)
    except Exception as exc:
        if disk_full(exc, settings.data_dir):
            raise disk_full_error(settings.data_dir, "cannot write the index") from None
        raise
    finally:
        lock.release()
    report.seconds = time.perf_counter() - started
    if report.papers_ingested == 0 and report.removed == 0:
        more = len(report.problems) - 3
        detail = "; ".join(str(p) for p in report.problems[:3]) or "the files hold no papers"
        detail += f"; and {more} more" if more > 0 else ""
        raise BadInput(f"nothing could be ingested: {detail}")
    return report


def _ingest_locked(
    files: list[SourceFile], settings: Settings, progress: IngestEvents, report: IngestReport
) -> None:
    """The ingest proper, under the collection lock: sync Chroma, then the BM25 index."""
    cache = EmbeddingCache(settings.embedding_cache_file)
    try:
        embedder = CachedEmbedder(make_embedder(settings), cache)
        store = Store(settings)
        store.open(embedder.name, create=True)
        lexical = lexical_index(settings)
        lexical_was_current = lexical.is_current(store.count(), store.generation) and lexical.load()
        if lexical.damaged:
            warn(f"the BM25 index of collection {settings.collection!r} was damaged; rebuilding it")
        lexical.mark_dirty()
        lease = _Lease(store) if settings.chroma_url else None
        try:
            writer = _Writer(store, embedder, report, renew=lease.renew if lease else lambda: None)
            _ingest_files(files, _IngestLedger(store.paper_states()), writer, settings, progress)
        finally:
            changed = bool(report.chunks_written or report.removed)
            with contextlib.suppress(CitelineError):  # never hide the error that ended the ingest
                store.lease.finish(lease.holder if lease else None, changed)
        if store.created and not report.papers_ingested:
            store.drop()  # a failed first ingest leaves no empty collection behind
            lexical.clear_dirty()
        elif lexical_was_current and not changed:
            lexical.clear_dirty()  # nothing was written: the saved BM25 index still matches
        else:
            lexical.rebuild(store)
    finally:
        cache.close()


def ensure_index(settings: Settings, progress: IngestEvents = _noop) -> IngestReport | None:
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
        for file in expand_paths(paths)
        for p in parse_source(file.path, file.key).papers
    }
