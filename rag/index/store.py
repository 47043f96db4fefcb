"""The Chroma vector store: embedded ``PersistentClient`` by default, ``HttpClient`` for a server.

Vectors are computed by citeline (see :mod:`rag.index.embeddings`) and passed in, so Chroma never runs
its own embedding function (which would download a model). The embedding model's name is kept
in the collection metadata: mixing vectors of two models in one index would silently return
nonsense, so a mismatch is refused.
"""

from __future__ import annotations

import fnmatch
import functools
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from rag.errors import (
    BackendUnavailable,
    BadInput,
    CitelineError,
    NotFound,
    disk_full,
    disk_full_error,
)
from rag.index.lease import IngestLease, generation
from rag.index.metadata import first_chunk_id, paper_from_metadata
from rag.records import Chunk, Paper
from rag.settings import Settings

PAGE = 5000
# chromadb registers a client's shared System in its cache before starting it, so a second thread
# creating a client for the same path meanwhile finds it unstarted ("Could not connect to tenant
# default_tenant"). Clients are therefore created one at a time (the MCP server opens them from
# parallel tool calls).
_CLIENT_CREATION = threading.Lock()
# One HTTP client per Chroma server and timeout, for the life of the process. chromadb gives every
# ``HttpClient`` a System of its own, kept in a class-level registry until ``close()``, with its
# own connection pool: a client per Store left two open sockets and a System behind for every
# query (a warm process or MCP server on a Chroma server grew by ~2 file descriptors a query).
_HTTP_CLIENTS: dict[tuple[str, float], Any] = {}


@dataclass
class PaperState:
    """What the index holds for one paper: enough to tell unchanged, partial and stale apart."""

    source: str
    hashes: set[str] = field(default_factory=set)
    chunk_ids: set[str] = field(default_factory=set)
    n_chunks: int = 0
    # Where the source file was when the paper was written (None in indexes from before keys).
    source_path: str | None = None

    def is_complete(self, paper_id: str, digest: str) -> bool:
        """All chunks present and of this content: anything else (a crash mid-write) is redone."""
        expected = {f"{paper_id}#{i}" for i in range(self.n_chunks)}
        return self.hashes == {digest} and self.chunk_ids == expected


def _server_url(settings: Settings) -> str:
    url = settings.chroma_url or ""
    return (url if "://" in url else f"http://{url}").rstrip("/")


def check_data_dir(settings: Settings) -> None:
    """Fail in one line when the data dir cannot be written (every command keeps state there).

    Locks, BM25 indexes, the embedding cache and embedded Chroma's SQLite all write under it; a
    read-only directory would otherwise end in whichever of them tried first, as a traceback.
    """
    import tempfile

    directory = settings.data_dir
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise CitelineError(
            f"cannot write to the data directory {directory} ({exc.strerror or exc}); "
            "make it writable or set CITELINE_DATA_DIR to another directory"
        ) from None


def import_chromadb():
    """``import chromadb``, without the ``overrides`` package's signature check of its classes.

    chromadb marks ~180 methods ``@override``; at import that decorator parses the defining
    class's bytecode and compares each method's signature with its base class's, a check for
    chromadb's own developers that cost ~0.11 s of the ~0.53 s import on every command here
    (one in four of a one-shot search's library time). The mark the ``EnforceOverrides``
    metaclass of chromadb relies on (``__override__``) is still set, so chromadb's classes are
    built as before. Only done when chromadb is not loaded yet and ``overrides`` has the two
    names chromadb imports; otherwise chromadb is imported as it is. The two names stay replaced
    for the life of the process (chromadb imports some modules later, on first use; no other
    installed package uses ``overrides``)."""
    import sys

    if "chromadb" not in sys.modules:
        try:
            import overrides
        except ImportError:
            overrides = None
        if overrides is not None and all(hasattr(overrides, name) for name in ("override", "overrides")):
            overrides.override = overrides.overrides = _marked_override
    import chromadb

    return chromadb


