"""The ``citeline`` command line: parses arguments and calls the library, nothing more.

Heavy libraries (chromadb, langchain, onnxruntime, llama.cpp) are imported inside the commands
that need them, so ``citeline --help`` answers at once.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Annotated, Any, NoReturn

try:
    import typer
except KeyboardInterrupt:  # Ctrl-C while the command starts: nothing has begun, stop in one line
    sys.stderr.write("interrupted\n")
    sys.exit(130)

app = typer.Typer(
    help="Ask questions about ML conference papers and get answers that cite the exact entries.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    """``--version``: the package version, then exit (nothing heavy is imported)."""
    if value:
        from rag import __version__

        sys.stdout.write(f"citeline {__version__}\n")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Ask questions about ML conference papers and get answers that cite the exact entries."""


papers_app = typer.Typer(
    help="List and inspect the indexed papers.", no_args_is_help=True, epilog="Example: citeline papers list"
)
app.add_typer(papers_app, name="papers")

Collection = Annotated[
    list[str] | None,  # "-c a -c b" reads both, as "-c a,b" does
    typer.Option(
        "--collection",
        "-c",
        help="Collection name; to read, several (-c a -c b, or a,b) or a glob ('icml*') work too.",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
# The top of `listing_max_papers`' range (rag/settings.py, not imported here: --help stays light);
# `ask --all` asks for it. A test checks that the two agree.
MOST_PAPERS = 100_000
TopK = Annotated[
    int | None,
    typer.Option("-k", min=1, max=200, help="Papers to retrieve, 1-200. Default: CITELINE_TOP_K, else 4."),
]
# rag.retrieval.MODES, not imported here (--help stays light); a test checks that the two agree.
RETRIEVAL_MODES = ("hybrid", "dense", "bm25")


def _retrieval_mode(value: str) -> str:
    """``--mode``, in any case; an unknown one is a usage error before any work (exit 2)."""
    if value.strip().lower() not in RETRIEVAL_MODES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(RETRIEVAL_MODES)}")
    return value.strip().lower()


# rag.settings.LLM_CHOICES, not imported here (--help stays light); a test checks that the two agree.
LLM_KINDS = ("auto", "local", "openai", "none")


def _llm_kind(value: str | None) -> str | None:
    """``--llm``, in any case; an unknown one is a usage error before any work (exit 2), as
    ``--mode`` is."""
    value = value.strip().lower() if value else value  # read in any case, as venues are
    if value is not None and value not in LLM_KINDS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(LLM_KINDS)}")
    return value


Mode = Annotated[
    str, typer.Option("--mode", help="Retrieval mode: hybrid, dense or bm25.", callback=_retrieval_mode)
]
LLM = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="auto, local (the embedded model), openai (any OpenAI-compatible server) or none (no model: "
        "extractive answers). Default: CITELINE_LLM, else auto.",
        callback=_llm_kind,
    ),
]
Venue = Annotated[str | None, typer.Option("--venue", help="Only papers of this venue (e.g. ICML).")]
Year = Annotated[int | None, typer.Option("--year", help="Only papers of this year.")]
Config = Annotated[Path | None, typer.Option("--config", help="TOML config file.", envvar="CITELINE_CONFIG")]
NoLog = Annotated[bool, typer.Option("--no-log", help="Do not record this in the answer log.")]
ConversationId = Annotated[
    str | None,
    typer.Option("--cid", help="Continue this logged conversation (its id is in `citeline log`)."),
]
Cite = Annotated[str | None, typer.Option("--cite", help="Also print the cited papers as: bibtex.")]


def _cite_format(cite: str | None) -> str | None:
    """``--cite``, in any case (as ``--llm NONE`` is read)."""
    cite = cite.lower() if cite is not None else None
    if cite not in (None, "bibtex"):
        raise typer.BadParameter("the one citation format is bibtex", param_hint="--cite")
    return cite


def _settings(config: Path | None = None, **overrides):
    from rag import load_settings

    if isinstance(overrides.get("collection"), list):  # -c given more than once: all of them
        overrides["collection"] = ",".join(overrides["collection"])
    return load_settings(config_file=config).replace(**overrides)


_CLI = Path(__file__).resolve()  # this file: a warm process runs it, and serves only its own code


