"""Cited overviews of a subfield: select the papers on a topic, condense, group into themes, write.

Selection is not a fixed k: retrieval with the relevance floor proposes candidates, and a check
keeps those that are about the topic (the topic's terms occur in the paper, or the dense match is
strong). Then map-reduce under the model's context budget: each paper is condensed to its key
contribution and result (map), papers are grouped into themes by clustering their embeddings,
and the lead paragraph is written from the notes (reduce; hierarchically, theme by theme, when
the notes do not fit in one prompt). Per-paper sentences carry their citation by construction;
the lead's citations are validated like ``ask``'s. Without an LLM the digest uses each paper's
key sentence and names themes by their most distinctive terms.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rag.answer.citations import assign_keys, check_citations
from rag.answer.expansion import subfield_terms
from rag.answer.grounding import unsupported_reason
from rag.answer.intent import classify
from rag.errors import BadInput
from rag.index.tokens import count_tokens
from rag.llm.client import LLMHandle
from rag.records import Citation, Hit, Paper, Progress
from rag.resources import prompt_text
from rag.retrieval import PaperSearch
from rag.retrieval.relevance import papers_on
from rag.settings import Settings
from rag.text import (
    KEY_GROUP,
    RESEARCH_FILLER,
    STOP_WORDS,
    checked_query,
    cited_sentences,
    markdown_literal,
    plain_text,
    split_sentences,
    without_keys,
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
_STOP = STOP_WORDS | RESEARCH_FILLER
_CONTRIBUTION = re.compile(
    r"\b(?:we (?:propose|introduce|present|develop|design)|this paper|in this work)\b", re.I
)


def _noop(stage: str, done: int, total: int) -> None:
    pass


@dataclass
class PaperNote:
    """One selected paper and the sentence that stands for it in the overview."""

    key: str
    paper: Paper
    note: str
    similarity: float


@dataclass
class Theme:
    """A group of papers on one facet of the topic."""

    name: str
    notes: list[PaperNote]


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

    @property
    def found(self) -> int:
        """How many papers the topic holds: those covered and those only named."""
        return len(self.papers) + len(self.others)

    @property
    def papers(self) -> list[PaperNote]:
        """Every paper covered, theme by theme."""
        return [n for theme in self.themes for n in theme.notes]

    def to_markdown(self) -> str:
        """The overview as Markdown, with a ``file:line`` list of the papers covered.

        Text that comes from paper files (or the model quoting them) is escaped: a Markdown link in
        an abstract shows as text, never as a link whose address is hidden.
        """
        lines = [
            f"# {md(self.topic)}: what the papers here cover",
            "",
            md(self.lead, keep_keys=True) or "_No papers on this topic._",
            "",
        ]
        for theme in self.themes:
            lines += [f"## {md(theme.name)}", ""]
            lines += [f"- **{md(n.paper.display)}**: {md(n.note)} [{n.key}]" for n in theme.notes]
            lines.append("")
        if self.themes:
            lines += ["## Papers covered", ""]
            lines += [
                f"- [{n.key}] {md(n.paper.display)} ({md(n.paper.source)}:{n.paper.line})"
                for n in self.papers
            ]
            lines.append("")
        if self.others:
            lines += [f"## {len(self.others)} more papers on this topic (not covered above)", ""]
            lines += [f"- {md(p.display)} ({md(p.source)}:{p.line})" for p in self.others]
            lines.append("")
        covered = f"{len(self.papers)} of {self.found}" if self.others else f"{len(self.papers)}"
        covered += " papers"
        lines.append(f"_{covered} · {self.model}_")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The ``summarize --format json`` document."""
        return {
            "topic": self.topic,
            "lead": self.lead,
            "themes": [
                {
                    "name": t.name,
                    "papers": [{"key": n.key, "id": n.paper.id, "note": n.note} for n in t.notes],
                }
                for t in self.themes
            ],
            "citations": [Citation(n.key, n.paper).to_dict() for n in self.papers],
            "found": self.found,
            "others": [
                {"id": p.id, "label": p.display, "source": p.source, "line": p.line} for p in self.others
            ],
            "invalid_citations": self.invalid_keys,
            "model": self.model,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def md(text: str, keep_keys: bool = False) -> str:
    """Corpus-derived text as literal Markdown, LaTeX unwrapped and math typeset as Unicode text;
    ``keep_keys`` leaves ``[KEY]`` as is.

    A bracketed key not followed by ``(`` is no link, so citations stay readable in the raw file.
    """
    if not keep_keys:
        return markdown_literal(plain_text(text, symbols=True))
    parts = KEY_GROUP.split(text)  # text, key group, text, ...
    return "".join(
        f"[{p}]" if i % 2 else markdown_literal(plain_text(p, symbols=True)) for i, p in enumerate(parts)
    )


def fully_cited(text: str, keys: dict) -> bool:
    """Every sentence carries at least one valid key (keys were already checked)."""
    sentences = cited_sentences(text)
    return bool(sentences) and all(any(k in keys for k in cited) for _, cited in sentences)


def select_papers(retriever: PaperSearch, topic: str, max_papers: int) -> list[Hit]:
    """Every paper on ``topic`` (up to ``max_papers``): the same selection as listing answers."""
    return papers_on(retriever, topic, max_papers)


def topic_request(text: str) -> tuple[str, str | None, int | None]:
    """(topic, venue, year) from what a user typed after ``summarize``: "the ICLR 2024 GNN papers"
    → ("GNN", "ICLR", 2024), as a listing question would read it."""
    intent = classify(f"Summarize {text}")
    if not intent.is_listing:
        raise BadInput(f"the topic {text!r} names no subject; name one, e.g. 'graph neural networks'")
    return intent.topic, intent.venue, intent.year


def key_sentence(paper: Paper) -> str:
    """Without an LLM: the sentence that states the contribution, else the first one."""
    sentences = split_sentences(paper.abstract)
    return next(
        (s for s in sentences if _CONTRIBUTION.search(s)), sentences[0] if sentences else paper.abstract
    )


def _cluster(vectors: list[list[float]], k: int) -> list[int]:
    """Deterministic k-means (farthest-point init) on unit vectors; fine for tens of papers."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float32)
    centers = [0]
    while len(centers) < k:
        sims = np.max(x @ x[centers].T, axis=1)
        centers.append(int(np.argmin(sims)))
    c = x[centers]
    labels = np.zeros(len(x), dtype=int)
    for _ in range(20):
        labels = np.argmax(x @ c.T, axis=1)
        for j in range(k):
            members = x[labels == j]
            if len(members):
                center = members.mean(axis=0)
                c[j] = center / max(float(np.linalg.norm(center)), 1e-9)
    return labels.tolist()


def _groups(notes: list[PaperNote], embedder, known: dict | None = None) -> list[list[PaperNote]]:
    """Notes clustered by their papers' embeddings: one group up to five papers, else 2 to 6.

    ``known`` (paper id → vector, from the index's paper table) saves embedding the abstracts again.
    """
    if len(notes) <= 5:
        return [notes] if notes else []
    if known and all(n.paper.id in known for n in notes):
        vectors = [list(known[n.paper.id]) for n in notes]
    else:
        vectors = embedder.embed_documents([n.paper.abstract for n in notes])
    k = max(2, min(6, round(math.sqrt(len(notes) / 2))))
    labels = _cluster(vectors, k)
    groups = [[n for n, label in zip(notes, labels, strict=True) if label == j] for j in range(k)]
    return [g for g in groups if g]


def group_by_theme(
    topic: str, keyed: dict[str, Paper], embedder, vectors: dict | None = None
) -> list[tuple[str, list[str]]]:
    """(theme name, keys) for a listing answer: clusters named by their distinctive terms."""
    notes = [PaperNote(key, paper, "", -n) for n, (key, paper) in enumerate(keyed.items())]
    groups = _groups(notes, embedder, vectors)
    return [(_term_name(g, notes, topic).capitalize(), [n.key for n in g]) for g in groups]


def _term_name(notes: list[PaperNote], all_notes: list[PaperNote], topic: str) -> str:
    """Name a theme by the phrases most over-represented in it (the no-LLM theme name).

    Two-word phrases from titles and first sentences read as names ("message passing", "node
    classification"); the best one, joined by the best phrase that shares no word with it:
    "Message passing and molecules", never a bag of words such as "Gnns · architectures · input".
    """
    skip = set(_words(topic)) | {w.rstrip("s") for w in _words(topic)}
    surface: dict[str, str] = {}
    inside = Counter(p for n in notes for p in _phrases(_naming_text(n.paper), skip, surface))
    everywhere = Counter(p for n in all_notes for p in _phrases(_naming_text(n.paper), skip, surface))

    def ratio(phrase: str) -> float:
        return (inside[phrase] / len(notes)) / (everywhere[phrase] / len(all_notes))

    def lift(phrase: str) -> float:
        """How over-represented ``phrase`` is in this theme, damped by its count; pairs read better."""
        return ratio(phrase) * math.log1p(inside[phrase]) * (1.5 if " " in phrase else 1.0)

    # Words every listed paper shares ("graph neural networks" in a GNN listing) name no theme.
    distinct = 1.0 if len(notes) == len(all_notes) else 1.3
    shared = [p for p in inside if inside[p] >= min(2, len(notes)) and ratio(p) >= distinct]
    pairs = sorted((p for p in shared if " " in p), key=lambda p: (-lift(p), p))
    ranked = pairs or sorted(shared, key=lambda p: (-lift(p), p))
    if not ranked:
        return "Other"
    first = ranked[0]
    second = next((p for p in ranked[1:] if not set(p.split()) & set(first.split())), None)
    name = " ".join(surface.get(w, w) for w in first.split())
    if second:
        name += " and " + " ".join(surface.get(w, w) for w in second.split())
    return name[:1].upper() + name[1:]


def _naming_text(paper: Paper) -> str:
    """Titles are noun phrases, the words people name a theme with; an untitled seed entry has its
    first sentence instead."""
    return paper.title or " ".join(split_sentences(paper.abstract)[:1])


def _phrases(text: str, skip: set[str], surface: dict[str, str]) -> set[str]:
    """The content words of ``text`` and its adjacent pairs of content words, lower-cased (acronyms
    keep their capitals in ``surface``)."""
    words = _WORD.findall(plain_text(text))
    found: set[str] = set()
    previous = None
    for word in words:
        low = word.lower()
        short = len(low) <= 3 and not word.isupper()
        if short or low in _STOP or low in skip or low.rstrip("s") in skip:
            previous = None
            continue
        if word.isupper() and len(word) <= 6:
            surface[low] = word
        found.add(low)
        if previous:
            found.add(f"{previous} {low}")
        previous = low
    return found


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(plain_text(text)) if len(w) > 3 and w.lower() not in _STOP]


class Summarizer:
    """Writes a cited overview of a topic from the papers one retriever finds, with one LLM (or none)."""

    def __init__(
        self, settings: Settings, retriever: PaperSearch, llm: LLMHandle, progress: Progress = _noop
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        self.llm = llm
        self.progress = progress

    @property
    def _budget(self) -> int:
        """Tokens one prompt may use: the context window less the reply and a safety margin."""
        return self.settings.context_tokens - self.settings.llm_max_tokens - 64

    def _call(self, template: str, **values: str) -> str:
        prompt = prompt_text(template).format(**values)
        if count_tokens(prompt) > self._budget:
            raise AssertionError(f"prompt over budget in {template}")  # guarded by the callers
        return self.llm.invoke(prompt)

    def _fit(self, text: str, reserve: int) -> str:
        """Cut ``text`` to what fits beside a template of ``reserve`` tokens."""
        from rag.index.tokens import encoding

        room = self._budget - reserve
        ids = encoding().encode(text, disallowed_special=())
        return text if len(ids) <= room else encoding().decode(ids[: max(room, 0)])

    def condense(self, topic: str, key: str, hit: Hit) -> PaperNote:
        """One sentence on what the paper contributes: the model's if it is supported, else a quote."""
        if self.llm.model is None:
            note = key_sentence(hit.paper)
        else:
            reserve = count_tokens(prompt_text("summary_note")) + count_tokens(topic)
            note = self._call(
                "summary_note", topic=topic, abstract=self._fit(plain_text(hit.paper.abstract), reserve)
            )
            note = without_keys(note.splitlines()[0] if note else "")
            if not note or unsupported_reason(note, topic, [hit.paper]):
                note = key_sentence(hit.paper)  # a quote cannot misstate the paper
        return PaperNote(key, hit.paper, note, hit.similarity or 0.0)

    def themes(self, topic: str, notes: list[PaperNote]) -> list[Theme]:
        """Group the notes by clustering their papers' embeddings, and name each group."""
        groups = _groups(notes, self.retriever.embedder)
        themes = []
        for group in sorted(groups, key=lambda g: -max(n.similarity for n in g)):
            group.sort(key=lambda n: -n.similarity)
            if self.llm.model is None or len(groups) == 1:
                name = topic.strip().capitalize() if len(groups) == 1 else _term_name(group, notes, topic)
            else:
                listing = self._fit(
                    "\n".join(f"- {n.note}" for n in group), count_tokens(prompt_text("summary_theme"))
                )
                name = (
                    self._call("summary_theme", topic=topic, notes=listing).splitlines()[0].strip(" #*\"'.")
                )
                name = name[:60] or _term_name(group, notes, topic)
            themes.append(Theme(name, group))
        return themes

    @staticmethod
    def listing_lead(topic: str, notes: list[PaperNote], themes: list[Theme]) -> str:
        """The lead without an LLM, and the fallback when the model's lead cites nothing."""
        parts = [f"{t.name} ({', '.join(f'[{n.key}]' for n in t.notes)})" for t in themes]
        if len(notes) == 1:
            return f"One paper is on {topic}: " + "; ".join(parts) + "."
        return f"{len(notes)} papers on {topic} fall into {len(themes)} theme(s): " + "; ".join(parts) + "."

    def lead(self, topic: str, notes: list[PaperNote], themes: list[Theme]) -> str:
        """The opening paragraph: reduced from the notes, in two levels when they do not fit."""
        if not notes:
            return ""
        if self.llm.model is None:
            return self.listing_lead(topic, notes, themes)
        reserve = count_tokens(prompt_text("summary_lead")) + count_tokens(topic) + 16
        listing = "\n".join(f"[{n.key}] {n.note}" for n in notes)
        if count_tokens(listing) > self._budget - reserve:
            # Reduce in two levels: one line per theme first, then the lead from those lines.
            lines = []
            for theme in themes:
                part = "\n".join(f"[{n.key}] {n.note}" for n in theme.notes)
                keys = "".join(f"[{n.key}]" for n in theme.notes[:3])
                text = self._call("summary_theme", topic=topic, notes=self._fit(part, reserve))
                lines.append(f"{text.splitlines()[0] if text else theme.name} {keys}")
            listing = "\n".join(lines)
        return self._call(
            "summary_lead", topic=topic, notes=self._fit(listing, reserve), example_key=notes[0].key
        )

    def summarize(self, topic: str, max_papers: int = 30) -> Summary:
        """Select, condense, group and write; the lead falls back to the cited listing."""
        topic, venue, year = topic_request(checked_query(topic, "topic"))
        timings: dict[str, float] = {}
        started = time.perf_counter()
        terms = subfield_terms(self.llm, topic, self.settings)  # [] without a model
        selection = self.retriever.select_topic(topic, venue=venue, year=year, expansions=terms)
        if (venue or year) and not selection.candidates:
            # no paper records the venue/year: all papers
            selection = self.retriever.select_topic(topic, expansions=terms)
        hits, others = selection.hits[:max_papers], [h.paper for h in selection.hits[max_papers:]]
        timings["select"] = time.perf_counter() - started
        self.progress("selected", len(hits), len(hits))
        keyed = assign_keys(hits)
        notes = []
        for n, (key, hit) in enumerate(zip(keyed, hits, strict=True), start=1):
            notes.append(self.condense(topic, key, hit))
            self.progress("condensed", n, len(hits))
        timings["condense"] = time.perf_counter() - started - timings["select"]
        themes = self.themes(topic, notes)
        self.progress("writing", 0, 1)
        checked = check_citations(self.lead(topic, notes, themes), keyed)
        invalid = checked.invalid
        if notes and not fully_cited(checked.text, keyed):
            # A lead with an uncited statement cannot be traced; the listing lead always can.
            checked = check_citations(self.listing_lead(topic, notes, themes), keyed)
        timings["total"] = time.perf_counter() - started
        return Summary(topic, checked.text, themes, self.llm.name, invalid, timings, others)
