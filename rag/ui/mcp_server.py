"""``citeline mcp``: the library as Model Context Protocol tools, over stdio.

An agent (Claude Desktop, an IDE, any MCP client) starts ``citeline mcp`` and calls the tools
below; each answers from the same :class:`~rag.api.Library` as the CLI, so an answer through MCP
is the CLI's answer. Built on the official ``mcp`` SDK (``MCPServer``). stdout carries protocol
messages only: progress, warnings and the embedded model's server log go to stderr or files.
A failure comes back as a tool error with the CLI's one-line text, never a traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from rag.api import Library
from rag.errors import CitelineError
from rag.records import Answer, Citation, Hit, Paper
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.answer.llm import LLMHandle

_T = TypeVar("_T")

INSTRUCTIONS = (
    "citeline answers questions about ML conference papers from an indexed paper list and cites "
    "the exact entries (id, source file and line). Use search_papers to find papers, ask for a "
    "cited answer, get_paper for one paper's full abstract, summarize_topic for a cited overview "
    "of a topic, list_collections to see which indexes exist. Quote citations as given; an answer "
    "with abstained=true means the indexed papers do not answer the question."
)


def paper_record(paper: Paper) -> dict[str, Any]:
    """A paper as the tools return it: identity and provenance, url when known."""
    record: dict[str, Any] = {
        "id": paper.id,
        "label": paper.display,
        "source": paper.source,
        "line": paper.line,
        "venue": paper.venue or None,
        "year": paper.year,
    }
    if paper.url:
        record["url"] = paper.url
    return record


def _citation(citation: Citation) -> dict[str, Any]:
    return {"key": citation.key, **paper_record(citation.paper)}


def _hit(hit: Hit) -> dict[str, Any]:
    return {
        **paper_record(hit.paper),
        "score": round(hit.score, 4),
        "abstract": hit.text or hit.paper.abstract,
    }


def answer_record(answer: Answer) -> dict[str, Any]:
    """The ``ask`` tool's result."""
    return {
        "answer": answer.text,
        "abstained": answer.abstained,
        "mode": answer.mode,
        "citations": [_citation(c) for c in answer.citations],
        "model": answer.model,
    }


class Tools:
    """The tool implementations, one :class:`Library` per scope (collection, venue, year).

    The LLM is built once and shared by every scope, so the embedded model starts at most once.
    Tool calls run in worker threads, several at once: a scope's library (its index, retriever and,
    for answers, the LLM) is built under :attr:`_lock`, so parallel first calls wait for one build
    instead of each opening the store or starting the model.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._libraries: dict[tuple, Library] = {}
        self._answering: dict[tuple, Library] = {}
        self._llm: LLMHandle | None = None
        self._lock = threading.RLock()

    def library(
        self, collection: str | None = None, venue: str | None = None, year: int | None = None
    ) -> Library:
        """The library for one scope (the default collection is filled with the bundled corpus first)."""
        from rag.index.ingest import ensure_index

        scope = (collection, venue, year)
        with self._lock:
            if scope not in self._libraries:
                settings = self.settings.replace(collection=collection, venue=venue, year=year)
                ensure_index(settings)
                library = Library(settings)
                _ = library.retriever  # open the stores now, once, not in each parallel call
                self._libraries[scope] = library
            return self._libraries[scope]

    def answering(self, collection: str | None, venue: str | None, year: int | None) -> Library:
        """The scope's library with the one shared LLM (the first scope that asks builds it)."""
        scope = (collection, venue, year)
        with self._lock:
            if scope not in self._answering:
                base = self.library(collection, venue, year)
                if self._llm is None:
                    self._llm = base.llm
                    self._answering[scope] = base
                else:
                    self._answering[scope] = Library(base.settings, retriever=base.retriever, llm=self._llm)
            return self._answering[scope]

    def search_papers(
        self, query: str, k: int, venue: str | None, year: int | None, collection: str | None
    ) -> dict:
        """Ranked relevant papers for ``query``."""
        hits = self.library(collection, venue, year).search(query, k=k)
        return {"papers": [_hit(h) for h in hits]}

    def ask(
        self, question: str, k: int | None, venue: str | None, year: int | None, collection: str | None
    ) -> dict:
        """A cited answer (logged like a CLI ask, as kind ``mcp``)."""
        library = self.answering(collection, venue, year)
        return answer_record(library.ask(question, k=k, kind="mcp"))

    def get_paper(self, paper_id: str, collection: str | None) -> dict:
        """One paper with its full abstract and authors."""
        paper = self.library(collection).paper(paper_id)
        return {**paper_record(paper), "title": paper.title, "authors": list(paper.authors),
                "abstract": paper.abstract}  # fmt: skip

    def summarize_topic(
        self, topic: str, max_papers: int, venue: str | None, year: int | None, collection: str | None
    ) -> dict:
        """A cited overview: Markdown and the papers it covers."""
        summary = self.answering(collection, venue, year).summarize(topic, max_papers=max_papers)
        return {"markdown": summary.to_markdown(), "citations": [_citation(Citation(n.key, n.paper))
                                                                for n in summary.papers]}  # fmt: skip

    def list_collections(self) -> dict:
        """Every collection on the configured store, with its chunk count."""
        from rag.index.embeddings import make_embedder
        from rag.index.store import Store

        with self._lock:
            store = Store(self.settings)
        names = store.collections()
        model = make_embedder(self.settings).name
        found = []
        for name in names:
            scoped = Store(self.settings.replace(collection=name), client=store.client)
            try:
                count = scoped.open(model).count()
            except CitelineError:  # built with another embedding model: listed, not usable
                count = None
            found.append({"name": name, "chunks": count})
        return {"store": store.location, "collections": found}


