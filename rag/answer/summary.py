"""A cited overview as a record, and its Markdown and JSON: what ``summarize`` returns.

The record is what the summarizer (:mod:`rag.answer.summarize`) builds and what the terminal, the
answer log and the MCP server show; its renderings live with it because the log stores the
Markdown below the ``ui`` stage, and ``--format json`` is the same data.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from rag.records import Citation, Paper
from rag.text import (
    KEY_GROUP,
    markdown_literal,
    math_spans,
    papers_count,
    plain_text,
    share_vocabulary,
    split_keys,
)


@dataclass
class PaperNote:
    """One selected paper and the sentence that stands for it in the overview."""

    key: str
    paper: Paper
    note: str
    similarity: float
    written: bool = False  # the model wrote the note (else it is the paper's own key sentence)


@dataclass
class Theme:
    """A group of papers on one facet of the topic."""

    name: str
    notes: list[PaperNote]


# How many of the papers only sharing some of the topic's vocabulary the Markdown names.
VOCABULARY_SHOWN = 20


@dataclass
class Summary:
    """A cited overview: lead paragraph, themes with one cited note per paper, and how it was made."""

    topic: str
    lead: str
    themes: list[Theme]
    model: str
    invalid_keys: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    others: list[Paper] = field(default_factory=list)  # on the topic, beyond --max-papers: named only
    # The last this many of ``others`` only share some of the topic's vocabulary (a conference's
    # long tail, rag/retrieval/topics.py likely_first): named after the rest, never covered.
    vocabulary_only: int = 0
    # The model kept to a time budget (``summary_seconds``), so it may have condensed only some papers.
    budgeted: bool = False
    # How a venue or year was applied when no paper records one ("no indexed paper records NeurIPS,
    # so all are covered"); "" when it was applied as asked, or none was asked.
    scope: str = ""

    @property
    def found(self) -> int:
        """How many papers the topic holds: those covered and those only named."""
        return len(self.papers) + len(self.others)

    @property
    def likely(self) -> int:
        """How many of them are likely on the topic."""
        return self.found - self.vocabulary_only

    @property
    def named_on_topic(self) -> int:
        """How many of ``others`` (the first ones) are likely on the topic: named, not covered."""
        return len(self.others) - self.vocabulary_only

    @property
    def papers(self) -> list[PaperNote]:
        """Every paper covered, theme by theme."""
        return [n for theme in self.themes for n in theme.notes]

    def to_markdown(self) -> str:
        """The overview as Markdown, with a ``file:line`` list of the papers covered.

        Text that comes from paper files (or the model quoting them) is escaped: a Markdown link in
        an abstract shows as text, never as a link whose address is hidden.
        """
        lines = [f"# {md(self.topic)}: what the papers here cover", ""]
        if self.scope:
            lines += [f"_{md(self.scope[:1].upper() + self.scope[1:])}._", ""]
        lines += [md(self.lead, keys={n.key for n in self.papers}) or "_No papers on this topic._", ""]
        for theme in self.themes:
            lines += [f"## {md(theme.name)}", ""]
            lines += [f"- **{md(n.paper.display)}**: {md(n.note)} [{n.key}]" for n in theme.notes]
            lines.append("")
        if self.themes:
            lines += ["## Papers covered", ""]
            lines += [
                f"- [{n.key}] {md(n.paper.display)} ({_id_of(n)}{md(n.paper.source)}:{n.paper.line})"
                for n in self.papers
            ]
            lines.append("")
        split = self.named_on_topic
        # A conference's long tail (173 papers sharing some of GNNs' vocabulary at ICLR 2021) would
        # bury the document: its first ones only; the JSON's others list every one.
        on_topic = f"{papers_count(split, more=True)} on this topic (not covered above)"
        for heading, named, limit in [
            (on_topic, self.others[:split], split),
            (share_vocabulary(self.vocabulary_only), self.others[split:], VOCABULARY_SHOWN),
        ]:
            if named:
                lines += [f"## {heading}", ""]
                shown = named[:limit]
                # The id too: the way to ask for one of them (`papers show ID`, MCP get_paper).
                lines += [f"- {md(p.display)} (id {md(p.id)}, {md(p.source)}:{p.line})" for p in shown]
                if len(shown) < len(named):
                    lines.append(f"- … and {len(named) - len(shown)} more (`--format json` lists them all)")
                lines.append("")
        covered = f"{len(self.papers)} of {self.likely} papers" if split else papers_count(len(self.papers))
        written = sum(n.written for n in self.papers)
        if self.budgeted and written < len(self.papers):
            covered += f"; the model's notes on {written}, the papers' own key sentences on the rest"
        lines.append(f"_{covered} · {self.model}_")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The ``summarize --format json`` document."""
        split = self.named_on_topic
        return {
            "topic": self.topic,
            "lead": self.lead,
            "themes": [
                {
                    "name": t.name,
                    "papers": [
                        {"key": n.key, "id": n.paper.id, "note": n.note, "by_model": n.written}
                        for n in t.notes
                    ],
                }
                for t in self.themes
            ],
            "citations": [Citation(n.key, n.paper).to_dict() for n in self.papers],
            "found": self.found,
            "likely": self.likely,
            # Named, not covered: those on the topic first, then those only sharing some of its
            # vocabulary (``likely`` false).
            "others": [
                {"id": p.id, "label": p.display, "source": p.source, "line": p.line, "likely": n < split}
                for n, p in enumerate(self.others)
            ],
            "invalid_citations": self.invalid_keys,
            "model": self.model,
            "scope": self.scope,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def _id_of(note: PaperNote) -> str:
    """ "id X, " when the note's key is not its paper's ID (S<n> for a long one): the ID is what
    `papers show` and MCP ``get_paper`` take."""
    return "" if note.key == note.paper.id else f"id {md(note.paper.id)}, "


def md(text: str, keys: Collection[str] = ()) -> str:
    """Corpus-derived text as literal Markdown, LaTeX unwrapped and math typeset as Unicode text;
    a bracket group of ``keys`` only (``[KEY]``, ``[K1, K2]``) stays as is, any other is escaped.

    A kept group is no link: none inside math ("$[0,1]^d$" is an interval), none that what follows
    it, once rendered, would make a link or a link's definition of ("(https://…)", ": https://…"),
    and the text is one paragraph (no line of it can start a definition). A group that is not a
    citation ("[docs](https://…)" in a title the model repeated) is text.
    """

    def literal(part: str) -> str:
        return markdown_literal(plain_text(part, symbols=True))

    if not keys:
        return literal(text)
    text = re.sub(r"\s*\n\s*", " ", text)
    spans = math_spans(text)
    pieces: list[str] = []  # text, key group, text, ... (rendered text; groups as written)
    at = 0
    for m in KEY_GROUP.finditer(text):
        cited = split_keys(m.group(1))
        if cited and set(cited) <= set(keys) and not any(a <= m.start() < b for a, b in spans):
            pieces += [literal(text[at : m.start()]), m.group(1)]
            at = m.end()
    pieces.append(literal(text[at:]))
    return "".join(
        piece
        if i % 2 == 0
        else f"[{piece}]"
        if pieces[i + 1][:1] not in ("(", ":")
        else literal(f"[{piece}]")
        for i, piece in enumerate(pieces)
    )
