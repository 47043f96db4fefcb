"""Deterministic test doubles that plug into the same seams as the real parts.

``ScriptedChatModel`` is a LangChain chat model (the LLM seam: :class:`rag.llm.client.LLMHandle`);
``FakeRetriever`` satisfies :class:`rag.retrieval.PaperSearch` over a handful of papers with a
word-overlap ranking and a bag-of-words embedder, so pipeline and summarizer logic is tested with
no Chroma, no ONNX model and no server. The end-to-end tests use the real parts.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from rag.records import Hit, Paper
from rag.retrieval.relevance import Phrases, TermWeights
from rag.retrieval.topics import TopicSelection, rank_topic
from rag.settings import Settings
from rag.text import STOP_WORDS, checked_query, lexical_sequence, lexical_terms, stem_terms


class ScriptedChatModel(BaseChatModel):
    """Answers with the scripted replies in order and records every prompt it was sent."""

    replies: list[str]
    prompts: list[list[BaseMessage]]  # pass [] in; pydantic copies field defaults anyway
    pieces_sent: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        self.prompts.append(messages)
        if not self.replies:
            raise AssertionError("the chain called the LLM more often than the test scripted")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self.replies.pop(0)))])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        """The scripted reply a few characters at a time, as a server streams tokens; ``pieces_sent``
        counts what the reader took (a reader that stops early leaves the rest unsent)."""
        reply = str(self._generate(messages).generations[0].message.content)
        for start in range(0, len(reply), 4):
            self.pieces_sent += 1
            yield ChatGenerationChunk(message=AIMessageChunk(content=reply[start : start + 4]))


class FakeEmbedder:
    """Hashed bag of stemmed words, L2-normalised: texts sharing words are close, others are not."""

    name = "fake-bow"
    dimension = 256

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        vector = [0.0] * self.dimension
        for term in stem_terms(text, STOP_WORDS, min_length=3):
            vector[int(hashlib.md5(term.encode()).hexdigest(), 16) % self.dimension] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]


def paper(pid: str, abstract: str, title: str = "") -> Paper:
    """A seed-like paper record (source file and line are fake but well-formed)."""
    return Paper(id=pid, abstract=abstract, label=title or pid, source="fake.txt", line=2, title=title)


class FakeRetriever:
    """Ranks papers by cosine of :class:`FakeEmbedder` vectors; the floor keeps similarity ≥ 0.2.
    Term weights and topic selection use ``settings`` (the defaults unless given), as the real one."""

    def __init__(self, papers: list[Paper], settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.papers = {p.id: p for p in papers}
        self.embedder = FakeEmbedder()
        self.queries: list[str] = []

    def search(self, query, k=None, mode="hybrid", floor=True, pool=None, venue=None, year=None):
        query = checked_query(query, "query")  # as the real retriever: an empty or huge query is refused
        self.queries.append(query)
        q = self.embedder.embed_query(query)
        hits = []
        for p in self.papers.values():
            v = self.embedder.embed_query(f"{p.title} {p.abstract}")
            sim = sum(a * b for a, b in zip(q, v, strict=True))
            bm25 = float(
                len(set(re.findall(r"\w+", query.lower())) & set(re.findall(r"\w+", p.abstract.lower())))
            )
            if not floor or sim >= 0.2:
                hits.append(Hit(p, sim, similarity=sim, bm25=bm25 or None, text=p.abstract))
        hits.sort(key=lambda h: (-h.score, h.paper.id))
        return hits[: k or 4]

    def paper(self, paper_id: str) -> Paper | None:
        return self.papers.get(paper_id)

    def term_weights(self, terms: list[str]) -> TermWeights:
        """Document frequencies over the fake papers, as the real index counts them over chunks."""
        docs = [set(lexical_terms(f"{p.title} {p.abstract}")) for p in self.papers.values()]
        df = {t: sum(t in d for d in docs) for t in terms}
        return TermWeights.from_counts(terms, df, len(docs), self.settings.retrieval)

    def phrases(self) -> Phrases:
        """Word and word-pair counts over the fake papers, as the real one counts its paper table."""
        return Phrases.from_papers(self.papers.values())

    def venues(self) -> list[str]:
        return sorted({p.venue for p in self.papers.values() if p.venue})

    def years(self) -> list[int]:
        return sorted({int(p.year) for p in self.papers.values() if p.year})

    def uses_expansions(self) -> bool:
        """As the real one: over a conference-sized list only."""
        return len(self.papers) >= self.settings.topics.small_list

    def catalogue(self, venue=None, year=None, limit=30):
        """The fake papers of that venue and year in list order (source, line), as the real one."""
        kept = [p for p in self.papers.values()
                if (venue is None or (p.venue or "").casefold() == venue.casefold())
                and (year is None or p.year == year)]  # fmt: skip
        kept.sort(key=lambda p: (p.source, p.line))
        return [Hit(p, 0.0, text=p.abstract) for p in kept[:limit]], len(kept)

    def select_topic(self, topic, venue=None, year=None, expansions=()) -> TopicSelection:
        """The real topic selection (:func:`rank_topic`) over the fake papers' vectors and terms."""
        import numpy as np

        papers = list(self.papers.values())
        texts = [f"{p.title} {p.abstract}" for p in papers]
        vectors = np.asarray([self.embedder.embed_query(t) for t in texts], np.float32)
        terms = [lexical_sequence(f"{p.title} {p.label} {p.abstract}") for p in papers]
        tuning = self.settings.topics
        ranking = rank_topic(self.embedder, topic, vectors, terms, expansions=expansions, tuning=tuning)
        hits = [Hit(papers[i], float(ranking.score[i]), similarity=float(ranking.similarity[i]),
                    text=papers[i].abstract) for i in ranking.order]  # fmt: skip
        return TopicSelection(hits, core=ranking.core, candidates=len(papers), likely=ranking.likely)