class _Run:
    """What ``main`` needs to know about the command it ran."""

    interrupted = False  # Ctrl-C was pressed (a library may have turned it into another error)
    read_only = False  # the command only read the index: it may end without Python's slow teardown
    settings = None  # the settings a query command ran with here: a warm process starts for them


def _library(settings, read_only: bool = True):
    """The library over an index that exists: the default collection is filled on first use.

    ``read_only``: the command writes nothing to the index itself (a query), so once it is done the
    process may leave at once (see ``_leave``) unless this call had to index the bundled corpus.
    """
    from rag import Library, ensure_index
    from rag.ui import render

    with render.ingest_progress() as update:
        report = ensure_index(settings, update)
    if report:
        render.bundled_corpus_indexed(report)
    _Run.read_only = read_only and not report
    _Run.settings = settings
    return Library(settings)


@app.command(epilog="Example: citeline ingest ../shared/corpora/icml2024.jsonl.gz -c icml2024")
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="Paper lists (.txt, .jsonl, .json, .csv, optionally .gz) or folders.")
    ],
    collection: Collection = None,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """Index paper lists; re-running adds only what changed."""
    from rag import ingest as run_ingest
    from rag.ui import render

    settings = _settings(config, collection=collection)
    try:
        with render.ingest_progress() as update:
            report = run_ingest(paths, settings, update)
    except KeyboardInterrupt:
        render.ingest_interrupted()
        raise typer.Exit(130) from None
    if json_out:
        render.print_json(report.to_dict())
    else:
        render.ingest_report(report)


