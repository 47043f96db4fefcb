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
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import Field

from rag.api import Library
from rag.errors import CitelineError
from rag.records import Answer, Citation, Hit, Paper
from rag.settings import MAX_PAPERS_RANGE, TOP_K_RANGE, Settings

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

# The tools' arguments, described and bounded in the JSON schema a client reads (module level:
# the SDK resolves the annotations in this module's namespace).
PapersK = Annotated[
    int,
    Field(
        ge=TOP_K_RANGE[0],
        le=TOP_K_RANGE[1],
        description=f"How many papers to retrieve, {TOP_K_RANGE[0]}-{TOP_K_RANGE[1]}; search_papers and ask "
        "have the same default, the configured top_k.",
    ),
]
MaxPapers = Annotated[
    int,
    Field(
        ge=MAX_PAPERS_RANGE[0],
        le=MAX_PAPERS_RANGE[1],
        description=f"Most papers to cover, {MAX_PAPERS_RANGE[0]}-{MAX_PAPERS_RANGE[1]}.",
    ),
]
VenueFilter = Annotated[
    str | None, Field(description='Only papers of this venue, e.g. "ICML" (default: every venue).')
]
YearFilter = Annotated[
    int | None, Field(ge=1, le=9999, description="Only papers of this year, e.g. 2026 (default: every year).")
]
CollectionName = Annotated[
    str | None,
    Field(
        description='The index to read (default: the configured one); several as "a,b", or a glob such '
        'as "icml*". list_collections names them.'
    ),
]


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

    def ask(self, question: str, k: int, venue: str | None, year: int | None, collection: str | None) -> dict:
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


def _bounds(spec: dict[str, Any]) -> tuple[Any, Any]:
    """An argument's (minimum, maximum) from its JSON schema (an optional one's are under anyOf)."""
    for option in [spec, *spec.get("anyOf", [])]:
        if "minimum" in option and "maximum" in option:
            return option["minimum"], option["maximum"]
    return None, None


def invalid_arguments(errors: list[dict[str, Any]], schema: dict[str, Any]) -> str:
    """Pydantic's argument errors as one line in the CLI's words ("k must be between 1 and 200, got 0").

    The SDK's own text is pydantic's multi-line report under "Error executing tool ..."; a model
    reads the one line and can correct its call.
    """
    problems = []
    for error in errors:
        name = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
        value = error.get("input")
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        low, high = _bounds(schema.get("properties", {}).get(name, {}))
        if error.get("type") in ("greater_than_equal", "less_than_equal") and low is not None:
            problems.append(f"{name} must be between {low} and {high}, got {shown}")
        elif error.get("type", "").startswith("int_"):
            problems.append(f"{name} must be an integer, got {shown}")
        elif error.get("type") == "missing":
            problems.append(f"{name} is required")
        else:
            problems.append(f"{name}: {error.get('msg', 'invalid')}, got {shown}")
    return "error: " + " ".join("; ".join(problems).split())


def build_server(settings: Settings):
    """The MCP server with citeline's tools (not yet running).

    Every argument is described and every number bounded in the tools' JSON schemas (the CLI's
    ranges, from :mod:`rag.settings`), so a client sees the limits before it calls; a call
    outside them is a one-line tool error, checked before any work. A tool error reads as the
    CLI's ``error: ...`` line, once, without the SDK's "Error executing tool" in front.
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    class Server(MCPServer):
        async def call_tool(self, name, arguments, context=None):  # the SDK's signature
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError):
                    raise
                if isinstance(cause, ValidationError):
                    tool = self._tool_manager.get_tool(name)
                    schema = tool.parameters if tool is not None else {}
                    raise ToolError(invalid_arguments(cause.errors(), schema)) from cause
                if isinstance(cause, ToolError):  # ours: the CLI's "error: ..." line, not under the
                    raise ToolError(str(cause)) from None  # SDK's "Error executing tool X: " as well
                raise

    top_k = settings.top_k

    tools = Tools(settings)
    server = Server("citeline", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def search_papers(
        query: Annotated[str, Field(description="What to look for: words, a method name or a question.")],
        k: PapersK = top_k,
        venue: VenueFilter = None,
        year: YearFilter = None,
        collection: CollectionName = None,
    ) -> dict:
        """Find indexed ML papers relevant to a query (hybrid dense + keyword search; papers judged
        not relevant are left out, so an empty list means nothing matches). Returns each paper's id,
        label (title or method name), source file and line, venue, year, url when known, score and
        abstract. Filter with venue (e.g. "ICML") and year; collection names an index (default: the
        configured one; several as "a,b" or a glob "icml*")."""
        return _guarded(lambda: tools.search_papers(query, k, venue, year, collection))

    @server.tool()
    def ask(
        question: Annotated[str, Field(description="The question, in plain language.")],
        k: PapersK = top_k,
        venue: VenueFilter = None,
        year: YearFilter = None,
        collection: CollectionName = None,
    ) -> dict:
        """Answer a question about the indexed papers with citations. Every claim in "answer" carries
        a [key]; "citations" maps each key to the paper's id, label, source file and line, venue,
        year and url. abstained=true means the papers do not answer it (say so, do not guess). mode
        tells how the answer was made: generated, quoted (the papers' own sentences), listing (every
        paper on a topic, for "which papers study X?"), extractive or abstained."""
        return _guarded(lambda: tools.ask(question, k, venue, year, collection))

    @server.tool()
    def get_paper(
        id: Annotated[
            str, Field(description='The paper\'s id, as search_papers or ask gave it (e.g. "000-02").')
        ],
        collection: CollectionName = None,
    ) -> dict:
        """One paper by its id (as returned by search_papers or ask): title, authors, full abstract,
        source file and line, venue, year, url."""
        return _guarded(lambda: tools.get_paper(id, collection))

    @server.tool()
    def summarize_topic(
        topic: Annotated[str, Field(description='The topic, in a few words (e.g. "watermarking").')],
        max_papers: MaxPapers = 30,
        venue: VenueFilter = None,
        year: YearFilter = None,
        collection: CollectionName = None,
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
