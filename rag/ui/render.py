"""Terminal output: rich tables and panels for people, plain JSON for scripts.

Everything the CLI shows goes through here, so the CLI stays a thin argument parser and the
look of a source list is defined once for ``ask``, ``chat`` and ``search``. Text from paper files
(and questions echoed back) is data: :func:`shown` strips what could drive the terminal, unwraps
LaTeX into plain text and escapes rich markup; ``--json`` prints the original text.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.table import Table

from rag.errors import BadInput, redact
from rag.records import Answer, AnswerMode, Citation, Hit, Paper
from rag.text import papers_count, plain_text, printable

if TYPE_CHECKING:
    from rich.progress import Progress

    from rag.answer.summary import Summary
    from rag.index.ingest import IngestReport

console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)


def reset_consoles() -> None:
    """Make the consoles again: rich fixes colour and width when a console is made, and a warm
    process (``rag.ui.query_server``) prints to a different client terminal for each command."""
    global console, errors
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    stream_reset()


def shown(text: str, latex: bool = True) -> str:
    """Corpus or user text as rich shows it literally: no control sequence, no markup, and LaTeX
    unwrapped and inline math typeset as Unicode text (``\\rho`` → ``ρ``); not for identifiers
    (``latex=False``: an ID must read exactly as typed)."""
    return escape(printable(plain_text(text, symbols=True) if latex else text))


def print_json(data: Any) -> None:
    """JSON on stdout for scripts (nothing else goes there with --json)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def error(message: str) -> None:
    """A failure as one ``error:`` line on stderr: no control characters, no credential.

    Error texts may quote servers that echo request headers; the values of ``*_KEY``, ``*_TOKEN``
    and similar environment variables are removed as well as anything shaped like a key.
    """
    import os

    secrets = tuple(
        v for k, v in os.environ.items() if k.endswith(("_KEY", "_TOKEN", "_SECRET", "_PASSWORD"))
    )
    line = " ".join(printable(redact(message, secrets)).split())
    sys.stderr.write(f"error: {line}\n")


def warn(message: str) -> None:
    """A warning on stderr, escaped so corpus text cannot inject markup."""
    errors.print(
        f"[yellow]warning:[/] {escape(printable(message))}", soft_wrap=True
    )  # one line, however long


def ingest_report(report: IngestReport) -> None:
    """The ingest's problems, then one summary line."""
    for problem in report.problems:
        warn(str(problem))
    console.print(
        f"[bold]{report.added}[/] added, [bold]{report.updated}[/] updated, "
        f"[bold]{report.unchanged}[/] unchanged, "
        f"[bold]{report.removed}[/] removed, [bold]{report.skipped}[/] skipped "
        f"from {report.files} file(s) in {report.seconds:.1f}s "
        f"({report.chunks_written} chunks embedded in {report.embed_seconds:.1f}s)"
    )


@contextmanager
def ingest_progress() -> Iterator[Callable[[str, int, str], None]]:
    """The ingest callback: a progress bar on stderr (so JSON output stays clean), and a
    checkpoint that raises a deferred Ctrl-C between papers (see :mod:`rag.ui.interrupts`).

    The deferred Ctrl-C starts with the ingest's ``start`` event, not with this block: a query's
    first-use check (``ensure_index`` on an index that exists) is no ingest, and a Ctrl-C there
    must stop the command at once, not be noted and then forgotten.
    """
    from contextlib import ExitStack

    from rag.ui.interrupts import DeferredInterrupt

    bar = _progress_bars()
    state: dict = {}

    with bar, ExitStack() as deferred:

        def update(event: str, amount: int, detail: str) -> None:
            if event == "start":
                state.setdefault("interrupt", deferred.enter_context(DeferredInterrupt()))
                return
            if "interrupt" in state:
                state["interrupt"].checkpoint()
            if event == "total":
                state["task"] = bar.add_task(f"ingest {detail}", total=amount)
            elif "task" in state:
                bar.advance(state["task"], amount)

        yield update


