"""Cited overviews of a subfield: select the papers on a topic, condense, group into themes, write.

Selection is the listings' (:func:`rag.retrieval.relevance.papers_on`: the topic's core and the
papers speaking its vocabulary). Papers are grouped into themes by clustering their embeddings,
named by their titles' phrases. With a model, a summary keeps to a time budget
(``summary_seconds``, :meth:`Summarizer._within`): one sentence per theme from its titles, cited
to the theme's papers it is about, then the best papers condensed while the next call fits; the
others keep their own key sentence. With no budget (0), every paper is condensed to its key
contribution (map) and the lead is written from the notes (reduce; theme by theme when they do
not fit one prompt), its citations validated like ``ask``'s. A model that fails is not called
again in either flow: quotes, the themes' own names and the listing's lead stand in for what it
would have written. Per-paper sentences carry their citation by construction. Without an LLM the
digest uses each paper's key sentence.

This module runs those steps and makes the model calls; the clustering and the no-model theme
names are :mod:`rag.answer.themes` (listing answers use them too), and the overview it returns,
with its Markdown and JSON, is :mod:`rag.answer.summary`.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from rag.answer.citations import assign_keys, check_citations
from rag.answer.expansion import subfield_terms
from rag.answer.grounding import unsupported_reason
from rag.answer.intent import classify
from rag.answer.listing import select_on
from rag.answer.summary import PaperNote, Summary, Theme
from rag.answer.themes import UNNAMED, named_groups
from rag.errors import BadInput, CitelineError
from rag.index.tokens import count_tokens
from rag.llm.client import LLMHandle
from rag.records import Hit, Paper, Progress
from rag.resources import prompt_text
from rag.retrieval import PaperSearch
from rag.retrieval.relevance import papers_on
from rag.settings import Settings
from rag.text import (
    RESEARCH_FILLER,
    STOP_WORDS,
    checked_query,
    cited_sentences,
    plain_text,
    sentence_role,
    split_sentences,
    stem_terms,
    without_keys,
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
    """Without an LLM: the first sentence that states the contribution, else the first in the
    authors' voice, else the first one (:func:`rag.text.sentence_role`)."""
    sentences = split_sentences(paper.abstract)
    return min(sentences, key=sentence_role) if sentences else paper.abstract


# What one model call costs on the machine this was built for (2 Zen 3 cores, the embedded 1.5B
# model): ~28 ms a prompt token read, ~85 ms a token written. Only a first guess: a summary's
# later calls are timed as they run.
T = TypeVar("T")
_READ_SECONDS = 0.028
_WRITE_SECONDS = 0.085
_NOTE_TOKENS = 60  # one sentence of at most 40 words


def _cost(prompt_tokens: int, written: int) -> float:
    """Seconds a call reading ``prompt_tokens`` and writing ``written`` tokens is guessed to take."""
    return prompt_tokens * _READ_SECONDS + written * _WRITE_SECONDS


class _Budget:
    """The model's calls of one summary, kept to a deadline: a call is made only when it is
    guessed to end by then (the median of the last three of its kind, or a first guess from its
    size: one slow call on a busy machine does not stop every later one, as the slowest of three
    would), and none after one has failed (a model down or hung is not waited for again)."""

    def __init__(self, deadline: float, failed: bool = False) -> None:
        self.deadline = deadline
        self.spent: dict[str, list[float]] = {}
        self.failed = failed

    def fits(self, kind: str, guess: float) -> bool:
        """A call of ``kind`` is guessed to end by the deadline, and the model has not failed."""
        spent = self.spent.get(kind)
        return (
            not self.failed
            and time.perf_counter() + (statistics.median(spent[-3:]) if spent else guess) <= self.deadline
        )

    def run(self, kind: str, call: Callable[[], T]) -> T | None:
        """``call()``, timed as one of ``kind``; None when the model failed (now or before)."""
        if self.failed:
            return None
        now = time.perf_counter()
        try:
            return call()
        except CitelineError:
            self.failed = True
            return None
        finally:
            self.spent.setdefault(kind, []).append(time.perf_counter() - now)


_GROUP_TOKENS = 64  # a theme's sentence: at most 25 words
_TITLE_CHARS = 200  # a title longer than this is no title (nor an instruction the model should read)
# Model text that would be more than a sentence in a Markdown lead: a bracket (a key or a link's
# text), markup, a URL. A title can ask the model for it; no sentence on a theme needs it.
_NOT_PROSE = re.compile(r"[\[\]<>`|*_#]|\]\(|https?:|www\.", re.I)


