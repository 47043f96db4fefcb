"""A LangChain retriever over a citeline index, so any LangChain app can search it.

``CitelineRetriever()`` is a ``langchain_core`` ``BaseRetriever``: ``invoke(query)`` returns one
``Document`` per relevant paper (citeline's hybrid search and per-paper relevance decision), its
abstract as the content and its provenance (id, label, source, line, venue, year, url, scores)
as metadata, so an answer built on it can still cite ``file:line``.

Without ``settings=`` it reads the same settings as the ``citeline`` command (``CITELINE_DATA_DIR``,
``CITELINE_COLLECTION``, ``CITELINE_TOP_K``, the config file), and on first use fills the default
collection with the bundled corpus as the command does, so a notebook and the shell see one index.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from rag.errors import BadInput
from rag.records import Hit
from rag.retrieval import MODES, PaperSearch
from rag.settings import TOP_K_RANGE, Settings, load_settings


def hit_document(hit: Hit) -> Document:
    """A search hit as a LangChain document: the abstract, with the paper's provenance."""
    paper = hit.paper
    metadata: dict[str, Any] = {
        "id": paper.id,
        "label": paper.display,
        "title": paper.title,
        "source": paper.source,
        "line": paper.line,
        "venue": paper.venue,
        "year": paper.year,
        "url": paper.url,
        "score": hit.score,
        "similarity": hit.similarity,
        "collection": hit.collection,
    }
    return Document(page_content=hit.text or paper.abstract, metadata=metadata, id=paper.id)


def _checked_k(k: Any) -> int:
    """``k`` as the CLI's ``-k`` takes it (1-200), or a one-line :class:`CitelineError`."""
    low, high = TOP_K_RANGE
    if isinstance(k, bool) or not isinstance(k, int) or not low <= k <= high:
        raise BadInput(f"k must be an integer between {low} and {high}, got {k!r}")
    return k


class CitelineRetriever(BaseRetriever):
    """Papers from a citeline index, as LangChain ``Document``s (one per relevant paper).

    ``settings`` name the index (data dir, collection(s), store); left out, they are the
    ``citeline`` command's (environment and config file). ``k`` (default: the settings' top_k)
    and ``mode`` are citeline's search options, and ``invoke(query, k=2)`` overrides them for one
    call; ``floor=False`` keeps papers the relevance decision would drop. A ``search`` object (any
    :class:`~rag.retrieval.PaperSearch`) may be passed instead, e.g. one already open.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    settings: Settings | None = None
    k: int | None = Field(default=None, ge=TOP_K_RANGE[0], le=TOP_K_RANGE[1])
    mode: str = "hybrid"
    floor: bool = True
    search: Any = None
    _index: Any = PrivateAttr(default=None)  # rag.index.stamp.FreshIndex of the Retriever
    _opening: Any = PrivateAttr(default_factory=threading.Lock)  # LangChain batches run in threads

    def _searcher(self) -> PaperSearch:
        """The search (opened on first use, the default collection filled as the CLI fills it; and
        reopened after another process changed the index, as :attr:`rag.Library.retriever` is)."""
        if self.search is not None:
            return self.search
        with self._opening:
            if self._index is None:
                from rag.index.ingest import ensure_index
                from rag.index.stamp import FreshIndex
                from rag.retrieval.retriever import Retriever

                settings = self.settings = self.settings or load_settings()
                ensure_index(settings)
                self._index = FreshIndex(settings.data_dir, lambda: Retriever(settings))
        return self._index.get()

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        mode: str | None = None,
        floor: bool | None = None,
    ) -> list[Document]:
        """``invoke(query, k=..., mode=..., floor=...)``: the keywords apply to this call only."""
        mode = mode or self.mode
        if mode not in MODES:
            raise BadInput(f"unknown retrieval mode {mode!r} (use {', '.join(MODES)})")
        k = _checked_k(k) if k is not None else self.k
        hits = self._searcher().search(query, k=k, mode=mode, floor=self.floor if floor is None else floor)
        return [hit_document(hit) for hit in hits]
