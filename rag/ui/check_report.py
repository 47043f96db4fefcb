"""``citeline check`` output: a terminal report grouped by verdict, and the draft annotated in Markdown.

Kept apart from :mod:`rag.ui.render` because it is one command's view; it uses render's consoles and
escaping, so draft and corpus text can neither inject markup nor drive the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.text import markdown_literal, printable
from rag.ui.render import console, shown

if TYPE_CHECKING:
    from rag.answer.check import CheckReport, Claim

_HEADINGS = {
    "not supported": ("red", "Not supported by the cited paper"),
    "unresolved": ("red", "Citations that name no indexed paper"),
    "partly supported": ("yellow", "Partly supported"),
    "supported": ("green", "Supported"),
}


def _claims(n: int) -> str:
    return f"{n} cited claim{'' if n == 1 else 's'}"


def _where(ref: dict) -> str:
    return f"{ref['source']}:{ref['line']}"


def terminal(report: CheckReport) -> None:
    """Claims grouped by verdict, worst first, each with its line, the evidence and what to cite."""
    counts = report.counts()
    for verdict, (colour, heading) in _HEADINGS.items():
        claims = [c for c in report.claims if c.verdict == verdict]
        if not claims:
            continue
        console.print(f"\n[bold {colour}]{heading} ({len(claims)})[/]")
        for claim in claims:
            _claim(claim)
    summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    console.print(f"\n{_claims(len(report.claims))} in {shown(report.source, latex=False)}: {summary}")


def _claim(claim: Claim) -> None:
    keys = ", ".join(dict.fromkeys(c.key for c in claim.cites))
    console.print(
        f"  line {claim.line} [dim]\\[{shown(keys, latex=False)}][/]: {shown(claim.text)}", soft_wrap=True
    )
    if claim.evidence:
        ev = claim.evidence
        console.print(
            f"    [dim]{shown(ev['id'], latex=False)} {_where(ev)}:[/] “{shown(ev['sentence'])}”",
            soft_wrap=True,
        )
    if claim.reason:
        console.print(f"    {shown(claim.reason)}", soft_wrap=True)
    for key in claim.unresolved:
        closest = ", ".join(f"{c['id']} ({shown(c['label'])})" for c in claim.candidates.get(key, []))
        console.print(
            f"    {shown(key, latex=False)}: no indexed paper; closest: {closest or 'none'}", soft_wrap=True
        )
    for s in claim.suggestions:
        where = f"{shown(s['id'], latex=False)} {_where(s)}"
        console.print(f"    [green]cite instead:[/] {where}: “{shown(s['sentence'])}”", soft_wrap=True)
    if claim.verdict not in ("supported", "unresolved") and not claim.suggestions:
        console.print("    no indexed paper supports it", soft_wrap=True)


_MARKS = {"supported": "✓", "partly supported": "~", "not supported": "✗", "unresolved": "?"}


def markdown(report: CheckReport, text: str) -> str:
    """The draft with each checked sentence marked inline by its verdict (``**[✗ not supported]**``)
    and a footnote per claim: why, the paper's closest sentence with file:line, what to cite."""
    pieces, notes, last = [], [], 0
    for n, claim in enumerate(sorted(report.claims, key=lambda c: c.end), start=1):
        pieces.append(text[last : claim.end])
        pieces.append(f" **[{_MARKS.get(claim.verdict, '?')} {claim.verdict}]**[^check-{n}]")
        notes.append(f"[^check-{n}]: {_note(claim)}")
        last = claim.end
    pieces.append(text[last:])
    summary = ", ".join(f"{count} {verdict}" for verdict, count in report.counts().items() if count)
    return (
        "".join(pieces).rstrip("\n")
        + f"\n\n---\n\n{_claims(len(report.claims))}: {summary}\n\n"
        + ("\n".join(notes) + "\n")
    )


def _note(claim: Claim) -> str:
    """One claim's footnote, on one line, as Markdown-literal text."""
    note = f"line {claim.line}, {claim.verdict}"
    if claim.reason:
        note += f" ({markdown_literal(printable(claim.reason))})"
    if claim.evidence:
        sentence = markdown_literal(printable(claim.evidence["sentence"]))
        note += f"; the paper: “{sentence}” ({_where(claim.evidence)})"
    for key in claim.unresolved:
        closest = ", ".join(c["id"] for c in claim.candidates.get(key, []))
        note += f"; {markdown_literal(key)} names no indexed paper (closest: {closest or 'none'})"
    if claim.suggestions:
        note += "; cite instead: " + ", ".join(f"{s['id']} ({_where(s)})" for s in claim.suggestions)
    elif claim.verdict not in ("supported", "unresolved"):
        note += "; no indexed paper supports it"
    return " ".join(note.split())