def _titles(theme: Theme) -> str:
    """A theme's titles, one per line, as the theme prompt quotes them (its length guesses a call's cost)."""
    return "\n".join(
        f"- {(plain_text(n.paper.title) or key_sentence(n.paper))[:_TITLE_CHARS]}" for n in theme.notes
    )


def _holding(sentence: str, topic: str, name: str, papers: list[Paper]) -> list[int]:
    """The papers (indices) a sentence on their theme may cite: those whose own title and abstract
    write one of its words beyond the topic's, the theme's name and filler, and say nothing
    against it. A sentence the group supports only read together (one paper's words, the others
    cited with it) is cited to the papers it is about, not to every paper of the theme."""
    from rag.answer.check import contradiction

    general = set(stem_terms(f"{topic} {name}", STOP_WORDS, min_length=3))
    words = set(stem_terms(sentence, STOP_WORDS | RESEARCH_FILLER, min_length=3)) - general
    holding = []
    for i, paper in enumerate(papers):
        text = plain_text(f"{paper.title}. {paper.abstract}")
        if words & set(stem_terms(text, STOP_WORDS, min_length=3)) and not contradiction(
            sentence, split_sentences(text)
        ):
            holding.append(i)
    return holding


def _theme_line(theme: Theme, said: str, about: list[PaperNote]) -> str:
    """A theme's part of the lead: its name and the model's sentence cited to the papers it is
    about (the keys before its full stop), the theme's others after it; its name and keys alone
    when the model wrote none."""
    if not said:
        return f"{theme.name}: {''.join(f'[{n.key}]' for n in theme.notes)}."
    line = f"{theme.name}: {said.rstrip('.')} {''.join(f'[{n.key}]' for n in about)}."
    rest = "".join(f"[{n.key}]" for n in theme.notes if n not in about)
    return f"{line} See also {rest}." if rest else line


