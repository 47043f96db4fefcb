"""Is this paper relevant to the question? Decided per paper, from several kinds of evidence.

No fixed cosine floor separates answerable from unanswerable questions (measured with MiniLM and
two larger embedders: the right paper of one question often scores below a wrong paper of
another). So a paper is judged on what it shares with the question:

- **lexical coverage**: the share of the question's terms the paper contains, each weighted by
  its inverse document frequency in the collection, so "watermarking" counts for more than
  "model", and a term no paper has (GPT-5, MMLU) pulls every paper's coverage down;
- **names**: a rare term of the question (a method name in any casing: ``adalina``, ``Anchors``,
  ``OPUS``) found in the paper is an exact match, the strongest evidence there is; so is a name
  the question writes in a coined shape (``TraCeS``, ``C^3``: :func:`rag.text.coined_names`) that
  the paper writes the same way and few candidates share, whatever word its stem spells;
- **dense similarity**, which carries paraphrases that share no words.

Thresholds are calibrated on the dev split (``eval/icml2026-dev.jsonl``) and reported on the
frozen test split.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from rag.text import (
    coined_names,
    has_name,
    has_phrase,
    is_english_word,
    lexical_sequence,
    lexical_terms,
    one_edit,
    opens_sentence,
)

if TYPE_CHECKING:
    from rag.records import Hit, Paper
    from rag.retrieval import PaperSearch
    from rag.settings import RetrievalSettings


@dataclass(frozen=True)
class TermWeights:
    """Inverse document frequencies of a query's terms in the collection searched."""

    weights: dict[str, float]
    rare: frozenset[str]  # terms so rare in the collection that a match is a name match
    absent: frozenset[str] = frozenset()  # terms no chunk contains
    coined: frozenset[str] = frozenset()  # the query's coined names few candidates write

    @classmethod
    def from_counts(
        cls, terms: Iterable[str], df: dict[str, int], total: int, tuning: RetrievalSettings
    ) -> TermWeights:
        """BM25's IDF per term; a term no chunk contains gets the highest weight of all. A term in
        at most ``tuning.rare_term_share`` of the chunks (and ``rare_term_max``) is a name."""
        total = max(total, 1)
        weights = {t: math.log(1 + (total - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in terms}
        limit = min(tuning.rare_term_max, max(2, round(tuning.rare_term_share * total)))
        rare = frozenset(t for t in weights if 0 < df.get(t, 0) <= limit)
        return cls(weights, rare, frozenset(t for t in weights if not df.get(t, 0)))


@dataclass(frozen=True)
class Phrases:
    """How many papers of a collection use each word and each pair of adjacent words (stemmed
    title, label and abstract): which two words are one of the field's terms ("imitation
    learning", "LoRA modules") rather than two words that met ("trained by").

    A pair is a term when at least ``least`` papers write it and at least ``bound`` of the papers
    using its first word use it there: "imitation" mostly comes before "learning", "craft" before
    anything. Its first word must also be in at most ``specific`` of the papers: "deep learning"
    is no method a claim could swap, while "reinforcement learning" (in 11-25% of the papers of
    ICML, ICLR, NeurIPS and CoRL) is. Only pairs written by ``least`` papers are kept (a 2,600-paper
    conference: 3 MB rather than 21).
    """

    papers: int
    words: dict[str, int]
    pairs: dict[tuple[str, str], int]
    least: int = 2
    bound: float = 0.3
    specific: float = 0.3

    @classmethod
    def from_sequences(cls, sequences: Iterable[Sequence[str]]) -> Phrases:
        """Counts over papers given as their stemmed terms in order (a paper table's ``terms``)."""
        words: Counter[str] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        papers = 0
        for terms in sequences:
            papers += 1
            words.update(set(terms))
            pairs.update(set(pairwise(terms)))
        kept = {pair: n for pair, n in pairs.items() if n >= cls.least}
        return cls(papers, {first: words[first] for first, _ in kept}, kept)

    @classmethod
    def from_papers(cls, papers: Iterable[Paper]) -> Phrases:
        """Counts over papers, read as the paper table reads them."""
        return cls.from_sequences(lexical_sequence(paper_text(p)) for p in papers)

    def is_term(self, first: str, head: str) -> bool:
        """``first head`` is one of the collection's two-word terms (see the class)."""
        together, alone = self.pairs.get((first, head), 0), self.words.get(first, 0)
        return together >= self.least and together >= self.bound * alone and self.is_specific(first)

    def is_specific(self, first: str) -> bool:
        """``first`` is in at most ``specific`` of the papers: "deep" in "deep RL" names no method."""
        return self.words.get(first, 0) <= self.specific * self.papers


@dataclass(frozen=True)
class Relevance:
    """What one paper shares with a question."""

    coverage: float  # IDF-weighted share of the question's terms found in the paper
    names: tuple[str, ...]  # rare question terms found in the paper (exact matches)
    similarity: float
    phrase: bool = False  # the query's terms occur in the paper as one phrase, in order

    def is_relevant(self, settings: RetrievalSettings) -> bool:
        """The ask-time decision: a name match, a strong dense match, or shared weighted terms."""
        return (
            bool(self.names)
            or self.similarity >= settings.strong_similarity
            or (self.similarity >= settings.min_similarity and self.coverage >= settings.min_coverage)
        )


_NAME_TOKEN = re.compile(r"[A-Za-z0-9][\w\-.@]*[\w]")


def name_terms(text: str) -> set[str]:
    """Lexical terms of the name-like tokens of ``text``: capitals inside, or first in a word
    that starts no sentence, digits, or all capitals (CIFAR-10, MMLU, GPT-5, OptFS, Anchors
    mid-sentence; not "Besides" opening a question's second sentence)."""
    names = []
    for match in _NAME_TOKEN.finditer(text):
        token = match.group(0)
        inner_caps = any(c.isupper() for c in token[1:])
        opens = opens_sentence(text[: match.start()])
        if inner_caps or any(c.isdigit() for c in token) or (not opens and token[0].isupper()):
            names.append(token)
    return set(lexical_terms(" ".join(names)))


# Names with a version or size in them: GPT-5, Llama-3-8B, CIFAR-10, FPR@95.
_COMPOUND = re.compile(r"[\w.@]+(?:-[\w.@]+)*")


def compounds_of(text: str) -> dict[str, list[str]]:
    """Term → the hyphenated or alphanumeric tokens of ``text`` it comes from ("gpt" → ["gpt-5"]):
    a name like GPT-5 matches a paper only whole, never through its part "GPT" (GPT-2)."""
    found: dict[str, list[str]] = {}
    for token in _COMPOUND.findall(text):
        if not (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)):
            continue
        for term in lexical_terms(token):
            found.setdefault(term, []).append(token.lower().strip("."))
    return found


def name_matches(query: str, terms: Iterable[str], paper_text: str, weights: TermWeights) -> tuple[str, ...]:
    """The rare terms of ``query`` that ``paper_text`` contains, each whole (see :func:`compounds_of`)."""
    compounds = compounds_of(query)
    lowered = paper_text.lower()
    present = set(lexical_terms(paper_text))
    return tuple(
        sorted(
            t for t in set(terms) & weights.rare
            if t in present and all(c in lowered for c in compounds.get(t, ()))
        )
    )  # fmt: skip


def with_coined(
    weights: TermWeights, query: str, candidates: Iterable[str], tuning: RetrievalSettings
) -> TermWeights:
    """``weights`` knowing which coined names of ``query`` are rare among the ``candidates``' texts.

    The lexical index only knows stems ("TraCeS" is counted as the common "trace"), so a coined
    name's rarity is judged on the candidates retrieved for the query, written as the query
    writes it: a name when at most ``tuning.coined_name_max`` of them write it ("TraCeS": one; a
    benchmark every candidate evaluates on, like "ImageNet", is not evidence of one paper).
    """
    names = coined_names(query)
    if not names:
        return weights
    texts = list(candidates)
    rare = frozenset(n for n in names if sum(has_name(t, n) for t in texts) <= tuning.coined_name_max)
    return replace(weights, coined=rare)


def paper_text(paper: Paper) -> str:
    """A paper's title, label and abstract: what judging and the paper table read of it."""
    return f"{paper.title} {paper.label} {paper.abstract}"


def paper_terms(paper: Paper) -> set[str]:
    """The lexical terms of a paper's title, label and abstract."""
    return set(lexical_terms(paper_text(paper)))


def coverage(terms: Iterable[str], present: set[str], weights: TermWeights) -> float:
    """IDF-weighted share of ``terms`` that occur in ``present``."""
    wanted = {t: weights.weights.get(t, 1.0) for t in terms}
    total = sum(wanted.values())
    return sum(w for t, w in wanted.items() if t in present) / total if total else 0.0


def judge(
    query: str, query_terms: list[str], paper: Paper, similarity: float | None, weights: TermWeights
) -> Relevance:
    """How ``paper`` relates to ``query`` (whose lexical terms are ``query_terms``)."""
    text = f"{paper.title} {paper.label} {paper.abstract}"
    names = name_matches(query, query_terms, text, weights)
    names += tuple(sorted(n for n in weights.coined if has_name(text, n)))
    phrase = has_phrase(lexical_sequence(query), lexical_sequence(text))
    return Relevance(coverage(query_terms, paper_terms(paper), weights), names, similarity or 0.0, phrase)


# Words a topic is phrased with that no paper needs to contain: "new reward models".
_TOPIC_FILLER = re.compile(
    r"\b(?:new|novel|recent|proposed|existing|methods?|approaches|techniques?|papers?|works?)\b", re.I
)


# What is left in front of a topic once its filler is gone ("methods for pruning" → "for pruning").
_LEFT_IN_FRONT = re.compile(r"^(?:for|to|of|on|in)\s+(?=\S)", re.I)


def topic_of(text: str) -> str:
    """A listing topic without its filler words (``watermarking methods`` → ``watermarking``,
    ``approaches to federated learning`` → ``federated learning``)."""
    unfilled = " ".join(_TOPIC_FILLER.sub(" ", text).split())
    if _TOPIC_FILLER.match(text.strip()):  # only what the filler leaves: "in context learning" stays
        unfilled = _LEFT_IN_FRONT.sub("", unfilled)
    return unfilled or text


def papers_on(retriever: PaperSearch, topic: str, max_papers: int) -> list[Hit]:
    """Every paper on ``topic`` (up to ``max_papers``), those likely on it first, each part best
    first (see :func:`rag.retrieval.topics.likely_first`): not a fixed k.

    Selection is :mod:`rag.retrieval.topics` (the topic's core, its neighbourhood, a stop taken from
    the topic's own scores), over every paper of the collections searched.
    """
    return retriever.select_topic(topic_of(topic)).hits[:max_papers]


# --- spelling ------------------------------------------------------------------------------
# A word as typed in lower case, letters only, six or more: "lerning", not "GPT-4" or "Gemma" (a
# name no paper writes is no typo of "gamma"), nor a short name typed in lower case ("llava" is no
# "llama", "vaes" no "saes", "sgld" no "sgd").
_SPELLED = re.compile(r"\b[a-z]{6,}\b")
# British spellings and their American forms, which papers mostly write: "optimisation" is
# "optimization" before any other word one letter away ("optimication").
_BRITISH = ((r"is(?=ation|ing|e[ds]?\b)", "iz"), (r"ys(?=e[ds]?\b|ing)", "yz"), (r"our(?=s?\b)", "or"))


def _american(word: str) -> list[str]:
    """``word`` in American spelling, when it is British ("optimisation", "tumours")."""
    return [changed for pattern, to in _BRITISH if (changed := re.sub(pattern, to, word)) != word]


_LONG_WORD = 10  # letters of a word long enough to be respelled as a word no English list holds


def respelled(text: str, weights_of: Callable[[list[str]], TermWeights]) -> tuple[str, dict[str, str]]:
    """``text`` with each misspelled word replaced by the English word one letter away (or its
    American spelling) that the papers write, and what was replaced by what.

    A word no paper writes matches nothing, so it only blurs a topic; a typo is the likeliest
    reason, and a researcher expects "contrastive lerning" to list contrastive learning. Only
    lower-case words of six letters or more whose stem no chunk holds and that no English word
    list holds (pyspellchecker's): "quantization" in a list with no paper on it is no typo of
    "quantitation". The replacement is the commonest English word (an American spelling may be
    any word) whose stem the papers write, or else, for a word of ten letters or more, the one
    word the papers write one letter away ("interpretability", which no English list holds). An
    ending added or dropped is no typo. A word the papers write is left as typed ("mixtral" is no
    typo of "mistral", whichever is commoner), so the word list is read only when a word is
    written by no paper."""
    stems = {m.group(0): lexical_terms(m.group(0)) for m in _SPELLED.finditer(text)}
    stems = {word: stem[0] for word, stem in stems.items() if len(stem) == 1}
    if not stems:
        return text, {}
    absent = weights_of(list(set(stems.values()))).absent
    fixed: dict[str, str] = {}
    for word, stem in stems.items():
        if stem not in absent or is_english_word(word):
            continue
        american = _american(word)
        edits: dict[str, list[str]] = {}  # stem of an edit -> its edits, likeliest first
        english: set[str] = set()  # the stems of English edits (or American spellings)
        for edit in (*american, *one_edit(word)):
            if edit.startswith(word) or word.startswith(edit):  # an ending added or dropped:
                continue  # "backdoors" is no typo of "backdoor", nor "imagen" of "image"
            if len(terms := lexical_terms(edit)) == 1:
                edits.setdefault(terms[0], []).append(edit)
                if edit in american or is_english_word(edit):
                    english.add(terms[0])
        if not edits:
            continue
        found = weights_of(list(edits))
        written = [t for t in edits if t not in found.absent]
        # An English word first; else, for a long word (a name is seldom one: "mixtral" is no
        # typo of "mixtural"), the field's own ("interpretabilty" → "interpretability", which no
        # English word list holds) when papers write it in one spelling only.
        # Not a prefix swapped ("dequantization" / "requantization"): that turns the meaning round.
        same_start = [t for t in written if any(e[:2] == word[:2] for e in edits[t])]
        field = same_start if len(written) == 1 and len(word) >= _LONG_WORD else []
        if choice := [t for t in written if t in english] or field:
            commonest = min(choice, key=lambda t: (found.weights[t], t))  # the lowest IDF
            fixed[word] = edits[commonest][0]
    for word, edit in fixed.items():
        text = re.sub(rf"\b{word}\b", edit, text)
    return text, fixed