def bundled_corpus_indexed(report: IngestReport) -> None:
    """Say that first use indexed the bundled corpus (it took a few seconds)."""
    errors.print(
        f"[dim]indexed the bundled ICML 2026 corpus: {report.added} papers in {report.seconds:.1f}s[/]"
    )


def ingest_interrupted() -> None:
    """Ctrl-C during ingest: what is written is consistent; re-run to finish."""
    errors.print("interrupted: what was written is consistent; run the same ingest again to finish")


# Widest an ID or source column gets in a table; longer values end in an ellipsis.
ID_WIDTH = 40


def papers_table(papers: list[Paper]) -> None:
    """IDs, labels, venue and ``file:line`` of papers."""
    table = Table(show_lines=False, box=None, pad_edge=False)
    for column in ("ID", "Label", "Venue", "Source"):
        table.add_column(
            column,
            overflow="fold" if column == "Label" else "ellipsis",
            no_wrap=column != "Label",
            max_width=ID_WIDTH if column in ("ID", "Source") else None,
        )
    for paper in papers:
        venue = " ".join(str(x) for x in (paper.venue, paper.year) if x)
        table.add_row(
            shown(paper.id, latex=False),
            shown(paper.display),
            shown(venue),
            shown(f"{paper.source}:{paper.line}", latex=False),
        )
    console.print(table)
    console.print(f"[dim]{papers_count(len(papers))}[/]")


def paper_details(papers: list[Paper]) -> None:
    """Papers in full, one after another (``papers show`` with several ids)."""
    for number, paper in enumerate(papers):
        if number:
            console.print()
        paper_detail(paper)


def paper_detail(paper: Paper) -> None:
    """One paper in full, with its provenance."""
    console.print(f"[bold]{shown(paper.display)}[/]  [dim]{shown(paper.id, latex=False)}[/]")
    if paper.authors:
        console.print(shown(", ".join(paper.authors)))
    meta = [
        " ".join(str(x) for x in (paper.venue, paper.year) if x),
        f"{paper.source}:{paper.line}",
        paper.url,
    ]
    console.print("[dim]" + shown("  ·  ".join(m for m in meta if m)) + "[/]")
    console.print()
    console.print(shown(paper.abstract), soft_wrap=False)


def hits_table(hits: list[Hit], mode: str, problem: str | None = None) -> None:
    """Search results with their scores; an empty list says why when a filter is the reason."""
    if not hits:
        console.print(
            f"[dim]{shown(problem[0].upper() + problem[1:])}.[/]"
            if problem
            else "[dim]No paper is relevant enough to this query.[/]"
        )
        return
    table = Table(box=None, pad_edge=False)
    for column in ("#", "Score", "Sim", "ID", "Label", "Source"):
        table.add_column(
            column,
            overflow="fold" if column == "Label" else "ellipsis",
            no_wrap=column != "Label",
            max_width=ID_WIDTH if column in ("ID", "Source") else None,  # a 300-character id hides nothing
        )
    for n, hit in enumerate(hits, start=1):
        sim = "" if hit.similarity is None else f"{hit.similarity:.2f}"
        where = shown(f"{hit.paper.source}:{hit.paper.line}", latex=False)
        table.add_row(
            str(n), f"{hit.score:.4f}", sim, shown(hit.paper.id, latex=False), shown(hit.paper.display), where
        )
    console.print(table)
    console.print(f"[dim]mode: {mode}[/]")


@contextmanager
def summary_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A status line on stderr for the summarizer's stages (selected, condensed i/N, writing)."""
    with errors.status("selecting papers…") as status:

        def update(stage: str, done: int, total: int) -> None:
            text = {"selected": f"{total} papers selected", "condensed": f"condensed {done}/{total} papers"}
            status.update(text.get(stage, "writing the overview…"))

        yield update


def _cited_as(citations: list[Citation]) -> dict[str, list[str]]:
    """Paper ID → the answer's citation keys for it (``[000-15]``), for the BibTeX mapping lines."""
    cited: dict[str, list[str]] = {}
    for citation in citations:
        cited.setdefault(citation.paper.id, []).append(citation.key)
    return cited