def _marked_override(method=None, **_options):
    """``overrides.override`` without its checks: only the ``__override__`` mark."""

    def mark(function):
        function.__override__ = True
        return function

    return mark if method is None else mark(method)


def connect(settings: Settings):
    """A Chroma client: embedded ``PersistentClient``, or ``HttpClient`` for ``chroma_url``.

    chromadb's HTTP client has no timeout of its own (a stalled server hangs it forever, even in
    its constructor), so the server is probed first with ``chroma_timeout`` and the client's
    session is given the same bound; a request that exceeds it becomes a one-line error. The
    HTTP client is made once per server and timeout and shared by every later Store of the
    process (:data:`_HTTP_CLIENTS`).
    """
    chromadb = import_chromadb()
    from chromadb.config import Settings as ChromaSettings

    check_data_dir(settings)
    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if not settings.chroma_url:
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        try:
            with _CLIENT_CREATION:
                return chromadb.PersistentClient(
                    path=str(settings.index_dir / "chroma"), settings=chroma_settings
                )
        except Exception as exc:
            if disk_full(exc, settings.data_dir):  # Chroma's SQLite needs a few KB even to read
                raise disk_full_error(settings.data_dir, "Chroma cannot open the index") from None
            raise
    import httpx

    base = _server_url(settings)
    url = urlparse(base)
    key = (base, settings.chroma_timeout)
    try:
        # Probed on every connect, a reused client too: an unreachable server is one line here.
        httpx.get(f"{base}/api/v2/heartbeat", timeout=settings.chroma_timeout).raise_for_status()
        with _CLIENT_CREATION:
            client = _HTTP_CLIENTS.get(key)
            if client is None:
                client = chromadb.HttpClient(
                    host=url.hostname or "127.0.0.1",
                    port=url.port or (443 if url.scheme == "https" else 8000),
                    ssl=url.scheme == "https",
                    settings=chroma_settings,
                )
                # chromadb builds its httpx session with timeout=None and offers no setting for
                # it (chroma-core/chroma#5805); set the bound on the session it made.
                session = getattr(getattr(client, "_server", None), "_session", None)
                if isinstance(session, httpx.Client):
                    session.timeout = httpx.Timeout(settings.chroma_timeout)
                _HTTP_CLIENTS[key] = client
    except httpx.TimeoutException:
        raise BackendUnavailable(
            f"the Chroma server at {settings.chroma_url} did not answer within {settings.chroma_timeout:g}s "
            "(CITELINE_CHROMA_TIMEOUT)"
        ) from None
    except Exception as exc:  # chromadb raises bare ValueError/ConnectionError variants
        raise BackendUnavailable(f"cannot reach the Chroma server at {settings.chroma_url}: {exc}") from None
    return client