def _guarded(work: Callable[[], _T]) -> _T:
    """Run a tool; a citeline failure becomes a tool error carrying the CLI's one-line text."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return work()
    except CitelineError as exc:
        raise ToolError(f"error: {exc}") from None


def build_server(settings: Settings):
    """The MCP server with citeline's tools (not yet running)."""
    from mcp.server.mcpserver import MCPServer

    tools = Tools(settings)
    server = MCPServer("citeline", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def search_papers(
        query: str,
        k: int = 10,
        venue: str | None = None,
        year: int | None = None,
        collection: str | None = None,
    ) -> dict:
        """Find indexed ML papers relevant to a query (hybrid dense + keyword search; papers judged
        not relevant are left out, so an empty list means nothing matches). Returns each paper's id,
        label (title or method name), source file and line, venue, year, url when known, score and
        abstract. Filter with venue (e.g. "ICML") and year; collection names an index (default: the
        configured one; several as "a,b" or a glob "icml*")."""
        return _guarded(lambda: tools.search_papers(query, k, venue, year, collection))

    @server.tool()
    def ask(
        question: str,
        k: int | None = None,
        venue: str | None = None,
        year: int | None = None,
        collection: str | None = None,
    ) -> dict:
        """Answer a question about the indexed papers with citations. Every claim in "answer" carries
        a [key]; "citations" maps each key to the paper's id, label, source file and line, venue,
        year and url. abstained=true means the papers do not answer it (say so, do not guess). mode
        tells how the answer was made: generated, quoted (the papers' own sentences), listing (every
        paper on a topic, for "which papers study X?"), extractive or abstained."""
        return _guarded(lambda: tools.ask(question, k, venue, year, collection))

    @server.tool()
    def get_paper(id: str, collection: str | None = None) -> dict:
        """One paper by its id (as returned by search_papers or ask): title, authors, full abstract,
        source file and line, venue, year, url."""
        return _guarded(lambda: tools.get_paper(id, collection))

    @server.tool()
    def summarize_topic(
        topic: str,
        max_papers: int = 30,
        venue: str | None = None,
        year: int | None = None,
        collection: str | None = None,
    ) -> dict:
        """A cited overview of every indexed paper on a topic: a lead paragraph, themes with one cited
        sentence per paper, and the list of papers covered, as Markdown, plus the citations. Slower
        than ask (it reads up to max_papers papers)."""
        return _guarded(lambda: tools.summarize_topic(topic, max_papers, venue, year, collection))

    @server.tool()
    def list_collections() -> dict:
        """The indexes (collections) on the configured store and how many chunks each holds; pass a
        name as collection to the other tools."""
        return _guarded(tools.list_collections)

    return server


def serve(settings: Settings) -> None:
    """Serve the tools over stdio until the client closes the connection."""
    build_server(settings).run()