def bibliography(citations: list[Citation]) -> str:
    """The cited papers' BibTeX, each entry after ``% [KEY] -> \\cite{bibkey}`` lines."""
    from rag.ui.bibtex import bibliography as entries

    return entries([c.paper for c in citations], cited_as=_cited_as(citations))


def bibtex(papers: list[Paper], after: bool = False, citations: list[Citation] | None = None) -> None:
    """BibTeX entries as plain text (paste into a .bib file): ``papers``, or the papers of an
    answer's ``citations`` with the mapping from its keys; ``after`` an answer."""
    from rag.ui.bibtex import bibliography as entries

    text = bibliography(citations) if citations else entries(papers) if papers else ""
    if text:
        sys.stdout.write(("\n" if after else "") + text + "\n")


def with_bibtex(data: dict, citations: list[Citation], cite: str | None) -> dict:
    """A JSON document with, when ``--cite bibtex`` asked for it, a ``bibtex`` field and each
    citation's ``bibtex_key`` (the key its entry has there)."""
    from rag.ui.bibtex import cite_keys

    if cite != "bibtex":
        return data
    keys = cite_keys(c.paper for c in citations)
    cited = [
        {**c, "bibtex_key": keys[c["id"]]} if c.get("id") in keys else c for c in data.get("citations", [])
    ]
    return {**data, "citations": cited, "bibtex": bibliography(citations)}


def check_writable(out: Path) -> None:
    """A one-line error now, before minutes of work, if ``out`` cannot be written as a file."""
    folder = out.parent
    if out.is_dir():
        raise BadInput(f"cannot write {out}: it is a directory")
    if out.exists():  # a file, /dev/stdout, a FIFO: its own permission decides
        if not os.access(out, os.W_OK):
            raise BadInput(f"cannot write {out}: permission denied")
    elif not folder.is_dir():
        raise BadInput(f"cannot write {out}: there is no directory {folder}")
    elif not os.access(folder, os.W_OK):
        raise BadInput(f"cannot write {out}: {folder} is not writable")


def summary(result: Summary, fmt: str, out: Path | None, cite: str | None = None) -> None:
    """A summary as Markdown or JSON, to a file or stdout (with its BibTeX when ``cite``).

    Markdown goes to stdout as Markdown text unless stdout is a terminal (then rendered), so
    ``summarize > file.md`` writes the same file as ``--out file.md``.
    """
    citations = [Citation(n.key, n.paper) for n in result.papers]
    if fmt == "json":
        text = json.dumps(with_bibtex(result.to_dict(), citations, cite), ensure_ascii=False, indent=2)
    else:
        text = result.to_markdown()
        if cite == "bibtex" and citations:
            text += "\n\n## BibTeX\n\n```bibtex\n" + bibliography(citations) + "\n```"
    if result.invalid_keys:
        warn(f"removed citation(s) not among the selected papers: {', '.join(result.invalid_keys)}")
    if out is not None:
        try:
            out.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:  # the disk filled up meanwhile: the summary still reaches the user
            sys.stdout.write(text + "\n")
            raise BadInput(f"cannot write {out}: {exc.strerror or exc}; the summary went to stdout") from None
        errors.print(f"[dim]wrote {out} ({len(result.papers)} papers)[/]")
    elif fmt == "json" or not sys.stdout.isatty():
        sys.stdout.write(text + "\n")
    else:
        console.print(Markdown(text))


def _progress_bars() -> Progress:
    """Bars (description, bar, done/total, time) on stderr, shown only on a terminal and cleared
    when done: the one look of ingest and eval progress."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,
    )


@contextmanager
def eval_progress() -> Iterator[Callable[[str, int, int], None]]:
    """Progress bars on stderr for the eval's stages."""
    with _progress_bars() as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks or (stage == "answer" and done == 1):
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done)

        yield update