@papers_app.command("list", epilog="Example: citeline papers list --source 000_888317b1d60d9493.txt")
def papers_list(
    source: Annotated[str | None, typer.Option(help="Only papers from this source file.")] = None,
    collection: Collection = None,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """List the indexed papers with their IDs and provenance."""
    from rag.ui import render

    papers = _library(_settings(config, collection=collection)).papers(source)
    if json_out:
        render.print_json([p.to_dict() for p in papers])
    else:
        render.papers_table(papers)


class _IdsCommand(typer.core.TyperCommand):
    """A command whose arguments are paper ids, which OpenReview may start with "-" (-qh0M9XWxnv,
    -mWcQVLPSPy): click would read one as a cluster of short options (-m -W -c ...). When an id
    of one dash and more than one letter is given, the options (with their values) go first and
    every id follows "--", in the order given; "-c NAME" and the long options parse as before, a
    mistyped long option ("--jsn") is still an error, and "-cNAME" is read as an id."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        before, after = (
            (args[: args.index("--")], args[args.index("--") + 1 :]) if "--" in args else (args, [])
        )
        if not any(a.startswith("-") and not a.startswith("--") and len(a) > 2 for a in before):
            return super().parse_args(ctx, args)
        valued = {name for p in self.params if not getattr(p, "is_flag", True) for name in p.opts}
        options, ids, rest = [], [], iter(before)
        for arg in rest:
            if arg in valued:
                options += [arg, next(rest, "")]
            elif arg.startswith("--"):
                options.append(arg)
            else:
                ids.append(arg)
        return super().parse_args(ctx, [*options, "--", *ids, *after])


@papers_app.command(
    "show", cls=_IdsCommand, epilog="Example: citeline papers show 000-02 003-01 --bibtex > refs.bib"
)
def papers_show(
    paper_ids: Annotated[
        list[str], typer.Argument(metavar="PAPER_ID", help="IDs as `papers list` and answers show them.")
    ],
    bibtex: Annotated[bool, typer.Option("--bibtex", help="Print BibTeX entries instead.")] = False,
    collection: Collection = None,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """Show papers: full abstract, authors, source file and line (or their BibTeX entries).

    An unknown id prints its error and nothing else. --json: an object for one paper, else a list."""
    from rag.ui import render

    if bibtex and json_out:
        raise typer.BadParameter("use one of --bibtex and --json", param_hint="--bibtex")
    papers = _library(_settings(config, collection=collection)).papers_by_id(paper_ids)
    if bibtex:
        render.bibtex(papers)
    elif json_out:
        render.print_json(papers[0].to_dict() if len(papers) == 1 else [p.to_dict() for p in papers])
    else:
        render.paper_details(papers)


@app.command(epilog='Example: citeline search "activation scaling for OOD detection" -k 5 --venue icml')
def search(
    query: str,
    k: TopK = None,
    mode: Mode = "hybrid",
    no_floor: Annotated[
        bool, typer.Option("--no-floor", help="Keep papers below the relevance floor.")
    ] = False,
    venue: Venue = None,
    year: Year = None,
    collection: Collection = None,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """Rank papers for a query (hybrid dense + BM25 by default)."""
    from rag.ui import render

    library = _library(_settings(config, collection=collection, venue=venue, year=year))
    hits = library.search(query, k=k, mode=mode, floor=not no_floor)
    if json_out:
        render.print_json([h.to_dict() for h in hits])
    else:
        render.hits_table(hits, mode, None if hits else library.filter_problem())


@app.command(
    epilog='Examples: citeline ask "By how much does AdaSCALE beat OptFS?" --llm none; then a follow-up: '
    'citeline ask -C "and on which benchmark?"; a listing: '
    'citeline ask "Which papers study watermarking?" --all'
)
def ask(
    question: str,
    k: TopK = None,
    mode: Mode = "hybrid",
    llm: LLM = None,
    venue: Venue = None,
    year: Year = None,
    collection: Collection = None,
    follow_up: Annotated[
        bool, typer.Option("--continue", "-C", help="A follow-up to the last logged conversation.")
    ] = False,
    cid: ConversationId = None,
    cite: Cite = None,
    listed: Annotated[
        int | None,
        typer.Option(
            "--max-listed",
            "-n",
            min=1,
            max=MOST_PAPERS,
            help="A listing question: list at most N papers (CITELINE_LISTING_MAX_PAPERS, 30).",
        ),
    ] = None,
    list_all: Annotated[
        bool, typer.Option("--all", help="A listing question: list every paper on the topic.")
    ] = False,
    no_log: NoLog = False,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """Answer a question with citations to the papers it rests on."""
    from rag.ui import render

    cite = _cite_format(cite)
    if list_all and listed:
        _bad_usage("--all lists every paper and -n N at most N: give one of them", "ask")
    overrides = dict(
        collection=collection,
        llm=llm,
        venue=venue,
        year=year,
        log=False if no_log else None,
        listing_max_papers=MOST_PAPERS if list_all else listed,
    )
    library = _library(_settings(config, **overrides))
    if cid:
        conversation, history = library.conversation(cid)
    else:
        conversation, history = library.last_conversation() if follow_up else (None, [])
        if follow_up and not history:
            render.warn("no logged conversation to continue: the question is asked on its own")
    streaming = not json_out and sys.stdout.isatty()
    on_token = render.stream_token if streaming else None
    answer = library.ask(question, history, k=k, mode=mode, on_token=on_token, conversation=conversation)
    problem = None if answer.citations else library.filter_problem()
    if problem:
        render.warn(problem)
    if json_out:
        render.print_json(render.with_bibtex(answer.to_dict(), answer.citations, cite))
    else:
        render.answer_footer(answer, streamed=streaming)
        if cite:
            render.bibtex([], after=True, citations=answer.citations)


@app.command(epilog='Example: citeline summarize "watermarking" --max-papers 10 > watermarking.md')
def summarize(
    topic: str,
    max_papers: Annotated[
        int, typer.Option("--max-papers", min=1, max=MOST_PAPERS, help="Most papers to cover.")
    ] = 30,
    fmt: Annotated[str, typer.Option("--format", help="md or json.")] = "md",
    out: Annotated[Path | None, typer.Option("--out", help="Write the summary to this file.")] = None,
    llm: LLM = None,
    venue: Venue = None,
    year: Year = None,
    collection: Collection = None,
    cite: Cite = None,
    no_log: NoLog = False,
    config: Config = None,
) -> None:
    """A cited overview of every indexed paper on a topic, grouped into themes."""
    from rag.ui import render

    if fmt not in ("md", "json"):
        raise typer.BadParameter("use md or json", param_hint="--format")
    cite = _cite_format(cite)
    if out is not None:
        render.check_writable(out)
    overrides = dict(collection=collection, llm=llm, venue=venue, year=year, log=False if no_log else None)
    library = _library(_settings(config, **overrides))
    with render.summary_progress() as progress:
        summary = library.summarize(topic, max_papers=max_papers, progress=progress)
    problem = None if summary.papers else library.filter_problem()
    if problem:
        render.warn(problem)
    render.summary(summary, fmt, out, cite)


log_app = typer.Typer(
    help="The answer log: recent answers, search, one entry in full.",
    epilog='Examples: citeline log -q "adascale optfs"; citeline log --kind chat -n 5; citeline log show 12',
)
LOG_KINDS = ("ask", "chat", "mcp", "summarize")
app.add_typer(log_app, name="log")


@log_app.callback(invoke_without_command=True)
def log_list(
    ctx: typer.Context,
    query: Annotated[
        str | None, typer.Option("-q", "--query", help="Only entries matching these words.")
    ] = None,
    count: Annotated[int, typer.Option("-n", min=1, max=10000, help="How many entries.")] = 20,
    kind: Annotated[
        str | None, typer.Option("--kind", help="Only entries of this kind: ask, chat, mcp or summarize.")
    ] = None,
    in_collection: Annotated[
        str | None, typer.Option("--collection", "-c", help="Only entries answered from this collection.")
    ] = None,
    cid: Annotated[str | None, typer.Option("--cid", help="Only the entries of this conversation.")] = None,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """Recent answers, newest first (``-q WORDS`` searches them); ``log show N`` prints one."""
    if ctx.invoked_subcommand is not None:
        return
    from rag import Library
    from rag.ui import render

    if kind not in (None, *LOG_KINDS):
        raise typer.BadParameter(f"use one of {', '.join(LOG_KINDS)}", param_hint="--kind")
    log = Library(_settings(config)).log
    filters = {"kind": kind, "collection": in_collection, "conversation": cid}
    entries = log.search(query, count, **filters) if query else log.recent(count, **filters)
    if json_out:
        render.print_json([e.to_dict() for e in entries])
    else:
        render.log_table(entries)


@log_app.command("show", epilog="Example: citeline log show 12 --json")
def log_show(entry_id: int, json_out: Json = False, config: Config = None) -> None:
    """One logged answer in full, with its sources."""
    from rag import Library, NotFound
    from rag.ui import render

    entry = Library(_settings(config)).log.get(entry_id)
    if entry is None:
        raise NotFound(f"no log entry {entry_id} (`citeline log` lists them)")
    if json_out:
        render.print_json(entry.to_dict())
    else:
        render.log_entry(entry)


EvalSet = Annotated[Path | None, typer.Option("--set", help="Eval JSONL (default: the bundled --split).")]
Split = Annotated[str, typer.Option("--split", help="Bundled eval split: dev (tuned on) or test (frozen).")]


def _retrieval_modes(value: str) -> str:
    """``--mode a,b`` of ``eval``: each checked as :func:`_retrieval_mode` does."""
    return ",".join(_retrieval_mode(mode) for mode in value.split(","))


Modes = Annotated[
    str, typer.Option("--mode", help="Comma-separated retrieval modes.", callback=_retrieval_modes)
]


def _llm_kinds(value: str | None) -> str | None:
    """``--llm a,b`` of ``eval``: each checked as :func:`_llm_kind` does."""
    return ",".join(_llm_kind(kind) or "" for kind in value.split(",")) if value else value


LLMs = Annotated[
    str | None,
    typer.Option("--llm", help="Comma-separated LLM settings, e.g. local,none.", callback=_llm_kinds),
]
Judge = Annotated[str, typer.Option("--judge", help="Support judge: lexical, embedding or llm.")]
OutDir = Annotated[Path, typer.Option("--out", help="Directory for results.json, report.md, chart.png.")]
Limit = Annotated[int | None, typer.Option("--limit", help="Only the first N questions.")]
Compare = Annotated[tuple[Path, Path] | None, typer.Option("--compare", help="Diff two results.json files.")]
Signals = Annotated[
    Path | None,
    typer.Option(
        "--signals", help="Corpora folder (../shared/corpora): TLDR known-item search and keyword lists."
    ),
]
Subfields = Annotated[
    Path | None,
    typer.Option(
        "--subfields", help="Corpora folder (../shared/corpora): list every paper of a subfield (--split)."
    ),
]
Sample = Annotated[
    int, typer.Option("--sample", help="With --signals: TLDR queries to sample (lists: a fifth).")
]


@app.command("eval", epilog="Example: citeline eval --split dev --mode hybrid --llm none --limit 20")
def eval_command(
    eval_set: EvalSet = None,
    split: Split = "dev",
    modes: Modes = "hybrid,dense,bm25",
    llms: LLMs = None,
    judge: Judge = "lexical",
    out: OutDir = Path("eval/results"),
    limit: Limit = None,
    compare: Compare = None,
    signals: Signals = None,
    sample: Sample = 200,
    subfields: Subfields = None,
    collection: Collection = None,
    config: Config = None,
) -> None:
    """Measure retrieval, answers and citation grounding on an eval set (or external signals)."""
    import rag
    from rag.ui import cli_support, render

    if compare:
        first, second = (cli_support.load_results(path) for path in compare)
        render.comparison(cli_support.compare_results(first, second))
        return
    if signals:
        settings = _settings(config)
        with render.eval_progress() as progress:
            results = rag.run_signals(settings, signals, sample, max(10, sample // 5), progress=progress)
        render.signal_results(results, cli_support.write_signals(results, out))
        return
    if subfields:
        if llms and "," in llms:
            raise typer.BadParameter("--subfields takes one LLM setting", param_hint="--llm")
        settings = _settings(config, llm=llms)
        with render.eval_progress() as progress:
            results = rag.run_subfields(settings, subfields, split, progress, eval_set)
        render.subfield_results(results, cli_support.write_subfields(results, out))
        return
    settings = _library(_settings(config, collection=collection), read_only=False).settings
    chosen = llms.split(",") if llms else [settings.llm]
    with render.eval_progress() as progress:
        eval_file = eval_set or rag.eval_set(split)
        mode_list = [m.strip() for m in modes.split(",")]
        results = rag.run_eval(
            settings, eval_file, mode_list, [c.strip() for c in chosen], judge, limit, progress
        )
    render.eval_results(results, cli_support.write_results(results, out))


@app.command(epilog="Example: citeline chat --llm none   (or: echo 'What is AdaSCALE?' | citeline chat)")
def chat(
    k: TopK = None,
    mode: Mode = "hybrid",
    llm: LLM = None,
    collection: Collection = None,
    cid: ConversationId = None,
    no_log: NoLog = False,
    config: Config = None,
) -> None:
    """Interactive questions with follow-ups; reads a pipe too (one question per line)."""
    from rag.ui.chat import ChatSession

    library = _library(_settings(config, collection=collection, llm=llm, log=False if no_log else None))
    session = ChatSession(library, library.settings.data_dir / "chat_history", k=k, mode=mode)
    if cid:
        session.conversation, session.turns = library.conversation(cid)
    code = session.run()
    if code:
        raise typer.Exit(code)


@app.command(
    epilog="Examples: citeline check related-work.md; citeline check paper.tex --bib refs.bib --json; "
    "pbpaste | citeline check -"
)
def check(
    draft: Annotated[str, typer.Argument(help="The draft: a .md, .tex or .txt file, or - for stdin.")],
    bib: Annotated[
        str | None, typer.Option("--bib", help="A .bib file that resolves the draft's \\cite keys.")
    ] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help="md: print the draft annotated with the verdicts.")
    ] = None,
    collection: Collection = None,
    llm: LLM = None,
    json_out: Json = False,
    config: Config = None,
) -> None:
    """Check that each cited claim of a draft is supported by the paper it cites (exit 1 if not);
    with a model (--llm), borderline claims also get its yes/no."""
    from rag import CitelineError
    from rag.ui import render

    if fmt not in (None, "md"):
        raise typer.BadParameter("the one format is md", param_hint="--format")
    try:
        library = _library(_settings(config, collection=collection, llm=llm))
        report = library.check(draft, bib)
    except CitelineError as exc:  # bad input: exit 2, so that 1 keeps meaning "a claim failed"
        render.error(str(exc))
        raise typer.Exit(2) from None
    if json_out:
        render.print_json(report.to_dict())
    elif fmt == "md":
        from rag.ui import check_report

        sys.stdout.write(check_report.markdown(report, report.text))
    else:
        from rag.ui import check_report

        check_report.terminal(report)
    if report.failed:
        raise typer.Exit(1)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """The library's warnings as one ``warning:`` line each (others as Python shows them)."""
    from rag import CitelineWarning
    from rag.ui import render

    if issubclass(category, CitelineWarning):
        render.warn(str(message))
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


_python_showwarning = warnings.showwarning


llm_app = typer.Typer(
    help="The resident embedded-model server.", no_args_is_help=True, epilog="Example: citeline llm status"
)
app.add_typer(llm_app, name="llm")


@llm_app.command("status", epilog="Example: citeline llm status --json")
def llm_status(json_out: Json = False, config: Config = None) -> None:
    """Whether the embedded model's server is running, where, and how long it has been idle."""
    from rag import Library
    from rag.ui import render

    status = Library(_settings(config)).model_status()
    if json_out:
        render.print_json(status)
    else:
        render.llm_status(status)


@llm_app.command("start", epilog="Example: citeline llm start")
def llm_start(json_out: Json = False, config: Config = None) -> None:
    """Start the embedded model's server now, so the first ask does not wait for it to load."""
    from rag import Library
    from rag.ui import render

    status = Library(_settings(config)).model_start()
    if json_out:
        render.print_json(status)
    else:
        render.llm_started(status)


@llm_app.command("stop", epilog="Example: citeline llm stop")
def llm_stop(config: Config = None) -> None:
    """Stop the embedded model's server (the next ask starts it again)."""
    from rag.ui import cli_support, render

    render.llm_stopped(cli_support.llm_stop(_settings(config)))


serve_app = typer.Typer(
    help="The warm process that serves search, ask, papers and summarize without start-up time.",
    no_args_is_help=True,
    epilog="Example: citeline serve status",
)
app.add_typer(serve_app, name="serve")


@serve_app.command("status", epilog="Example: citeline serve status --json")
def serve_status(json_out: Json = False, config: Config = None) -> None:
    """Whether a warm process serves this data dir's query commands, and its pid."""
    from rag.ui import query_server, render

    status = query_server.status(_settings(config))
    if json_out:
        render.print_json(status)
    else:
        render.serve_status(status)


@serve_app.command("stop", epilog="Example: citeline serve stop")
def serve_stop(config: Config = None) -> None:
    """Stop the warm process (the next query command starts one again)."""
    from rag.ui import query_server, render

    render.serve_stopped(query_server.stop(_settings(config)))


@app.command(epilog="Example: citeline mcp --print-config --llm none")
def mcp(
    collection: Collection = None,
    llm: LLM = None,
    no_log: NoLog = False,
    print_config: Annotated[
        bool,
        typer.Option("--print-config", help="Print the client configuration (absolute paths) and exit."),
    ] = False,
    config: Config = None,
) -> None:
    """Serve citeline's tools to an MCP client (Claude Desktop, an IDE) over stdio."""
    from rag.ui import mcp_server

    settings = _settings(config, collection=collection, llm=llm, log=False if no_log else None)
    if print_config:
        from rag.ui import render

        render.print_json(mcp_server.client_config(settings, str(config) if config else None))
        render.errors.print(f"[dim]{mcp_server.CONFIG_HELP}[/]", soft_wrap=True)
        return
    mcp_server.serve(settings)


def main() -> None:
    """Entry point: library errors become one line on stderr and exit code 1, never a traceback;
    Ctrl-C anywhere in it (even while the library is imported) is one line and exit code 130.

    A query command goes to the warm process when one serves this data dir (see
    :mod:`rag.ui.query_server`); otherwise it runs here and leaves one behind for the next."""
    signal.signal(signal.SIGINT, _ctrl_c)
    _open_closed_streams()
    sys.stdout = _Stdout(sys.stdout)  # type: ignore[assignment]
    try:
        from rag.ui import query_server  # the standard library only

        if sys.argv[1:2] == [query_server.SERVER_FLAG]:
            _serve(sys.argv[2:])
        if query_server.forwardable(sys.argv[1:]):
            # A one-shot query: its start-up allocates a million objects that live until it ends
            # (chromadb, onnxruntime, the index), and the collector walked them again and again
            # (~5% of a search's wall time). What one query leaves in cycles is small, and the
            # process ends with it; the warm process, chat and ingest keep the collector.
            gc.disable()
        from rag.ui.interrupts import redeliver_swallowed

        # A Ctrl-C dropped in a finalizer stops the command. Not in the warm process (above):
        # there it could land on the next client's command.
        sys.unraisablehook = redeliver_swallowed
        code = _forwarded(sys.argv[1:])
        if code is not None:
            _Run.read_only, _Run.settings = True, None
            _leave(code)
        _main()
    except KeyboardInterrupt:
        _interrupted()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            _leave(exc.code or 0)
        raise
    _leave(0)


# A reader that stops early (``| head``) is no failure of the command: exit as a process killed
# by SIGPIPE reports it (128 + 13). Click and rich would both exit 1, which ``check`` keeps for
# "a claim is not supported".


class _Stdout:
    """``sys.stdout`` whose writes end the command with exit code 141 (``BROKEN_PIPE``) once its reader
    is gone (the rest goes to /dev/null), wherever they happen: rich, click, ``--json``."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def _gone(self) -> NoReturn:
        from rag.ui.query_server import reader_gone  # the standard library only

        raise SystemExit(reader_gone(self._stream))

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._gone()

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()


def _open_closed_streams() -> None:
    """Started with stdout or stderr closed (``>&-``), Python leaves ``sys.stdout`` None, which
    every print trips over: such a stream writes to /dev/null instead, as the user asked."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, os.O_WRONLY)  # the lowest free descriptor: ``fd`` itself
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w", encoding="utf-8", closefd=False))  # noqa: SIM115


def _forwarded(argv: list[str]) -> int | None:
    """The exit code of the command run by the warm process, or None to run it here."""
    from rag.ui import query_server

    if not query_server.forwardable(argv):
        return None
    from rag import load_settings

    try:
        settings = load_settings(config_file=query_server.config_argument(argv))
    except Exception:  # bad settings: the command says so when it runs here
        return None
    return query_server.forward(argv, settings, _CLI)


def _serve(args: list[str]) -> NoReturn:
    """The warm process's own entry (``python cli.py --query-server DATA_DIR [CONFIG]``, started by
    :func:`rag.ui.query_server.spawn`): runs query commands for clients until idle."""
    from rag.ui import query_server

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    code = query_server.main(args, _run_here, _CLI)
    os._exit(code)  # as a query command ends (_leave): Chroma's files are left as they are on disk


def _run_here(argv: list[str]) -> int:
    """One command, in this process, as ``main`` would run it, for the warm process; its exit code."""
    from rag.ui import render

    render.reset_consoles()
    _Run.interrupted, _Run.read_only, _Run.settings = False, False, None
    sys.argv = ["citeline", *argv]
    try:
        _main()
    except SystemExit as exc:
        if isinstance(exc.code, str):
            sys.stderr.write(exc.code + "\n")
            return 1
        return exc.code or 0
    except KeyboardInterrupt:  # its client went away (Ctrl-C): nobody reads the code
        return 130
    except Exception:  # CITELINE_DEBUG=1: the traceback, as the command would print it
        import traceback

        traceback.print_exc()
        return 1
    return 0


def _ctrl_c(signum: int, frame: object) -> None:
    """Python's own SIGINT handler, remembering the Ctrl-C: a C extension imported at that moment
    (onnxruntime) swallows the KeyboardInterrupt and raises ``ImportError`` instead."""
    _Run.interrupted = True
    raise KeyboardInterrupt


def _interrupted() -> None:
    """Ctrl-C: one line, exit code 130."""
    sys.stderr.write("interrupted\n")
    sys.exit(130)


def _leave(code: int) -> None:
    """End a query command without Python's teardown (~0.25 s of freeing onnxruntime and Chroma,
    during which a Ctrl-C killed the process silently): output flushed, exit handlers run (they
    stop a model server this process started), then exit. Other commands end as usual: an ingest
    leaves Chroma's files to its teardown."""
    try:
        sys.stdout.flush()  # what is still buffered meets a reader that has gone (| head) here
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    except KeyboardInterrupt:  # a Ctrl-C (or one sent again, see redeliver_swallowed) right at the end
        _interrupted()
    if not _Run.read_only:
        sys.exit(code)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the command is done: nothing is left to stop
    if _Run.settings is not None and code in (0, 1):
        from rag.ui import query_server

        if query_server.forwardable(sys.argv[1:]):  # ran here: leave a warm process for the next
            query_server.spawn(_Run.settings, query_server.config_argument(sys.argv[1:]), _CLI)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (| head) takes no more
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)


