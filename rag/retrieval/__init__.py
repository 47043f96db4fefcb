"""Retrieval: find the papers relevant to a question (dense + BM25, fused), one hit per paper.

The answer stage depends on the :class:`PaperSearch` protocol, not on the Chroma-backed
:class:`Retriever`, so its logic can be tested with a fake that needs no index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag.index.embeddings import Embedder
    from rag.records import Hit, Paper
    from rag.retrieval.relevance import Phrases, TermWeights
    from rag.retrieval.topics import TopicSelection

MODES = ("hybrid", "dense", "bm25")


class PaperSearch(Protocol):
    """What the answer stage needs from retrieval: ranked papers, a look-up, and the embedder."""

    embedder: Embedder

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        floor: bool = True,
        pool: int | None = None,
        venue: str | None = None,
        year: int | None = None,
    ) -> list[Hit]: ...

    def paper(self, paper_id: str) -> Paper | None: ...

    def term_weights(self, terms: list[str]) -> TermWeights: ...

    def phrases(self) -> Phrases:
        """Word and word-pair counts over the papers: which two words are a term of the field."""
        ...

    def select_topic(
        self, topic: str, venue: str | None = None, year: int | None = None, expansions: Sequence[str] = ()
    ) -> TopicSelection:
        """Every paper on ``topic`` (see :mod:`rag.retrieval.topics`), best first."""
        ...

    def catalogue(
        self, venue: str | None = None, year: int | None = None, limit: int = 30
    ) -> tuple[list[Hit], int]:
        """The first ``limit`` papers in list order (venue/year filters apply), and how many there are."""
        ...

    def uses_expansions(self) -> bool:
        """Whether topic selection reads a model's subfield terms here (a conference-sized list)."""
        ...

    def venues(self) -> list[str]:
        """The venues the papers record."""
        ...

    def years(self) -> list[int]:
        """The years the papers record."""
        ...