def _table(header: list[str], rows: list[list[str]], title: str) -> None:
    table = Table(title=title, box=None, pad_edge=False)
    for column in header:
        left = column in ("section", "config", "metric", "tag")
        table.add_column(column, justify="left" if left else "right")
    for row in rows:
        table.add_row(*(shown(str(c)) for c in row))
    console.print(table)


def eval_results(results: dict, written: list[Path]) -> None:
    """Both eval tables and the files written."""
    from rag.eval.report import answer_rows, retrieval_rows, tag_rows

    _table(*retrieval_rows(results), title=f"Retrieval ({results['questions']} questions)")
    console.print()
    _table(*answer_rows(results), title=f"Answers (judge: {results['judge']})")
    for answers in results["answers"]:
        if any(row.get("tags") for row in answers.get("questions", [])):
            console.print()
            _table(*tag_rows(answers), title=f"By tag and kind: {answers['llm']}")
    console.print(f"[dim]wrote {', '.join(str(p) for p in written)}[/]")


def signal_results(results: dict, written: list[Path]) -> None:
    """External-signal figures and the files written."""
    from rag.eval.report import signal_rows

    known = results["known_item"]
    _table(
        *signal_rows(results),
        title=f"Known-item search ({known['queries']} TLDRs, {results['papers_indexed']} papers)",
    )
    lists = results["topical_lists"]
    console.print(
        f"Topical lists ({lists['questions']} keywords): recall {lists['recall']:.3f}, "
        f"precision {lists['precision']:.3f} (lower bound)"
    )
    console.print(f"[dim]wrote {', '.join(str(p) for p in written)}[/]")


def subfield_results(results: dict, written: list[Path]) -> None:
    """The subfield benchmark's table (per conference and overall) and the file written."""
    from rag.eval.subfields import table_rows

    overall = results["overall"]
    _table(*table_rows(results), title=f"Subfield listings, {results['split']} ({overall['topics']} topics)")
    console.print("[dim]precision is a lower bound: author keywords under-tag[/]")
    console.print(f"[dim]wrote {', '.join(str(p) for p in written)}[/]")


def comparison(rows: list[list[str]]) -> None:
    """The difference between two eval runs."""
    if not rows:
        console.print("[dim]The two runs share no configuration to compare.[/]")
        return
    _table(["section", "config", "metric", "A", "B", "B−A"], rows, title="B compared with A")


# What the current answer streamed, as shown: to say what the check changed, and to rewrite it in
# place on a terminal (see answer_footer).
_streamed: list[str] = []


def stream_token(piece: str) -> None:
    """Print a piece of a streamed answer as it arrives."""
    # Quoted evidence arrives whole, so its math is typeset like any shown text.
    text = printable(plain_text(piece, symbols=True))
    _streamed.append(text)
    sys.stdout.write(text)
    sys.stdout.flush()


def stream_reset() -> None:
    """Forget what an earlier answer streamed (one that failed mid-way left no footer to take it)."""
    _streamed.clear()


def _take_streamed() -> str:
    text = "".join(_streamed)
    _streamed.clear()
    return text


def check_changes(streamed: str, checked: str) -> list[str] | None:
    """What the check changed between the streamed and the checked answer, in plain words; None
    (not a list) when it changed more than citations and removed sentences (then show it whole)."""
    from rag.text import cited_sentences, normalized

    before = [(normalized(s), keys) for s, keys in cited_sentences(plain_text(streamed))]
    after = [(normalized(s), keys) for s, keys in cited_sentences(plain_text(checked))]
    kept = [s for s, _ in after]
    if any(s not in dict(before) for s in kept):
        return None
    changes = []
    removed = sum(1 for s, _ in before if s not in kept)
    if removed:
        changes.append(f"removed {removed} sentence(s) no retrieved paper supports")
    cited_before = dict(before)
    for n, (sentence, keys) in enumerate(after, start=1):
        if sorted(set(keys)) != sorted(set(cited_before[sentence])):
            now = " ".join(f"[{k}]" for k in dict.fromkeys(keys)) or "nothing"
            was = " ".join(f"[{k}]" for k in dict.fromkeys(cited_before[sentence])) or "nothing"
            changes.append(f"sentence {n} now cites {now}, the paper whose text supports it (it cited {was})")
    if not changes:
        changes.append("citations moved to the end of the sentence each supports; the text is unchanged")
    return changes