def _main() -> None:
    from rag import CitelineError, CitelineWarning

    warnings.simplefilter("always", CitelineWarning)
    warnings.showwarning = _show_warning
    _one_line_usage_errors()
    try:
        app()
    except CitelineError as exc:
        _fail(str(exc))
    except SystemExit as exc:
        if _silent_interrupt(exc):
            _interrupted()
        raise
    except UnicodeEncodeError as exc:
        if exc.reason != "surrogates not allowed":  # not bytes the user passed: a bug after all
            _internal_error(exc)
        _fail("an argument or input line is not valid UTF-8 text")
    except Exception as exc:
        _internal_error(exc)


def _one_line_usage_errors() -> None:
    """Have typer print a usage error with :func:`_usage_error`. Typer imports its printer
    (``typer.rich_utils``, and with it rich: ~0.09 s) only to show help or an error, so the printer
    is replaced as that module is imported, not by importing it here: a command that runs cleanly
    never pays for it."""
    import importlib.abc
    import importlib.machinery

    if "typer.rich_utils" in sys.modules:
        sys.modules["typer.rich_utils"].rich_format_error = _usage_error  # type: ignore[attr-defined]
        return
    if any(type(finder).__name__ == "Patching" for finder in sys.meta_path):
        return  # the warm process runs every command through here: one hook is enough

    class Patching(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:  # importlib's signature
            if name != "typer.rich_utils":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is not None and spec.loader is not None:
                load = spec.loader.exec_module

                def exec_module(module: Any) -> None:
                    load(module)
                    module.rich_format_error = _usage_error

                spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, Patching())


