"""Answers to listing questions: every paper on the topic, one cited line each.

"Which papers study watermarking?" wants all of them, not the four a fixed top-k retrieved, and
not a model's guess at how to enumerate. The papers come from topic selection (the same as
``summarize``), each line quotes the paper's sentence that states what it contributes, and with
more than ``listing_group_above`` papers (a setting) the lines are grouped into themes. No LLM is
involved, so a listing answer is as fast and as grounded with the embedded model as with
``--llm none``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from rag.answer.evidence import PaperEvidence, Sentence, cite, gather
from rag.answer.themes import group_by_theme
from rag.retrieval.relevance import TermWeights, respelled
from rag.text import QUESTION_GRAMMAR, lexical_terms, papers_count, sentence_role, share_vocabulary, stems_of

if TYPE_CHECKING:
    from rag.index.embeddings import Embedder
    from rag.records import Paper
    from rag.retrieval import PaperSearch
    from rag.retrieval.topics import TopicSelection
    from rag.settings import AnswerSettings


def _line(evidence: PaperEvidence, tail: bool = False, each: frozenset[str] | None = None) -> str:
    """One paper: its name, then the sentence that states what it contributes.

    A paper likely on the topic is on it (topic selection decided that); its line tells a reader
    scanning the subfield what the paper does. So a sentence stating a contribution comes first,
    then one in the authors' voice, then any other; among those, the one matching the question
    best, then the earliest. Matching the question first picked the abstract's opening
    ("Graph-structured data are ubiquitous.") for half the papers of a listing: when the title
    names the topic, every sentence holds its words. Measured against the authors' TL;DRs
    (bench/listing_lines.py). A paper of the ``tail`` (only sharing some of the topic's
    vocabulary) shows the sentence holding most of the question's words: why it is listed at all.

    A question asking something of ``each`` paper ("…, and how do they evaluate it?") is answered
    in the paper's own words too: the line adds, in reading order, the other sentence holding
    most of ``each`` (the stems of what is asked of each paper: "evalu"), then matching the
    question best. The contribution alone often leaves it out ("a plug-and-play watermarking
    framework" does not say it marks audio).

    A seed entry's label is often its own first sentence, cut; then the sentence alone is shown,
    except on a line for ``each``, where the label still says what the paper is about ("Reliable
    watermarking of panoramic imagery is…" when the sentences shown say how) unless a shown
    sentence starts with it.
    """
    if not evidence.sentences:
        return f"- {evidence.paper.display} [{evidence.key}]"
    best = min(
        evidence.sentences,
        key=lambda s: (-s.coverage if tail else 0.0, sentence_role(s.text), -s.score, s.position),
    )
    shown = [best]
    others = [s for s in evidence.sentences if s is not best]
    if each is not None and others:

        def answering(s: Sentence) -> tuple[int, float, int]:  # most of what is asked, then the best
            return len(each.intersection(lexical_terms(s.text))), s.score, -s.position

        second = max(others, key=answering)
        shown = sorted([best, second], key=lambda s: s.position)
    text = " ".join(cite(s.text, evidence.key) for s in shown)
    label = evidence.paper.display
    repeated = any(s.text.startswith(label.rstrip("…")) for s in shown)
    if repeated or (label.endswith("…") and each is None):
        return f"- {text}"
    return f"- {label}: {text}"


# Words that ask of each paper without saying what: "what kind of asset does each one mark?"
_EACH_WORDS = frozenset(lexical_terms("each one paper papers work kind type sort"))


# How each paper is evaluated is told in the words of its experiments.
_EVALUATED = frozenset(lexical_terms("evaluate evaluation evaluated test tested validate validated"))
_EVALUATION = frozenset(lexical_terms("experiments experimental benchmark benchmarks results empirically"))


# The heading of a listing's papers beyond the likely ones (rag/retrieval/topics.py likely_first).
VOCABULARY_ONLY = "Sharing some of its vocabulary"


def _head(text: str, *notes: str) -> str:
    """A listing's first line: ``text``, its notes (those given) in one parenthesis, a colon."""
    said = "; ".join(note for note in notes if note)
    return f"{text} ({said}):" if said else f"{text}:"


def listing_head(
    topic: str,
    shown: int,
    found: int | None = None,
    where: str = "",
    likely: int | None = None,
    note: str = "",
) -> str:
    """ "81 papers on graph neural networks at ICLR 2024 (showing 30; --all or -n N shows more):",
    or, when only the first ``likely`` of them are likely on it, "79 papers likely on GNN at ICLR
    2022, and 119 more that share some of its vocabulary (...):"; ``note`` (why the venue was not
    applied) comes first in the parenthesis."""
    found = shown if found is None else found
    place = f" {where}" if where else ""
    if likely and likely < found:
        head = f"{papers_count(likely)} likely on {topic}{place}, and {share_vocabulary(found - likely)}"
    else:
        head = f"{papers_count(found)} on {topic}{place}"
    more = f"showing the {shown} closest; --all or -n N shows more" if found > shown else ""
    return _head(head, note, more)


def listing_answer(
    question: str,
    topic: str,
    keyed: dict[str, Paper],
    embedder: Embedder,
    weights: TermWeights,
    found: int | None = None,
    where: str = "",
    vectors: dict | None = None,
    likely: int | None = None,
    note: str = "",
    each: str = "",
    *,
    tuning: AnswerSettings,
) -> str:
    """A short cited answer: a count, then one line per paper (grouped when there are many).

    Each line's sentence is chosen by its role and terms (:func:`_line`; no embedding); themes
    cluster the papers' stored vectors (``vectors``, paper id → unit vector) when the retriever
    gave them. ``keyed`` is best first; when only its first ``likely`` papers are likely on the
    topic, the others follow under their own heading, after the themes.
    """
    evidence = gather(question, keyed, None, weights, per_paper=None, tuning=tuning)
    keys = list(keyed)
    first, rest = (keys[:likely], keys[likely:]) if likely else (keys, [])
    beyond = set(rest)
    asked = frozenset(lexical_terms(each)) - stems_of(QUESTION_GRAMMAR) - _EACH_WORDS if each else None
    if asked and _EVALUATED & asked:  # "how do they evaluate it?": where papers report it
        asked |= _EVALUATION
    lines = {e.key: _line(e, tail=e.key in beyond, each=asked) for e in evidence}
    head = listing_head(topic, len(keyed), found, where, likely, note)

    def shown(group: list[str]) -> list[str]:
        # No paper had a sentence (gather returns nothing): each is still listed by its name.
        return [lines.get(k) or f"- {keyed[k].display} [{k}]" for k in group]

    tail = [f"{VOCABULARY_ONLY}:", *shown(rest)] if rest else []
    many = len(first) > tuning.listing_group_above
    themes = group_by_theme(topic, {k: keyed[k] for k in first}, embedder, vectors) if many else []
    if not themes:
        return "\n".join([head, *shown(first), *tail])
    parts = [head]
    for name, group in themes:
        parts += [f"{name}:", *shown(group)]
    return "\n".join([*parts, *tail])


def catalogue_answer(
    keyed: dict[str, Paper], found: int, where: str = "", note: str = "", author: str = ""
) -> str:
    """What the collection holds, for a question on no topic: "57 papers are indexed at ICML 2026
    (the first 30 shown; --all or -n N for more, `citeline papers list` for all):", then each paper
    by name with its citation, in the order given (their lists' order: file, then line). With
    ``author``, the papers are that person's: "7 papers by Yejin Choi are indexed:"."""
    verb = "is" if found == 1 else "are"
    place = f" {where}" if where else ""
    by = f" by {author[:80]}" if author else ""  # as the user wrote it: words, initials, apostrophes
    more = (
        f"the first {len(keyed)} shown; --all or -n N for more, `citeline papers list` for all"
        if found > len(keyed)
        else ""
    )
    head = _head(f"{papers_count(found)}{by} {verb} indexed{place}", note, more)
    return "\n".join([head, *(f"- {paper.display} [{key}]" for key, paper in keyed.items())])


_Found = TypeVar("_Found")


def in_place(
    venue: str | None,
    year: int | None,
    run_in: Callable[[str | None, int | None], _Found],
    found: Callable[[_Found], bool],
    retriever: PaperSearch,
    instead: str = "searched",
) -> tuple[_Found | None, str, str]:
    """``run_in(venue, year)`` with the venue and year the question names; with it, where the
    answer says it looked ("at ICLR 2024", "from 2024") and a note. When no indexed paper records
    a venue or a year at all (a seed list has no venue field), it runs over every paper instead
    and the note says so ("…, so all are ``instead``"). When papers record them but none matches
    ("ICML 2025" in an ICML 2026 list), there is nothing to run: None, and the note is the answer,
    saying what the papers are from. Listings, catalogues and summaries scope alike."""
    place = " ".join(str(x) for x in (venue, year) if x)
    result = run_in(venue, year)
    if not place:
        return result, "", ""
    if found(result):
        return result, f"at {place}" if venue else f"from {place}", ""
    venues, years = retriever.venues(), retriever.years()
    if (venue and venues) or (year and years):
        held = ", ".join(venues[:6]) + (", …" if len(venues) > 6 else "")
        span = f"{years[0]}–{years[-1]}" if len(years) > 1 else "".join(map(str, years))
        held = f"{held} ({span})" if held and span else held or span
        return None, "", f"No indexed paper is from {place}; the papers here are from {held}."
    return run_in(None, None), "", f"no indexed paper records {place}, so all are {instead}"


def select_on(
    topic: str,
    venue: str | None,
    year: int | None,
    select: Callable[[str, str | None, int | None], TopicSelection],
    retriever: PaperSearch,
    instead: str = "searched",
) -> tuple[str, TopicSelection | None, str, str]:
    """:func:`in_place` for a topic's selection (``select(topic, venue, year)``), and the topic
    selected on. A misspelled word of the topic ("contrastive lerning", "graph nueral networks";
    see :func:`rag.retrieval.relevance.respelled`) matches no paper and blurs the topic's meaning:
    the respelled topic is selected instead, and the note says how it was read ("read “lerning”
    as “learning”"); if that finds nothing, the topic as written is. Listings and summaries alike."""

    def run(on: str) -> tuple[TopicSelection | None, str, str]:
        found = lambda selection: bool(selection.candidates)  # noqa: E731
        return in_place(venue, year, lambda v, y: select(on, v, y), found, retriever, instead)

    fixed, typos = respelled(topic, retriever.term_weights)
    if typos:
        selection, where, note = run(fixed)
        if selection is not None and selection.hits:
            read = "read " + ", ".join(f"“{typo}” as “{word}”" for typo, word in typos.items())
            return fixed, selection, where, "; ".join(part for part in (read, note) if part)
    return (topic, *run(topic))
