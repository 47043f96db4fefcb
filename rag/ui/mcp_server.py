"""``citeline mcp``: the library as Model Context Protocol tools, over stdio.

An agent (Claude Desktop, an IDE, any MCP client) starts ``citeline mcp`` and calls the tools
below; each answers from the same :class:`~rag.api.Library` as the CLI, so an answer through MCP
is the CLI's answer. Built on the official ``mcp`` SDK (``MCPServer``). stdout carries protocol
messages only: progress, warnings and the embedded model's server log go to stderr or files.
A failure comes back as a tool error with the CLI's one-line text, never a traceback.

Every result is structured (``structuredContent``, described by each tool's output schema) and
repeated as JSON text for clients that read only text. Text fields are plain text: LaTeX and
Markdown from the paper lists (``$C^3$``, ``**x**``) are unwrapped as the terminal shows them,
except a summary's ``markdown``, which is Markdown by design.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, Field

from rag.api import Library
from rag.errors import CitelineError
from rag.records import Answer, Citation, Hit, Paper
from rag.settings import MAX_PAPERS_RANGE, TOP_K_RANGE, Settings
from rag.text import plain_text, printable

if TYPE_CHECKING:
    from rag.llm.client import LLMHandle

_T = TypeVar("_T")
MAX_DRAFT_CHARS = 2_000_000  # a 200-page .tex is ~1 MB

INSTRUCTIONS = (
    "citeline answers questions about ML conference papers from an indexed paper list and cites "
    "the exact entries (id, source file and line). Use search_papers to find papers, ask for a "
    "cited answer, get_paper for one paper's full abstract, summarize_topic for a cited overview "
    "of a topic, list_collections to see which indexes exist, check_claims to verify the citations of "
    "a draft against the papers they cite. Quote citations as given; an answer with abstained=true "
    "means the indexed papers do not answer the question."
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
ListedPapers = Annotated[
    int | None,
    Field(
        ge=MAX_PAPERS_RANGE[0],
        le=MAX_PAPERS_RANGE[1],
        description='For a listing answer ("which papers study X?", "list all papers"): most papers '
        "it shows (default: the configured listing_max_papers, 30). Its first line says how many there "
        "are; ask again with a larger max_papers to see more (the line's --all / -n are the CLI's).",
    ),
]
VenueFilter = Annotated[
    str | None,
    Field(description='Only papers of this venue, in any case, e.g. "ICML" (default: every venue).'),
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


def _plain(text: str) -> str:
    """Corpus text as a person reads it: LaTeX/Markdown unwrapped, no control characters."""
    return printable(plain_text(text, symbols=True))


class PaperRef(BaseModel):
    """A paper's identity and provenance, as every tool returns it."""

    id: str = Field(description="The paper's id in its collection; get_paper takes it.")
    label: str = Field(
        description="What to call the paper (plain text): its title, or, in a list without titles such "
        "as the bundled ICML 2026 one, the method name taken from its abstract."
    )
    source: str = Field(description="The paper list file the entry comes from.")
    line: int = Field(description="1-based line of the entry in that file: cite it as source:line.")
    venue: str | None = Field(None, description="The venue the list records, e.g. ICML; null if none.")
    year: int | None = Field(None, description="The year the list records; null if none.")
    url: str | None = Field(None, description="The paper's URL when the list gives one.")


class Ranked(PaperRef):
    """A search result."""

    rank: int = Field(description="1 for the most relevant paper, then 2, 3, ...")
    similarity: float | None = Field(
        None,
        description="Cosine similarity (-1 to 1, higher is closer) between the query and the paper's "
        "best-matching text. The order (rank) also weighs keyword (BM25) matches, so similarity need "
        "not fall down the list; it is comparable across queries, the rank is not.",
    )
    abstract: str = Field(description="The paper's abstract, plain text.")


class SearchResult(BaseModel):
    """search_papers' result."""

    papers: list[Ranked] = Field(
        description="Relevant papers, most relevant first; papers judged not relevant are left out."
    )
    note: str | None = Field(
        None, description="Why the list is empty when a filter explains it (e.g. a venue no paper records)."
    )


class Cited(PaperRef):
    """A paper an answer cites."""

    key: str = Field(description="The key the answer cites it by, as [key].")