def _quoted(key: str, hit: Hit) -> PaperNote:
    """A paper's note before any model writes one: its own key sentence."""
    return PaperNote(key, hit.paper, key_sentence(hit.paper), hit.similarity or 0.0)


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

    def _call(self, template: str, max_tokens: int | None = None, **values: str) -> str:
        prompt = prompt_text(template).format(**values)
        if count_tokens(prompt) > self._budget:
            raise AssertionError(f"prompt over budget in {template}")  # guarded by the callers
        return self.llm.invoke(prompt, max_tokens=max_tokens)

    def _fit(self, text: str, reserve: int) -> str:
        """Cut ``text`` to what fits beside a template of ``reserve`` tokens."""
        from rag.index.tokens import encoding

        room = self._budget - reserve
        ids = encoding().encode(text, disallowed_special=())
        return text if len(ids) <= room else encoding().decode(ids[: max(room, 0)])

    def rewrite(self, topic: str, note: PaperNote) -> None:
        """The model's sentence on the note's paper in its place, when the paper supports it (a
        quote cannot misstate the paper, so the key sentence stays otherwise)."""
        reserve = count_tokens(prompt_text("summary_note")) + count_tokens(topic)
        text = self._call(
            "summary_note",
            max_tokens=_NOTE_TOKENS,
            topic=topic,
            abstract=self._fit(plain_text(note.paper.abstract), reserve),
        )
        text = without_keys(text.splitlines()[0] if text else "")
        if text and not unsupported_reason(text, topic, [note.paper]):
            note.note, note.written = text, True

    def themes(self, topic: str, notes: list[PaperNote], by_model: bool = True) -> list[Theme]:
        """Group the notes as listings do (:func:`named_groups`: clusters of their papers'
        embeddings, named by their titles' phrases); with a model and ``by_model``, it names each
        group instead."""
        if not notes:
            return []
        whole = topic.strip()[:1].upper() + topic.strip()[1:]  # "LLM safety" stays so
        named = named_groups(topic, notes, self.retriever.embedder) or [(whole, notes)]
        themes = []
        for term, group in sorted(named, key=lambda g: (g[0] == UNNAMED, -max(n.similarity for n in g[1]))):
            group.sort(key=lambda n: -n.similarity)
            if self.llm.model is None or not by_model or len(named) == 1 or term == UNNAMED:
                name = term
            else:
                listing = self._fit(
                    "\n".join(f"- {n.note}" for n in group), count_tokens(prompt_text("summary_theme"))
                )
                name = (
                    self._call("summary_theme", topic=topic, notes=listing).splitlines()[0].strip(" #*\"'.")
                )
                name = name[:60] or term
            themes.append(Theme(name, group))
        return themes

    @staticmethod
    def listing_lead(topic: str, notes: list[PaperNote], themes: list[Theme], likely: int = 0) -> str:
        """The lead without an LLM, and the fallback when the model's lead cites nothing. When the
        summary covers the best ``len(notes)`` of ``likely`` papers, it says so: the number it
        opens with is read as the topic's size."""
        parts = "; ".join(f"{t.name} ({', '.join(f'[{n.key}]' for n in t.notes)})" for t in themes)
        return Summarizer.listing_opening(topic, notes, themes, likely, parts)

    @staticmethod
    def listing_opening(
        topic: str, notes: list[PaperNote], themes: list[Theme], likely: int = 0, parts: str = ""
    ) -> str:
        """How many papers the summary covers, of how many, in how many themes; ``parts`` (the
        themes with their keys) after a colon, if given."""
        into = "fall into one theme" if len(themes) == 1 else f"fall into {len(themes)} themes"
        if likely > len(notes):
            best = "The best-matching" if len(notes) == 1 else f"The {len(notes)} best-matching"
            grouped = "is on" if len(notes) == 1 else into
            opening = f"{best} of the {likely} papers likely on {topic} {grouped}"
        elif len(notes) == 1:
            opening = f"One paper is on {topic}"
        else:
            opening = f"{len(notes)} papers on {topic} {into}"
        if not parts:
            return (
                f"{opening.removesuffix(' is on')} is covered."
                if opening.endswith(" is on")
                else f"{opening}."
            )
        return f"{opening}{'' if opening.endswith(' is on') else ':'} {parts}."

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

    def _within(
        self,
        topic: str,
        keyed: dict[str, Paper],
        hits: list[Hit],
        likely: int,
        deadline: float,
        timings: dict[str, float],
    ) -> tuple[list[Theme], str]:
        """(themes, lead) with a model by ``deadline`` (``summary_seconds`` from the start).

        One call per paper was most of a summary's time: 30 papers took 262 s on 2 cores (193 s
        condensing, then a call per theme and the lead, which, reading 30 notes, cited too little
        and was replaced by the listing's; given the 30 titles instead, the 1.5B model looped over
        their keys). So every paper starts with its key sentence and the themes with their title
        phrases; the model writes one sentence per theme from its titles (checked against the
        theme's papers together, then cited to those it is about, :func:`_holding`; the others
        follow as "See also"), then condenses the best papers, in order, while the next call
        fits. A model that fails is not called again: what was built stands."""
        notes = [_quoted(key, hit) for key, hit in zip(keyed, hits, strict=True)]
        if not notes:
            return [], ""
        themes = self.themes(topic, notes, by_model=False)
        self.progress("writing", 0, 1)
        mark = time.perf_counter()
        budget = _Budget(deadline)
        group_prompt = count_tokens(prompt_text("summary_group")) + count_tokens(topic)
        sentences = [self.listing_opening(topic, notes, themes, likely)]
        for theme in themes:
            said, about = "", []
            # A theme of one paper has its paper's own sentence in its section: no call for it.
            if theme.name != UNNAMED and len(theme.notes) > 1:
                guess = _cost(count_tokens(_titles(theme)) + group_prompt, _GROUP_TOKENS)
                if budget.fits("theme", guess):
                    said, about = budget.run("theme", partial(self.group_sentence, topic, theme)) or ("", [])
            sentences.append(_theme_line(theme, said, about))
        lead = " ".join(sentences)
        timings["lead"] = time.perf_counter() - mark
        mark = time.perf_counter()
        reserve = count_tokens(prompt_text("summary_note")) + count_tokens(topic)
        for n, note in enumerate(notes, start=1):
            if not budget.fits("note", _cost(count_tokens(note.paper.abstract) + reserve, _NOTE_TOKENS)):
                break  # the notes built so far stand: the others keep their key sentence
            budget.run("note", partial(self.rewrite, topic, note))
            self.progress("condensed", n, len(notes))
        timings["condense"] = time.perf_counter() - mark
        return themes, lead

    def group_sentence(self, topic: str, theme: Theme) -> tuple[str, list[PaperNote]]:
        """The model's sentence on what a theme's papers work on, from their titles, and the
        notes of the papers it is about (:func:`_holding`); ("", []) when it is no single plain
        sentence, the papers together do not support it, or it is about under half of them."""
        reserve = count_tokens(prompt_text("summary_group")) + count_tokens(topic) + count_tokens(theme.name)
        text = self._call(
            "summary_group",
            max_tokens=_GROUP_TOKENS,
            topic=topic,
            name=theme.name,
            titles=self._fit(_titles(theme), reserve),
        )
        text = (text.splitlines()[0] if text else "").strip()
        papers = [n.paper for n in theme.notes]
        if (
            not text
            or _NOT_PROSE.search(text)
            or len(split_sentences(text)) != 1
            or unsupported_reason(text, topic, papers, together=True)
        ):
            return "", []
        about = [theme.notes[i] for i in _holding(text, topic, theme.name, papers)]
        if len(about) < max(2, (len(papers) + 1) // 2) or unsupported_reason(
            text, topic, [n.paper for n in about], together=True
        ):  # the papers it is cited to must hold it, not only the theme's others
            return "", []
        return text, about

    def summarize(self, topic: str, max_papers: int = 30) -> Summary:
        """Select, condense, group and write; the lead falls back to the cited listing."""
        topic, venue, year = topic_request(checked_query(topic, "topic"))
        timings: dict[str, float] = {}
        started = time.perf_counter()
        try:
            # [] without a model, and over a short list, where topic selection does not read them
            expanding = self.retriever.uses_expansions()
            terms = subfield_terms(self.llm, topic, self.settings, strict=True) if expanding else []
            answering = self.llm.model is not None
        except CitelineError:  # a model that failed once (down, hung) is not waited for again
            terms, answering = [], False
        # The topic's venue and year ("at NeurIPS 2019") scope it as a listing's: all papers when
        # none records one, nothing (and a note saying so) when none matches. (--venue and --year
        # filter inside select_topic; the CLI says when they leave nothing, as for ask.)
        topic, selection, _, scope = select_on(
            topic,
            venue,
            year,
            lambda on, venue, year: self.retriever.select_topic(on, venue=venue, year=year, expansions=terms),
            self.retriever,
            instead="covered",
        )
        if selection is None:  # papers record venues or years, and none is the one asked for
            return Summary(topic, scope, [], self.llm.name)
        if not selection.hits:
            return Summary(topic, f"No indexed paper is on {topic}.", [], self.llm.name, scope=scope)
        # Only papers likely on the topic are covered; those that only share its vocabulary are named.
        likely = selection.likely or selection.total
        cover = min(max_papers, likely)
        hits, others = selection.hits[:cover], [h.paper for h in selection.hits[cover:]]
        timings["select"] = time.perf_counter() - started
        self.progress("selected", len(hits), len(hits))
        keyed = assign_keys(hits)
        budget = self.settings.summary_seconds if self.llm.model is not None else 0.0
        if budget:
            deadline = started + budget if answering else 0.0  # no time left for a failed model
            themes, lead = self._within(topic, keyed, hits, likely, deadline, timings)
        else:
            # No deadline, but a model that fails is not called again: what was written stands,
            # quotes, the listing's theme names and its lead stand in for the rest.
            calls = _Budget(math.inf, failed=not answering)  # no model, or its terms call failed
            notes = []
            for n, (key, hit) in enumerate(zip(keyed, hits, strict=True), start=1):
                notes.append(note := _quoted(key, hit))
                calls.run("note", partial(self.rewrite, topic, note))
                self.progress("condensed", n, len(hits))
            timings["condense"] = time.perf_counter() - started - timings["select"]
            themes = calls.run("themes", partial(self.themes, topic, notes)) or self.themes(
                topic, notes, by_model=False
            )
            self.progress("writing", 0, 1)
            lead = calls.run("lead", partial(self.lead, topic, notes, themes, likely))
            if lead is None:
                lead = self.listing_lead(topic, notes, themes, likely)
        notes = [n for theme in themes for n in theme.notes]
        checked = check_citations(lead, keyed)
        invalid = checked.invalid
        # A lead within the budget is cited theme by theme as it is built; the model's own lead
        # must cite every sentence.
        if notes and not budget and not fully_cited(checked.text, keyed):
            # A lead with an uncited statement cannot be traced; the listing lead always can.
            checked = check_citations(self.listing_lead(topic, notes, themes, likely), keyed)
        timings["total"] = time.perf_counter() - started
        return Summary(
            topic,
            checked.text,
            themes,
            self.llm.name,
            invalid,
            timings,
            others,
            selection.total - likely,
            budgeted=bool(budget),
            scope=scope,
        )
