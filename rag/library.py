"""Library entry points the CLI calls: each builds what it needs from the settings, nothing more."""

from __future__ import annotations

from rag.chain import AnswerChain
from rag.errors import CitelineError
from rag.llm import make_llm
from rag.models import Paper
from rag.retrieval import Retriever
from rag.settings import Settings
from rag.store import Store


def _store(settings: Settings) -> Store:
    from rag.embeddings import make_embedder

    store = Store(settings)
    store.open(make_embedder(settings).name)
    return store


def list_papers(settings: Settings, source: str | None = None) -> list[Paper]:
    return _store(settings).papers(where={"source": source} if source else None)


def get_paper(settings: Settings, paper_id: str) -> Paper:
    paper = _store(settings).paper(paper_id)
    if paper is None:
        raise CitelineError(f"no paper with id {paper_id!r} in collection {settings.collection!r}")
    return paper


def answer_chain(settings: Settings) -> AnswerChain:
    return AnswerChain(settings, Retriever(settings), make_llm(settings))


def summarizer(settings: Settings, progress=None):
    from rag.summarize import Summarizer

    return Summarizer(answer_chain(settings), progress) if progress else Summarizer(answer_chain(settings))