class AnswerResult(BaseModel):
    """ask's result."""

    answer: str = Field(description="The answer, plain text; every claim carries a [key] from citations.")
    abstained: bool = Field(
        description="True when the indexed papers do not answer the question: say so, do not guess."
    )
    mode: str = Field(
        description="How the answer was made: generated (by the model), quoted (the papers' own "
        "sentences), listing (every paper on a topic), extractive (no model) or abstained."
    )
    citations: list[Cited] = Field(description="Each [key] of the answer and the paper it stands for.")
    model: str = Field(description="The model that wrote the answer, or none when no model was used.")
    note: str | None = Field(
        None, description="Why nothing was found when a filter explains it (e.g. a venue no paper records)."
    )
    found: int | None = Field(
        None,
        description="A listing: how many papers it found (it shows at most max_papers of them; ask "
        "again with a larger max_papers for the rest). Null for other answers.",
    )
    likely: int | None = Field(
        None,
        description="A listing on a topic: how many of found are likely on it (listed first; the rest "
        "only share some of its vocabulary). Null when all of them are, or for other answers.",
    )


class PaperDetail(PaperRef):
    """get_paper's result."""

    title: str | None = Field(
        description="The title, plain text; null when the list gives none (the bundled ICML 2026 list "
        "gives abstracts only: label is then the method name)."
    )
    authors: list[str] | None = Field(description="The authors; null when the list gives none.")
    abstract: str = Field(description="The full abstract, plain text.")


class SummaryResult(BaseModel):
    """summarize_topic's result."""

    markdown: str = Field(
        description="The overview as Markdown: a lead paragraph, themes with one cited sentence per "
        "paper, and the papers covered with source:line."
    )
    citations: list[Cited] = Field(description="Each [key] of the overview and the paper it stands for.")
    note: str | None = Field(
        None, description="Why it covers no paper when a filter explains it (e.g. a venue no paper records)."
    )


class Evidence(PaperRef):
    """A paper and its sentence closest to a claim."""

    sentence: str = Field(
        description="The paper's sentence closest to the claim (plain text); cite as source:line."
    )


class CheckedClaim(BaseModel):
    """One cited sentence of the draft and the verdict on it."""

    text: str = Field(description="The claim: the sentence without its citations, plain text.")
    start: int = Field(description="0-based offset of the sentence's first character in the draft.")
    end: int = Field(description="0-based offset just past the sentence's last character in the draft.")
    line: int = Field(description="1-based line of the draft where the sentence starts.")
    keys: list[str] = Field(
        description="The citation keys as the draft writes them ([3], \\cite key, Author, Year)."
    )
    papers: list[str] = Field(
        description="Ids of the indexed papers the citations resolve to (get_paper takes them)."
    )
    unresolved: list[str] = Field(description="Keys that name no indexed paper (see candidates).")
    verdict: str = Field(
        description="supported, partly supported (some of it is not in the paper: see reason and missing), "
        "not supported (by the cited paper; see suggestions for one that does), or unresolved."
    )
    reason: str = Field(
        description="What keeps the claim from being supported, in a few words; empty when it is."
    )
    missing: list[str] = Field(description="Numbers and names of the claim the cited paper does not contain.")
    evidence: Evidence | None = Field(
        description="The cited paper's sentence closest to the claim; null if unresolved."
    )
    suggestions: list[Evidence] = Field(
        description="Other indexed papers that do support the claim, best first: the citation to use instead."
    )
    candidates: dict[str, list[PaperRef]] = Field(
        description="For each unresolved key, the indexed papers closest to what it names."
    )
    model: str | None = Field(
        description="The model's yes/no when it was asked about a borderline claim; else null."
    )


class CheckResult(BaseModel):
    """check_claims' result."""

    failed: bool = Field(
        description="True when some claim is not fully supported or cites something unresolved "
        "(citeline check exits 1 then)."
    )
    counts: dict[str, int] = Field(description="Claims per verdict.")
    claims: list[CheckedClaim] = Field(description="Every cited claim of the draft, in draft order.")


class CollectionInfo(BaseModel):
    """One collection on the store."""

    name: str = Field(description="Pass it as collection to the other tools.")
    chunks: int | None = Field(
        description="Indexed chunks (about one per paper); null when it was built with another "
        "embedding model and cannot be searched with this one."
    )


class CollectionsResult(BaseModel):
    """list_collections' result."""

    store: str = Field(description="Where the collections are stored (a directory or a Chroma server URL).")
    collections: list[CollectionInfo] = Field(description="Every collection on the store.")


