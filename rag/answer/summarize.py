"""Cited overviews of a subfield: select the papers on a topic, condense, group into themes, write.

Selection is not a fixed k: retrieval with the relevance floor proposes candidates, and a check
keeps those that are about the topic (the topic's terms occur in the paper, or the dense match is
strong). Then map-reduce under the model's context budget: each paper is condensed to its key
contribution and result (map), papers are grouped into themes by clustering their embeddings,
and the lead paragraph is written from the notes (reduce; hierarchically, theme by theme, when
the notes do not fit in one prompt). Per-paper sentences carry their citation by construction;
the lead's citations are validated like ``ask``'s. Without an LLM the digest uses each paper's
key sentence and names themes by their most distinctive terms.

This module runs those steps and makes the model calls; the clustering and the no-model theme
names are :mod:`rag.answer.themes` (listing answers use them too), and the overview it returns,
with its Markdown and JSON, is :mod:`rag.answer.summary`.
"""

from __future__ import annotations

import re
import time

from rag.answer.citations import assign_keys, check_citations
from rag.answer.expansion import subfield_terms
from rag.answer.grounding import unsupported_reason
from rag.answer.intent import classify
from rag.answer.summary import PaperNote, Summary, Theme
from rag.answer.themes import cluster_notes, term_name
from rag.errors import BadInput
from rag.index.tokens import count_tokens
from rag.llm.client import LLMHandle
from rag.records import Hit, Paper, Progress
from rag.resources import prompt_text
from rag.retrieval import PaperSearch
from rag.retrieval.relevance import papers_on
from rag.settings import Settings
from rag.text import checked_query, cited_sentences, plain_text, split_sentences, without_keys

_CONTRIBUTION = re.compile(
    r"\b(?:we (?:propose|introduce|present|develop|design)|this paper|in this work)\b", re.I
)


def _noop(stage: str, done: int, total: int) -> None:
    pass


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
        groups = cluster_notes(notes, self.retriever.embedder)
        themes = []
        for group in sorted(groups, key=lambda g: -max(n.similarity for n in g)):
            group.sort(key=lambda n: -n.similarity)
            if self.llm.model is None or len(groups) == 1:
                name = topic.strip().capitalize() if len(groups) == 1 else term_name(group, notes, topic)
            else:
                listing = self._fit(
                    "\n".join(f"- {n.note}" for n in group), count_tokens(prompt_text("summary_theme"))
                )
                name = (
                    self._call("summary_theme", topic=topic, notes=listing).splitlines()[0].strip(" #*\"'.")
                )
                name = name[:60] or term_name(group, notes, topic)
            themes.append(Theme(name, group))
        return themes

    @staticmethod
    def listing_lead(topic: str, notes: list[PaperNote], themes: list[Theme], likely: int = 0) -> str:
        """The lead without an LLM, and the fallback when the model's lead cites nothing. When the
        summary covers the best ``len(notes)`` of ``likely`` papers, it says so: the number it
        opens with is read as the topic's size."""
        parts = "; ".join(f"{t.name} ({', '.join(f'[{n.key}]' for n in t.notes)})" for t in themes)
        into = "fall into one theme:" if len(themes) == 1 else f"fall into {len(themes)} themes:"
        if likely > len(notes):
            best = "The best-matching" if len(notes) == 1 else f"The {len(notes)} best-matching"
            grouped = "is on" if len(notes) == 1 else into
            return f"{best} of the {likely} papers likely on {topic} {grouped} {parts}."
        if len(notes) == 1:
            return f"One paper is on {topic}: {parts}."
        return f"{len(notes)} papers on {topic} {into} {parts}."

    def lead(self, topic: str, notes: list[PaperNote], themes: list[Theme], likely: int = 0) -> str:
        """The opening paragraph: reduced from the notes, in two levels when they do not fit."""
        if not notes:
            return ""
        if self.llm.model is None:
            return self.listing_lead(topic, notes, themes, likely)
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
        # Only papers likely on the topic are covered; those that only share its vocabulary are named.
        likely = selection.likely or selection.total
        cover = min(max_papers, likely)
        hits, others = selection.hits[:cover], [h.paper for h in selection.hits[cover:]]
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
        checked = check_citations(self.lead(topic, notes, themes, likely), keyed)
        invalid = checked.invalid
        if notes and not fully_cited(checked.text, keyed):
            # A lead with an uncited statement cannot be traced; the listing lead always can.
            checked = check_citations(self.listing_lead(topic, notes, themes, likely), keyed)
        timings["total"] = time.perf_counter() - started
        return Summary(
            topic, checked.text, themes, self.llm.name, invalid, timings, others, selection.total - likely
        )