def _rewrite(streamed: str, checked: str) -> bool:
    """Replace the streamed lines on a terminal by the checked answer; False when it cannot (not a
    terminal, or the streamed text has scrolled beyond the top of the screen)."""
    from rich.cells import cell_len

    if not console.is_terminal or not streamed:
        return False
    width = max(console.width, 1)
    rows = sum(max(1, -(-cell_len(line) // width)) for line in streamed.split("\n"))
    if rows >= console.height:
        return False
    sys.stdout.write("\r" + (f"\x1b[{rows - 1}A" if rows > 1 else "") + "\x1b[J")
    sys.stdout.flush()
    console.print(shown(checked))
    return True


def answer_footer(answer: Answer, streamed: bool) -> None:
    """The answer once, checked (a streamed draft the check revised is rewritten in place on a
    terminal), what the check changed in plain words, then the numbered sources."""
    shown_stream = _take_streamed() if streamed else ""
    changes: list[str] | None = []
    if streamed and answer.revised:
        changes = check_changes(shown_stream, answer.text)
        if not _rewrite(shown_stream, answer.text):
            sys.stdout.write("\n")
            console.print(f"[dim]checked answer:[/] {shown(answer.text)}")
    elif streamed:
        sys.stdout.write("\n")
    else:
        console.print(shown(answer.text))
    if answer.withheld:
        warn(f"the model's draft was withheld ({answer.withheld})")
    if answer.invalid_keys:
        warn(f"citation(s) not in the context were replaced or removed: {', '.join(answer.invalid_keys)}")
    dropped = sum(s["status"] == "unsupported" for s in answer.attribution)
    moved = sum(s["status"] == "reattributed" for s in answer.attribution)
    if dropped:
        warn(f"{dropped} sentence(s) that no retrieved paper supports were removed")
    if changes:
        for change in changes:
            if not change.startswith("removed "):  # said by the warning above
                errors.print(f"[dim]checked: {escape(change)}[/]")
    elif moved:
        errors.print(f"[dim]{moved} sentence(s) now cite the paper whose text supports them[/]")
    if answer.mode == AnswerMode.QUOTED:
        errors.print("[dim]quoted from the papers: the model did not answer, but this evidence does[/]")
    if not answer.grounded:
        warn("this answer cites none of the retrieved papers: treat it as ungrounded")
    sources(answer)


def sources(answer: Answer) -> None:
    """The numbered sources of an answer (or the closest papers of an abstention)."""
    if answer.abstained and not answer.citations:
        if answer.retrieved:
            console.print(
                "[dim]Closest papers: "
                + shown(", ".join(h.paper.id for h in answer.retrieved), latex=False)
                + "[/]"
            )
        return
    console.print()
    console.print("[bold]Sources[/]")
    for n, citation in enumerate(answer.citations, start=1):
        paper = citation.paper
        where = shown(f"{paper.source}:{paper.line}", latex=False)
        key = _key_and_id(citation.key, paper.id)
        console.print(f" {n}. {key}{shown(paper.display)}  [dim]{where}[/]")
    console.print(f"[dim]{answer.model} · {answer.timings.get('total', 0):.1f}s[/]")


def _key_and_id(key: str, paper_id: str) -> str:
    """``[key] `` for a source line, with the paper's ID after it when the key is not the ID: S<n>
    stands for a long ID in the answer, and the ID is what `papers show` takes."""
    named = "" if key == paper_id else f"{shown(paper_id, latex=False)} "
    return f"\\[{shown(key, latex=False)}] {named}"


def log_table(entries: list) -> None:
    """Logged answers, newest first: id, time, kind, collection, conversation (for ``--cid``),
    question, papers cited, model."""
    import time

    if not entries:
        console.print("[dim]No logged answers.[/]")
        return
    table = Table(box=None, pad_edge=False, expand=True)
    # One line per answer: the other columns keep their width and the question takes the rest, cut
    # with an ellipsis (it wrapped one word per line at 80 columns); `log show N` prints it whole.
    for column in ("#", "Time", "Kind", "Collection", "Conversation", "Question", "Papers", "Model"):
        table.add_column(
            column,
            overflow="ellipsis",
            no_wrap=True,
            max_width=ID_WIDTH if column == "Collection" else None,
            ratio=1 if column == "Question" else None,
        )
    for entry in entries:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.time))
        table.add_row(
            str(entry.id),
            when,
            entry.kind,
            shown(entry.collection or "", latex=False),
            shown(entry.conversation, latex=False),
            shown(entry.question),
            str(len(entry.citations)),
            shown(entry.model or ""),
        )
    console.print(table)


def log_entry(entry) -> None:
    """One logged answer in full, with its numbered sources."""
    import time

    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.time))
    conversation = shown(entry.conversation, latex=False)
    console.print(
        f"[dim]#{entry.id} · {when} · {entry.kind} · {shown(entry.collection or '')} · "
        f"{shown(entry.model or '')} · conversation {conversation}[/]"
    )
    console.print(f"[bold]> {shown(entry.question)}[/]")
    if entry.standalone and entry.standalone != entry.question:
        console.print(f"[dim]  (as: {shown(entry.standalone)})[/]")
    console.print()
    console.print(shown(entry.answer))
    if entry.citations:
        console.print()
        console.print("[bold]Sources[/]")
        for n, c in enumerate(entry.citations, start=1):
            where = shown(f"{c['source']}:{c['line']}", latex=False)
            key = _key_and_id(c["key"], c.get("id", c["key"]))
            console.print(f" {n}. {key}{shown(c['label'])}  [dim]{where}[/]")