def paper_record(paper: Paper) -> dict[str, Any]:
    """A paper as the tools return it: identity and provenance (text fields plain)."""
    return {**paper.reference(), "label": _plain(paper.display)}


def _citation(citation: Citation) -> Cited:
    return Cited(key=citation.key, **paper_record(citation.paper))


def _hit(rank: int, hit: Hit) -> Ranked:
    similarity = None if hit.similarity is None else round(hit.similarity, 4)
    return Ranked(
        **paper_record(hit.paper),
        rank=rank,
        similarity=similarity,
        abstract=_plain(hit.text or hit.paper.abstract),
    )


def answer_record(answer: Answer, note: str | None = None) -> AnswerResult:
    """The ``ask`` tool's result (the model named once for every way of answering without one)."""
    from rag.log.store import shown_model

    return AnswerResult(
        answer=_plain(answer.text),
        abstained=answer.abstained,
        mode=str(answer.mode),
        citations=[_citation(c) for c in answer.citations],
        model=shown_model(answer.model),
        note=note,
        found=answer.found,
        likely=answer.likely,
    )


class Tools:
    """The tool implementations, one :class:`Library` per scope (collection, venue, year).

    The LLM is built once and shared by every scope, so the embedded model starts at most once.
    Tool calls run in worker threads, several at once: a scope's library (its index, retriever and,
    for answers, the LLM) is built under :attr:`_lock`, so parallel first calls wait for one build
    instead of each opening the store or starting the model. Only the :data:`SCOPES` most recently
    used scopes stay open: each holds its own retriever (~1 MB on the bundled corpus, more on a
    conference), and a client trying venues and years one by one would otherwise grow the
    server without bound.
    """

    SCOPES = 8

    def __init__(self, settings: Settings) -> None:
        from collections import OrderedDict

        self.settings = settings
        self._libraries: OrderedDict[tuple, Library] = OrderedDict()
        self._llm: LLMHandle | None = None
        self._lock = threading.RLock()

    def library(
        self, collection: str | None = None, venue: str | None = None, year: int | None = None
    ) -> Library:
        """The library for one scope (the default collection is filled with the bundled corpus first)."""
        from rag import ensure_index

        scope = (collection, venue, year)
        with self._lock:
            if scope not in self._libraries:
                settings = self.settings.replace(collection=collection, venue=venue, year=year)
                ensure_index(settings)
                library = Library(settings)
                _ = library.retriever  # open the stores now, once, not in each parallel call
                self._libraries[scope] = library
                while len(self._libraries) > self.SCOPES:
                    self._libraries.popitem(last=False)  # a call still using it keeps its reference
            self._libraries.move_to_end(scope)
            return self._libraries[scope]

    def answering(self, collection: str | None, venue: str | None, year: int | None) -> Library:
        """The scope's library with the one shared LLM (the first scope that asks builds it)."""
        with self._lock:
            library = self.library(collection, venue, year)
            if self._llm is None:
                self._llm = library.llm
            else:
                library.share_llm(self._llm)
            return library

    def search_papers(
        self, query: str, k: int, venue: str | None, year: int | None, collection: str | None
    ) -> SearchResult:
        """Ranked relevant papers for ``query``."""
        library = self.library(collection, venue, year)
        hits = library.search(query, k=k)
        note = None if hits else library.filter_problem()
        return SearchResult(papers=[_hit(n, h) for n, h in enumerate(hits, start=1)], note=note)

    def ask(
        self,
        question: str,
        k: int,
        venue: str | None,
        year: int | None,
        collection: str | None,
        max_papers: int | None = None,
    ) -> AnswerResult:
        """A cited answer (logged like a CLI ask, as kind ``mcp``)."""
        library = self.answering(collection, venue, year)
        answer = library.ask(question, k=k, kind="mcp", max_papers=max_papers)
        return answer_record(answer, None if answer.citations else library.filter_problem())

    def get_paper(self, paper_id: str, collection: str | None) -> PaperDetail:
        """One paper with its full abstract, and its title and authors when the list gives them."""
        paper = self.library(collection).paper(paper_id)
        return PaperDetail(
            **paper_record(paper),
            title=_plain(paper.title) if paper.title else None,
            authors=[_plain(a) for a in paper.authors] or None,
            abstract=_plain(paper.abstract),
        )

    def summarize_topic(
        self, topic: str, max_papers: int, venue: str | None, year: int | None, collection: str | None
    ) -> SummaryResult:
        """A cited overview: Markdown and the papers it covers."""
        library = self.answering(collection, venue, year)
        summary = library.summarize(topic, max_papers=max_papers)
        citations = [_citation(Citation(n.key, n.paper)) for n in summary.papers]
        note = None if summary.papers else library.filter_problem()
        return SummaryResult(markdown=summary.to_markdown(), citations=citations, note=note)

    def check_claims(self, draft: str, kind: str, bib: str | None, collection: str | None) -> CheckResult:
        """Every cited claim of a draft's text judged against the papers it cites."""
        report = self.answering(collection, None, None).check_text(draft, kind, bib, source="draft")
        return CheckResult(failed=report.failed, counts=report.counts(),
                           claims=[_checked(c.to_dict()) for c in report.claims])  # fmt: skip

    def list_collections(self) -> CollectionsResult:
        """Every collection on the configured store, with its chunk count."""
        with self._lock:  # one store client at a time, as :meth:`library` opens them
            contents = Library(self.settings).collections()
        found = [CollectionInfo(name=c.name, chunks=c.chunks) for c in contents.collections]
        return CollectionsResult(store=contents.location, collections=found)


