"""Library entry points the CLI calls: each builds what it needs from the settings, nothing more."""

from __future__ import annotations

from rag.chain import AnswerChain
from rag.errors import CitelineError
from rag.llm import make_llm
from rag.models import Paper
from rag.retrieval import Retriever
from rag.settings import Settings
from rag.store import Store, open_stores


def _stores(settings: Settings) -> list[Store]:
    from rag.embeddings import make_embedder

    return open_stores(settings, make_embedder(settings).name)


def list_papers(settings: Settings, source: str | None = None) -> list[Paper]:
    where = {"source": source} if source else None
    return [paper for store in _stores(settings) for paper in store.papers(where=where)]


def get_paper(settings: Settings, paper_id: str) -> Paper:
    for store in _stores(settings):
        if (paper := store.paper(paper_id)) is not None:
            return paper
    raise CitelineError(f"no paper with id {paper_id!r} in collection {settings.collection!r}")


def answer_chain(settings: Settings) -> AnswerChain:
    return AnswerChain(settings, Retriever(settings), make_llm(settings))


def summarizer(settings: Settings, progress=None):
    from rag.summarize import Summarizer

    return Summarizer(answer_chain(settings), progress) if progress else Summarizer(answer_chain(settings))
