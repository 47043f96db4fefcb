"""A LangChain retriever over a citeline index, so any LangChain app can search it.

``CitelineRetriever(settings=...)`` is a ``langchain_core`` ``BaseRetriever``: ``invoke(query)``
returns one ``Document`` per relevant paper (citeline's hybrid search and per-paper relevance
decision), its abstract as the content and its provenance (id, label, source, line, venue, year,
url, scores) as metadata, so an answer built on it can still cite ``file:line``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

from rag.records import Hit
from rag.retrieval import PaperSearch
from rag.settings import Settings


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


class CitelineRetriever(BaseRetriever):
    """Papers from a citeline index, as LangChain ``Document``s (one per relevant paper).

    ``settings`` name the index (data dir, collection(s), store); ``k`` and ``mode`` are citeline's
    search options; ``floor=False`` keeps papers the relevance decision would drop. A ``search``
    object (any :class:`~rag.retrieval.PaperSearch`) may be passed instead, e.g. one already open.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    settings: Settings | None = None
    k: int = 4
    mode: str = "hybrid"
    floor: bool = True
    search: Any = None
    _search: PaperSearch | None = PrivateAttr(default=None)

    def _searcher(self) -> PaperSearch:
        if self._search is None:
            if self.search is not None:
                self._search = self.search
            else:
                from rag.retrieval.retriever import Retriever

                self._search = Retriever(self.settings or Settings())
        return self._search

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        hits = self._searcher().search(query, k=self.k, mode=self.mode, floor=self.floor)
        return [hit_document(hit) for hit in hits]