def _bad_usage(message: str, verb: str) -> NoReturn:
    """A usage error found by the command itself, printed as typer's are (:func:`_usage_error`)."""
    _usage_line(message, f"citeline {verb}")
    sys.exit(2)


def _usage_line(message: str, command: str | None) -> None:
    """``error: MESSAGE (see `COMMAND --help`)``, one line on stderr."""
    from rag.ui import render

    render.error(message + (f" (see `{command} --help`)" if command else ""))


def _usage_error(exc: Exception) -> None:
    """A usage error ("-n 0", an unknown option) as one ``error:`` line naming the help to read,
    instead of typer's boxed panel under the usage text; typer then exits with click's code 2."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # bare `citeline papers`: the help was shown
        return
    ctx = getattr(exc, "ctx", None)
    message = " ".join(str(exc.format_message()).split()).rstrip(".")  # type: ignore[attr-defined]
    _usage_line(message, ctx.command_path if ctx is not None else None)


def _internal_error(exc: Exception) -> None:
    """A bug: still one line (CITELINE_DEBUG=1 shows the traceback)."""
    if os.environ.get("CITELINE_DEBUG") and not _Run.interrupted:
        raise exc
    _fail(f"internal error: {type(exc).__name__}: {exc} (set CITELINE_DEBUG=1 for the traceback)")


def _silent_interrupt(exc: BaseException) -> bool:
    """Typer turns a Ctrl-C inside a command into a bare exit 130: tell that apart (by the
    exception chain Python would print) from an exit a command chose after saying why."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or (None if link.__suppress_context__ else link.__context__)
    return False


def _fail(message: str) -> None:
    """One ``error:`` line on stderr (see ``render.error``) and exit code 1; after a Ctrl-C, whatever
    failed (an import the interrupt broke), "interrupted" and exit code 130."""
    if _Run.interrupted:
        _interrupted()
    from rag.ui import render

    render.error(message)
    sys.exit(1)


if __name__ == "__main__":
    main()