def forget_embedded_clients() -> None:
    """Make the next embedded client read the store afresh (another process changed it).

    chromadb keeps one System per path for the life of the process and its HNSW segments as first
    loaded, so a new client on a collection another process wrote failed ("Error finding id").
    The cached Systems are dropped from its registry, not stopped: a client opened before keeps
    its own reference (a query still running on it finishes); new clients get new Systems.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    with _CLIENT_CREATION:
        registry = SharedSystemClient._identifier_to_system
        for identifier, system in list(registry.items()):
            if system.settings.is_persistent:
                registry.pop(identifier, None)
                SharedSystemClient._identifier_to_refcount.pop(identifier, None)


def _server_errors(method):
    """Turn a Chroma server that stalls or drops mid-request, or a full local disk, into one line."""

    @functools.wraps(method)
    def wrapper(self: Store, *args, **kwargs):
        """Call the method; a stalled or vanished server, or a full disk, becomes one line."""
        import httpx

        try:
            return method(self, *args, **kwargs)
        except CitelineError:
            raise
        except httpx.TimeoutException:
            raise BackendUnavailable(
                f"the Chroma server at {self.location} did not answer within "
                f"{self.settings.chroma_timeout:g}s (CITELINE_CHROMA_TIMEOUT); nothing was lost, run it again"
            ) from None
        except httpx.TransportError as exc:
            raise BackendUnavailable(f"lost the Chroma server at {self.location}: {exc}") from None
        except Exception as exc:
            if not self.settings.chroma_url and disk_full(exc, self.settings.data_dir):
                doing = (
                    f"Chroma cannot {method.__name__.strip('_').replace('_', ' ')} collection {self.name!r}"
                )
                raise disk_full_error(self.settings.data_dir, doing) from None
            raise

    return wrapper


# What an embedded Chroma reader raises when it reads a collection another process is writing
# this moment: its HNSW segment, as loaded, lacks the IDs the metadata already has.
_MID_WRITE = ("Error finding id", "Nothing found on disk", "Error creating hnsw segment reader")


def _while_written(method):
    """Read through another process's ingest (an embedded store): a read that meets a segment in
    mid-write is made again on a fresh client (chromadb reloads the segment), three attempts in
    all, so a query during an ingest answers from what is written, as it promises."""

    @functools.wraps(method)
    def wrapper(self: Store, *args, **kwargs):
        attempt = 0
        while True:
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:
                mid_write = type(exc).__name__ == "InternalError" and any(m in str(exc) for m in _MID_WRITE)
                if self.settings.chroma_url or not mid_write or attempt == 2 or self._model is None:
                    raise
            attempt += 1
            time.sleep(0.2 * attempt)
            with self._reopening:  # parallel calls (MCP) share the store: swap both at once
                forget_embedded_clients()
                client = connect(self.settings)
                collection = client.get_collection(self.name, embedding_function=None)
                self.client, self._collection = client, collection

    return wrapper


def resolve_collections(patterns: Sequence[str], available: Sequence[str], location: str) -> list[str]:
    """Collection names for ``--collection`` parts; a glob part (``icml*``) matches existing ones."""
    names: list[str] = []
    for pattern in patterns:
        if not any(c in pattern for c in "*?["):
            names.append(pattern)
            continue
        matched = fnmatch.filter(sorted(available), pattern)
        if not matched:
            have = ", ".join(sorted(available)) or "none"
            raise NotFound(f"no collection matches {pattern!r} at {location} (collections: {have})")
        names.extend(matched)
    return list(dict.fromkeys(names))


def find_paper(stores: Sequence[Store], paper_id: str) -> Paper | None:
    """The paper with this ID in the first of ``stores`` that holds it."""
    for store in stores:
        if (paper := store.paper(paper_id)) is not None:
            return paper
    return None


def open_stores(settings: Settings, embedding_model: str) -> list[Store]:
    """One opened :class:`Store` per collection that ``settings.collection`` names, on one client."""
    first = Store(settings)
    patterns = settings.collection_names
    names = resolve_collections(patterns, first.collections(), first.location) if patterns else [first.name]
    stores = [Store(settings.replace(collection=name), client=first.client) for name in names]
    for store in stores:
        store.open(embedding_model)
    return stores


class Store:
    """One Chroma collection of paper chunks.

    Its :attr:`lease` runs the cross-machine ingest lease and generation protocol on the
    collection's metadata (:mod:`rag.index.lease`); the store only reads and writes that metadata.
    """

    def __init__(self, settings: Settings, client: Any = None) -> None:
        self.settings = settings
        self.name = settings.collection
        self.client = client or connect(settings)
        self._collection = None
        self._model: str | None = None  # the embedding model it was opened for
        self._reopening = threading.Lock()
        self.created = False
        self.lease = IngestLease(self)

    @property
    def location(self) -> str:
        """Where the collection lives: the server URL or the local path."""
        return self.settings.chroma_url or str(self.settings.index_dir / "chroma")

    @_server_errors
    def exists(self) -> bool:
        """The collection exists on this store."""
        return self.name in self.collections()

    @_server_errors
    def collections(self) -> list[str]:
        """Names of every collection on this store."""
        return sorted(getattr(c, "name", c) for c in self.client.list_collections())

    @_server_errors
    def open(self, embedding_model: str, create: bool = False):
        """The collection, checked against ``embedding_model``; created if asked and missing.

        One request when the collection exists (the usual case); :attr:`created` tells an ingest
        whether this call made it, so that a first ingest that wrote nothing can take it away.
        """
        if self._collection is not None:
            return self._collection
        from chromadb.errors import NotFoundError

        try:
            collection = self.client.get_collection(self.name, embedding_function=None)
        except NotFoundError:
            if not create:
                raise NotFound(
                    f"no collection named {self.name!r} at {self.location}; "
                    f"run `citeline ingest FILES --collection {self.name}` first"
                ) from None
            collection = self.client.get_or_create_collection(
                self.name,
                embedding_function=None,
                metadata={"embedding_model": embedding_model, "hnsw:space": "cosine"},
            )
            self.created = True
        stored = (collection.metadata or {}).get("embedding_model")
        if stored and stored != embedding_model:
            raise BadInput(
                f"collection {self.name!r} was built with embedding {stored!r}, not {embedding_model!r}; "
                "use another --collection or set the embedding back"
            )
        self._collection, self._model = collection, embedding_model
        return collection

    @_server_errors
    def drop(self) -> None:
        """Delete the collection (an ingest that created it and then found nothing to write)."""
        self.client.delete_collection(self.name)
        self._collection = None

    @property
    def generation(self) -> str | None:
        """A token that changes with every ingest that wrote the collection (None before the first).

        Chunk counts alone miss a change that keeps the count (another machine rewrote one paper);
        a client compares this token with the one its BM25 index was built from.
        """
        return generation(self.collection.metadata)

    @_server_errors
    def fresh_metadata(self) -> dict[str, Any]:
        """The collection's metadata as the server holds it now (another machine may have changed it)."""
        latest = self.client.get_collection(self.name, embedding_function=None)
        return dict(latest.metadata or {})

    @_server_errors
    def set_metadata(self, metadata: dict[str, Any]) -> None:
        """Replace the collection's metadata (the lease and generation; the embedding model is kept
        by the caller passing it back)."""
        # modify() replaces the metadata; Chroma refuses hnsw keys after creation (the space stays).
        kept = {k: v for k, v in metadata.items() if not k.startswith("hnsw:") and v is not None}
        self.collection.modify(metadata=kept)
        self._collection = self.client.get_collection(self.name, embedding_function=None)

    @property
    def collection(self):
        """The opened Chroma collection (``open()`` first)."""
        if self._collection is None:
            raise RuntimeError("Store.open() must be called first")
        return self._collection

    @_server_errors
    def count(self) -> int:
        """Chunks in the collection."""
        return self.collection.count()

    @_server_errors
    @_while_written
    def _get(self, **kwargs: Any) -> dict:
        return self.collection.get(**kwargs)

    def _pages(self, include: list[str], where: dict | None = None) -> Iterator[dict]:
        offset = 0
        while True:
            page = self._get(include=include, where=where, limit=PAGE, offset=offset)
            if not page["ids"]:
                return
            yield page
            offset += len(page["ids"])

    def paper_states(self) -> dict[str, PaperState]:
        """What the index holds per paper: the input of an ingest's diff."""
        states: dict[str, PaperState] = {}
        for page in self._pages(["metadatas"]):
            for chunk_id, meta in zip(page["ids"], page["metadatas"], strict=True):
                state = states.setdefault(str(meta["paper_id"]), PaperState(source=str(meta["source"])))
                state.hashes.add(str(meta.get("paper_hash")))
                state.chunk_ids.add(chunk_id)
                state.n_chunks = int(meta.get("n_chunks", 0))
                state.source_path = meta.get("source_path") or state.source_path
        return states

    def all_chunks(self) -> Iterator[tuple[str, str]]:
        """(chunk id, text) for every chunk: the input of the lexical index."""
        for page in self._pages(["documents"]):
            yield from zip(page["ids"], page["documents"], strict=True)

    def all_chunks_with_vectors(self) -> Iterator[tuple[str, str, Sequence[float], dict]]:
        """(chunk id, text, vector, metadata) for every chunk: the input of the lexical index and
        its paper table."""
        for page in self._pages(["documents", "embeddings", "metadatas"]):
            yield from zip(page["ids"], page["documents"], page["embeddings"], page["metadatas"], strict=True)

    @_server_errors
    def upsert(self, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        """Write chunks with their vectors, in batches Chroma accepts."""
        limit = self.client.get_max_batch_size()
        for start in range(0, len(chunks), limit):
            part = chunks[start : start + limit]
            self.collection.upsert(
                ids=[c.id for c in part],
                documents=[c.text for c in part],
                metadatas=[c.metadata for c in part],
                embeddings=[list(v) for v in vectors[start : start + limit]],
            )

    @_server_errors
    def delete(self, chunk_ids: Sequence[str]) -> None:
        """Delete chunks by ID, in batches Chroma accepts."""
        ids = list(chunk_ids)
        limit = self.client.get_max_batch_size()
        for start in range(0, len(ids), limit):
            self.collection.delete(ids=ids[start : start + limit])

    @_server_errors
    @_while_written
    def nearest(self, vector: Sequence[float], n: int, where: dict | None = None) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity), most similar first.

        IDs and distances only: metadata (which carries the abstract) is fetched afterwards for the
        few chunks that survive merging, which matters when many collections are searched. No
        count() first to cap ``n`` either: Chroma 1.x returns what there is.
        """
        result = self.collection.query(
            query_embeddings=[list(vector)], n_results=n, where=where, include=["distances"]
        )
        return [
            (cid, 1.0 - float(dist))
            for cid, dist in zip(result["ids"][0], result["distances"][0], strict=True)
        ]

    def chunks_by_id(self, chunk_ids: Sequence[str]) -> dict[str, dict]:
        """Metadata of the given chunks, each with its paper's abstract (one request).

        The abstract lives in each paper's first chunk, fetched in the same request.
        """
        if not chunk_ids:
            return {}
        firsts = {first_chunk_id(cid.rsplit("#", 1)[0]) for cid in chunk_ids}
        page = self._get(ids=sorted(set(chunk_ids) | firsts), include=["metadatas"])
        got = dict(zip(page["ids"], page["metadatas"], strict=True))
        found = {}
        for cid in chunk_ids:
            if (meta := got.get(cid)) is None:
                continue
            if "abstract" not in meta:
                first = got.get(first_chunk_id(str(meta["paper_id"]))) or {}
                meta = dict(meta, abstract=first.get("abstract", ""))
            found[cid] = meta
        return found

    def stored_vectors(self, chunk_ids: Sequence[str]) -> dict[str, tuple[str, Sequence[float]]]:
        """(document, vector) of the given chunks that exist: a rewrite of unchanged text reuses them."""
        if not chunk_ids:
            return {}
        page = self._get(ids=list(chunk_ids), include=["documents", "embeddings"])
        return {
            cid: (doc, vec)
            for cid, doc, vec in zip(page["ids"], page["documents"], page["embeddings"], strict=True)
        }

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, Sequence[float]]:
        """Stored vectors of the given chunks (one request)."""
        if not chunk_ids:
            return {}
        page = self._get(ids=list(chunk_ids), include=["embeddings"])
        return dict(zip(page["ids"], page["embeddings"], strict=True))

    def papers(self, where: dict | None = None) -> list[Paper]:
        """Every paper once (from its first chunk, which holds the abstract), in source order."""
        first = {"chunk_index": 0}
        found: dict[str, Paper] = {}
        for page in self._pages(["metadatas"], where={"$and": [where, first]} if where else first):
            for meta in page["metadatas"]:
                found.setdefault(str(meta["paper_id"]), paper_from_metadata(meta))
        return sorted(found.values(), key=lambda p: (p.source, p.line))

    def paper(self, paper_id: str) -> Paper | None:
        """One paper by ID, from its first chunk's metadata."""
        page = self._get(ids=[first_chunk_id(paper_id)], include=["metadatas"])
        return paper_from_metadata(page["metadatas"][0]) if page["ids"] else None