def _reference(ref: dict[str, Any]) -> dict[str, Any]:
    """A ``check --json`` paper reference as the tools return a paper (text fields plain)."""
    return {
        **{k: ref.get(k) for k in ("id", "source", "line", "venue", "year", "url")},
        "label": _plain(ref["label"]),
    }


def _evidence(ref: dict[str, Any]) -> Evidence:
    return Evidence(**_reference(ref), sentence=_plain(ref["sentence"]))


def _checked(record: dict[str, Any]) -> CheckedClaim:
    """One ``check --json`` record as the tool returns it (text fields plain)."""
    candidates = {
        key: [PaperRef(**_reference(c)) for c in found] for key, found in record["candidates"].items()
    }
    return CheckedClaim(
        **{
            k: record[k]
            for k in ("start", "end", "line", "keys", "papers", "unresolved", "verdict", "missing")
        },
        text=_plain(record["text"]),
        reason=_plain(record["reason"]),
        evidence=_evidence(record["evidence"]) if record["evidence"] else None,
        suggestions=[_evidence(s) for s in record["suggestions"]],
        candidates=candidates,
        model=record["model"],
    )


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

    import rag

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
    server = Server("citeline", version=rag.__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    def tool(function: Callable[..., _T]) -> Callable[..., _T]:
        """Register ``function`` as a tool, its docstring as one paragraph (a client shows the
        description as it is: the docstring's indentation and line breaks would show too)."""
        description = " ".join(inspect.cleandoc(function.__doc__ or "").split())
        return server.tool(description=description, structured_output=True)(function)

    @tool
    def search_papers(
        query: Annotated[str, Field(description="What to look for: words, a method name or a question.")],
        k: PapersK = top_k,
        venue: VenueFilter = None,
        year: YearFilter = None,
        collection: CollectionName = None,
    ) -> SearchResult:
        """Find indexed ML papers relevant to a query (hybrid dense + keyword search; papers judged
        not relevant are left out, so an empty list means no indexed paper matches; note says when a
        filter is the reason). Returns each paper's id, label (title or method name), source file
        and line, venue, year, url when known, rank, similarity and abstract, as plain text. Filter
        with venue (e.g. "ICML", any case) and year; collection names an index (default: the
        configured one; several as "a,b" or a glob "icml*")."""
        return _guarded(lambda: tools.search_papers(query, k, venue, year, collection))

    @tool
    def ask(
        question: Annotated[str, Field(description="The question, in plain language.")],
        k: PapersK = top_k,
        venue: VenueFilter = None,
        year: YearFilter = None,
        collection: CollectionName = None,
        max_papers: ListedPapers = None,
    ) -> AnswerResult:
        """Answer a question about the indexed papers with citations. Every claim in "answer" carries
        a [key]; "citations" maps each key to the paper's id, label, source file and line, venue,
        year and url. abstained=true means the papers do not answer it (say so, do not guess). mode
        tells how the answer was made: generated, quoted (the papers' own sentences), listing (every
        paper on a topic, for "which papers study X?", at most max_papers of them), extractive or
        abstained."""
        return _guarded(lambda: tools.ask(question, k, venue, year, collection, max_papers))

    @tool
    def get_paper(
        id: Annotated[
            str, Field(description='The paper\'s id, as search_papers or ask gave it (e.g. "000-02").')
        ],
        collection: CollectionName = None,
    ) -> PaperDetail:
        """One paper by its id (as returned by search_papers or ask): full abstract, source file
        and line, venue, year, url, and its title and authors when the paper list gives them (null
        otherwise: the bundled ICML 2026 list gives abstracts only)."""
        return _guarded(lambda: tools.get_paper(id, collection))

    @tool
    def summarize_topic(
        topic: Annotated[str, Field(description='The topic, in a few words (e.g. "watermarking").')],
        max_papers: MaxPapers = 30,
        venue: VenueFilter = None,
        year: YearFilter = None,
        collection: CollectionName = None,
    ) -> SummaryResult:
        """A cited overview of every indexed paper on a topic: a lead paragraph, themes with one cited
        sentence per paper, and the list of papers covered, as Markdown, plus the citations. Slower
        than ask (it reads up to max_papers papers)."""
        return _guarded(lambda: tools.summarize_topic(topic, max_papers, venue, year, collection))

    @tool
    def check_claims(
        draft: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_DRAFT_CHARS,
                description="The draft's text: Markdown, LaTeX or plain text with citations as [paper-id], "
                "[3] with a reference list, (Author, 2024) or \\cite{key} (with bib).",
            ),
        ],
        kind: Annotated[
            str,
            Field(description='How the draft is written: "md", "tex" or "txt" (TeX is recognised in txt).'),
        ] = "txt",
        bib: Annotated[
            str | None,
            Field(max_length=MAX_DRAFT_CHARS, description="The text of a .bib resolving \\cite keys."),
        ] = None,
        collection: CollectionName = None,
    ) -> CheckResult:
        """Check that each cited sentence of a draft (a related-work paragraph, a survey section, a
        reviewer's claim) says what the indexed paper it cites says. Returns, per claim, the verdict
        (supported, partly supported, not supported, unresolved), the reason, the cited paper's
        closest sentence with source file and line, and papers to cite instead; failed=true when any
        claim is not fully supported. Numbers and method names must match the paper exactly."""
        return _guarded(lambda: tools.check_claims(draft, kind, bib, collection))

    @tool
    def list_collections() -> CollectionsResult:
        """The indexes (collections) on the configured store and how many chunks each holds; pass a
        name as collection to the other tools."""
        return _guarded(tools.list_collections)

    return server