def llm_status(status: dict) -> None:
    """The resident model server's state, one line."""
    if status.get("problem"):
        console.print(f"not running ({printable(status['problem'])})")
        return
    if not status.get("pid"):
        console.print("not running (the next ask with the embedded model starts it)")
        return
    if not status["running"]:
        why = "is not the server we started" if not status.get("ours") else "does not answer"
        console.print(f"not running (the recorded pid {status['pid']} {why}; the next ask replaces it)")
        return
    idle = "" if status["idle_s"] is None else f", idle {status['idle_s']:.0f}s"
    console.print(
        f"running: {status['model']} at {status['url']} (pid {status['pid']}, up {status['uptime_s']:.0f}s"
        f"{idle}; stops after {status['idle_shutdown_s']:.0f}s idle)"
    )


def llm_started(status: dict) -> None:
    """What ``llm start`` did, then the server's state."""
    console.print("started; " if status.get("started") else "already running; ", end="")
    llm_status(status)


def llm_stopped(was_running: bool) -> None:
    """What ``llm stop`` did."""
    console.print("stopped" if was_running else "not running")


def serve_status(status: dict) -> None:
    """The warm query process's state, one line."""
    if status.get("problem"):
        console.print(f"not running: {shown(status['problem'], latex=False)}", soft_wrap=True)
        return
    if not status["running"]:
        console.print("not running (the next search, ask, papers or summarize starts it)")
        return
    served = ""
    if "served" in status:
        now = "running a command" if status.get("busy") else f"idle {status['idle_s']:.0f}s"
        served = f", {status['served']} command(s) since {status['started']}, {now}"
    console.print(
        f"running: pid {status['pid']} on {shown(status['socket'], latex=False)}{served}"
        f" (stops after {status['idle_shutdown_s'] / 60:g} idle minutes)",
        soft_wrap=True,
    )


def serve_stopped(was_running: bool) -> None:
    """What ``serve stop`` did."""
    console.print("stopped" if was_running else "not running")
