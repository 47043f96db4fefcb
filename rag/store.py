"""The Chroma vector store: embedded ``PersistentClient`` by default, ``HttpClient`` for a server.

Vectors are computed by citeline (see :mod:`rag.embeddings`) and passed in, so Chroma never runs
its own embedding function (which would download a model). The embedding model's name is kept
in the collection metadata: mixing vectors of two models in one index would silently return
nonsense, so a mismatch is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from rag.chunking import paper_from_metadata
from rag.errors import CitelineError
from rag.models import Chunk, Paper
from rag.settings import Settings

PAGE = 5000


@dataclass
class PaperState:
    """What the index holds for one paper: enough to tell unchanged, partial and stale apart."""

    source: str
    hashes: set[str] = field(default_factory=set)
    chunk_ids: set[str] = field(default_factory=set)
    n_chunks: int = 0

    def is_complete(self, paper_id: str, digest: str) -> bool:
        """All chunks present and of this content: anything else (a crash mid-write) is redone."""
        expected = {f"{paper_id}#{i}" for i in range(self.n_chunks)}
        return self.hashes == {digest} and self.chunk_ids == expected


def _client(settings: Settings):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_url:
        url = urlparse(
            settings.chroma_url if "://" in settings.chroma_url else f"http://{settings.chroma_url}"
        )
        try:
            client = chromadb.HttpClient(
                host=url.hostname or "127.0.0.1",
                port=url.port or (443 if url.scheme == "https" else 8000),
                ssl=url.scheme == "https",
                settings=chroma_settings,
            )
            client.heartbeat()
        except Exception as exc:  # chromadb raises bare ValueError/ConnectionError variants
            raise CitelineError(f"cannot reach the Chroma server at {settings.chroma_url}: {exc}") from None
        return client
    settings.index_dir.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.index_dir / "chroma"), settings=chroma_settings)


class Store:
    """One Chroma collection of paper chunks."""

    def __init__(self, settings: Settings, client: Any = None) -> None:
        self.settings = settings
        self.name = settings.collection
        self._client = client or _client(settings)
        self._collection = None

    @property
    def location(self) -> str:
        return self.settings.chroma_url or str(self.settings.index_dir / "chroma")

    def exists(self) -> bool:
        return self.name in {getattr(c, "name", c) for c in self._client.list_collections()}

    def collections(self) -> list[str]:
        return sorted(getattr(c, "name", c) for c in self._client.list_collections())

    def open(self, embedding_model: str, create: bool = False):
        """The collection, checked against ``embedding_model``; created if asked and missing."""
        if self._collection is not None:
            return self._collection
        if create:
            collection = self._client.get_or_create_collection(
                self.name,
                embedding_function=None,
                metadata={"embedding_model": embedding_model, "hnsw:space": "cosine"},
            )
        elif self.exists():
            collection = self._client.get_collection(self.name, embedding_function=None)
        else:
            raise CitelineError(
                f"no index named {self.name!r} at {self.location}; run `citeline ingest` first"
            )
        stored = (collection.metadata or {}).get("embedding_model")
        if stored and stored != embedding_model:
            raise CitelineError(
                f"collection {self.name!r} was built with embedding {stored!r}, not {embedding_model!r}; "
                "use another --collection or set the embedding back"
            )
        self._collection = collection
        return collection

    @property
    def collection(self):
        if self._collection is None:
            raise RuntimeError("Store.open() must be called first")
        return self._collection

    def count(self) -> int:
        return self.collection.count()

    def _pages(self, include: list[str], where: dict | None = None) -> Iterator[dict]:
        offset = 0
        while True:
            page = self.collection.get(include=include, where=where, limit=PAGE, offset=offset)
            if not page["ids"]:
                return
            yield page
            offset += len(page["ids"])

    def paper_states(self) -> dict[str, PaperState]:
        states: dict[str, PaperState] = {}
        for page in self._pages(["metadatas"]):
            for chunk_id, meta in zip(page["ids"], page["metadatas"], strict=True):
                state = states.setdefault(str(meta["paper_id"]), PaperState(source=str(meta["source"])))
                state.hashes.add(str(meta.get("paper_hash")))
                state.chunk_ids.add(chunk_id)
                state.n_chunks = int(meta.get("n_chunks", 0))
        return states

    def all_chunks(self) -> Iterator[tuple[str, str]]:
        """(chunk id, text) for every chunk: the input of the lexical index."""
        for page in self._pages(["documents"]):
            yield from zip(page["ids"], page["documents"], strict=True)

    def upsert(self, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        limit = self._client.get_max_batch_size()
        for start in range(0, len(chunks), limit):
            part = chunks[start : start + limit]
            self.collection.upsert(
                ids=[c.id for c in part],
                documents=[c.text for c in part],
                metadatas=[c.metadata for c in part],
                embeddings=[list(v) for v in vectors[start : start + limit]],
            )

    def delete(self, chunk_ids: Sequence[str]) -> None:
        ids = list(chunk_ids)
        limit = self._client.get_max_batch_size()
        for start in range(0, len(ids), limit):
            self.collection.delete(ids=ids[start : start + limit])

    def query(
        self, vector: Sequence[float], n: int, where: dict | None = None
    ) -> list[tuple[str, float, dict]]:
        """(chunk id, cosine similarity, metadata), most similar first."""
        total = self.count()
        if total == 0:
            return []
        result = self.collection.query(
            query_embeddings=[list(vector)],
            n_results=min(n, total),
            where=where,
            include=["metadatas", "distances"],
        )
        return [
            (cid, 1.0 - float(dist), meta)
            for cid, dist, meta in zip(
                result["ids"][0], result["distances"][0], result["metadatas"][0], strict=True
            )
        ]

    def chunks_by_id(self, chunk_ids: Sequence[str]) -> dict[str, dict]:
        if not chunk_ids:
            return {}
        page = self.collection.get(ids=list(chunk_ids), include=["metadatas"])
        return dict(zip(page["ids"], page["metadatas"], strict=True))

    def papers(self, where: dict | None = None) -> list[Paper]:
        """Every paper once (from its first chunk), in source order."""
        found: dict[str, Paper] = {}
        for page in self._pages(["metadatas"], where=where):
            for meta in page["metadatas"]:
                if str(meta["paper_id"]) not in found:
                    found[str(meta["paper_id"])] = paper_from_metadata(meta)
        return sorted(found.values(), key=lambda p: (p.source, p.line))

    def paper(self, paper_id: str) -> Paper | None:
        page = self.collection.get(where={"paper_id": paper_id}, include=["metadatas"], limit=1)
        return paper_from_metadata(page["metadatas"][0]) if page["ids"] else None