def server_command() -> list[str]:
    """The absolute command that starts ``citeline mcp`` with this very installation.

    A client (Claude Desktop, an IDE, the MCP Inspector) does not inherit a shell's PATH, so the
    bare name ``citeline`` is not found unless the virtualenv is on the system PATH. The script
    next to this Python (the virtualenv's ``bin``) is preferred, then the one on PATH; failing
    both, this Python runs the CLI module.
    """
    import shutil
    import sys
    from pathlib import Path

    beside = Path(sys.executable).parent / ("citeline.exe" if sys.platform == "win32" else "citeline")
    if beside.is_file():
        return [str(beside.absolute()), "mcp"]
    found = shutil.which("citeline")
    if found:
        return [str(Path(found).absolute()), "mcp"]
    return [str(Path(sys.executable).absolute()), "-m", "cli", "mcp"]


def client_config(settings: Settings, config_file: str | None = None) -> dict[str, Any]:
    """The ``mcpServers`` block for a client's configuration, with absolute paths throughout.

    The environment carries what the server cannot guess: the data dir, the collection and the
    model setting (``CITELINE_LLM``: ``none`` answers without a model). Keys are never written:
    an OpenAI key stays in the client's own environment.
    """
    command, *args = server_command()
    env = {"CITELINE_DATA_DIR": str(settings.data_dir.expanduser().absolute()), "CITELINE_LLM": settings.llm}
    if settings.collection != "default":
        env["CITELINE_COLLECTION"] = settings.collection
    if settings.llm_base_url:
        env["CITELINE_LLM_BASE_URL"] = settings.llm_base_url
    if settings.llm_model:
        env["CITELINE_LLM_MODEL"] = settings.llm_model
    if settings.chroma_url:
        env["CITELINE_CHROMA_URL"] = settings.chroma_url
    if not settings.log:
        env["CITELINE_LOG"] = "false"
    if config_file:
        from pathlib import Path

        env["CITELINE_CONFIG"] = str(Path(config_file).expanduser().absolute())
    return {"mcpServers": {"citeline": {"command": command, "args": args, "env": env}}}


CONFIG_HELP = (
    "Paste the block above into claude_desktop_config.json or your client's MCP settings. "
    "CITELINE_LLM chooses the model: none (extractive answers, no model), local (the embedded "
    "model), openai (any OpenAI-compatible server: add CITELINE_LLM_BASE_URL and CITELINE_LLM_MODEL, "
    "and OPENAI_API_KEY for OpenAI itself), auto (openai if configured, else local if installed, "
    "else none)."
)


def serve(settings: Settings) -> None:
    """Serve the tools over stdio until the client closes the connection.

    A client may close stdin right after its last request (a script piping requests in): the
    requests already read are still answered before the server stops (see :class:`_Pending`).
    A client that closes its end early (stdout gone) ends the server quietly: the SDK reports a
    closed pipe as an exception group from its task group, which would print a traceback.
    """
    import anyio

    server = build_server(settings)
    try:
        anyio.run(_run_stdio, server)
    except BaseException as exc:
        if not _closed_pipe(exc):
            raise
        _quiet_stdout()


async def _run_stdio(server) -> None:
    """The SDK's stdio loop, with end of input held back until every request read is answered."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        pending = _Pending()
        await server._lowlevel_server.run(
            _AnsweredBeforeEnd(read_stream, pending),
            _NotingAnswers(write_stream, pending),
            server._lowlevel_server.create_initialization_options(),
        )


class _Pending:
    """Ids of the requests read and not yet answered (a cancelled one needs no answer)."""

    def __init__(self) -> None:
        self.ids: set = set()

    def read(self, item: Any) -> None:
        """Note a message read: a request now awaits its answer; a cancellation drops one."""
        message = getattr(item, "message", None)
        method = getattr(message, "method", None)
        if method is not None and getattr(message, "id", None) is not None:
            self.ids.add(message.id)
        elif method == "notifications/cancelled":
            params = getattr(message, "params", None) or {}
            self.ids.discard(params.get("requestId") if isinstance(params, dict) else None)

    def answered(self, item: Any) -> None:
        """Note a message sent: a response (or error) answers its request."""
        message = getattr(item, "message", None)
        if getattr(message, "method", None) is None:
            self.ids.discard(getattr(message, "id", None))

    async def drained(self) -> None:
        """Wait until every request read has been answered."""
        import anyio

        while self.ids:
            await anyio.sleep(0.05)


class _AnsweredBeforeEnd:
    """stdin's message stream, whose end the server sees only once the requests read are answered
    (the SDK stops serving, and drops the replies in flight, as soon as its input ends)."""

    def __init__(self, inner: Any, pending: _Pending) -> None:
        self._inner, self._pending = inner, pending

    @property
    def last_context(self) -> Any:
        """The sender context of the last message (the SDK reads it, see ``ReadStream``)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message; at end of input, the end only once the pending requests are answered."""
        import anyio

        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            await self._pending.drained()
            raise
        self._pending.read(item)
        return item

    def __aiter__(self) -> _AnsweredBeforeEnd:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Close the wrapped stream."""
        await self._inner.aclose()

    def close(self) -> None:
        """Close the wrapped stream (synchronously)."""
        self._inner.close()

    async def __aenter__(self) -> _AnsweredBeforeEnd:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _NotingAnswers:
    """stdout's message stream, noting each reply sent (see :class:`_Pending`)."""

    def __init__(self, inner: Any, pending: _Pending) -> None:
        self._inner, self._pending = inner, pending

    async def send(self, item: Any) -> None:
        """Write ``item`` and note it as the answer it is."""
        await self._inner.send(item)
        self._pending.answered(item)

    async def aclose(self) -> None:
        """Close the wrapped stream."""
        await self._inner.aclose()

    def close(self) -> None:
        """Close the wrapped stream (synchronously)."""
        self._inner.close()

    async def __aenter__(self) -> _NotingAnswers:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _closed_pipe(exc: BaseException) -> bool:
    """True when ``exc`` (or every exception of a group) is a closed pipe or stream."""
    import anyio

    if isinstance(exc, BaseExceptionGroup):
        return all(_closed_pipe(inner) for inner in exc.exceptions)
    return isinstance(
        exc, BrokenPipeError | ConnectionResetError | anyio.ClosedResourceError | anyio.BrokenResourceError
    )


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so Python's flush at exit does not fail on the closed pipe."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
