"""Is this paper relevant to the question? Decided per paper, from several kinds of evidence.

No fixed cosine floor separates answerable from unanswerable questions (measured with MiniLM and
two larger embedders: the right paper of one question often scores below a wrong paper of
another). So a paper is judged on what it shares with the question:

- **lexical coverage**: the share of the question's terms the paper contains, each weighted by
  its inverse document frequency in the collection, so "watermarking" counts for more than
  "model", and a term no paper has (GPT-5, MMLU) pulls every paper's coverage down;
- **names**: a rare term of the question (a method name in any casing: ``adalina``, ``Anchors``,
  ``OPUS``) found in the paper is an exact match, the strongest evidence there is;
- **dense similarity**, which carries paraphrases that share no words.

Thresholds are calibrated on the dev split (``eval/icml2026-dev.jsonl``) and reported on the
frozen test split.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag.text import lexical_terms

if TYPE_CHECKING:
    from rag.records import Hit, Paper
    from rag.retrieval import PaperSearch

# Calibrated on the dev split (see README "Relevance"); a paper passes with any one of these.
STRONG_SIMILARITY = 0.55  # close enough in meaning whatever the wording
COVERED_SIMILARITY = 0.2  # ... or this close, with most of the question's weighted terms present:
MIN_COVERAGE = 0.5
RARE_SHARE = 0.01  # a term in at most 1% of the chunks (and at most RARE_MAX) is a name
RARE_MAX = 25

# Topic selection (listing questions, summaries): a topic is short, so its terms must be present.
TOPIC_STRONG_SIMILARITY = 0.5
TOPIC_SIMILARITY = 0.2
TOPIC_COVERAGE = 0.67


@dataclass(frozen=True)
class TermWeights:
    """Inverse document frequencies of a query's terms in the collection searched."""

    weights: dict[str, float]
    rare: frozenset[str]  # terms so rare in the collection that a match is a name match
    absent: frozenset[str] = frozenset()  # terms no chunk contains

    @classmethod
    def from_counts(cls, terms: Iterable[str], df: dict[str, int], total: int) -> TermWeights:
        """BM25's IDF per term; a term no chunk contains gets the highest weight of all."""
        total = max(total, 1)
        weights = {t: math.log(1 + (total - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in terms}
        limit = min(RARE_MAX, max(2, round(RARE_SHARE * total)))
        rare = frozenset(t for t in weights if 0 < df.get(t, 0) <= limit)
        return cls(weights, rare, frozenset(t for t in weights if not df.get(t, 0)))


@dataclass(frozen=True)
class Relevance:
    """What one paper shares with a question."""

    coverage: float  # IDF-weighted share of the question's terms found in the paper
    names: tuple[str, ...]  # rare question terms found in the paper (exact matches)
    similarity: float

    @property
    def is_relevant(self) -> bool:
        """The ask-time decision: a name match, a strong dense match, or shared weighted terms."""
        return (
            bool(self.names)
            or self.similarity >= STRONG_SIMILARITY
            or (self.similarity >= COVERED_SIMILARITY and self.coverage >= MIN_COVERAGE)
        )

    @property
    def is_on_topic(self) -> bool:
        """The topic decision (listing questions, summaries): the topic's terms, or a strong match."""
        return (
            bool(self.names)
            or self.similarity >= TOPIC_STRONG_SIMILARITY
            or (self.similarity >= TOPIC_SIMILARITY and self.coverage >= TOPIC_COVERAGE)
        )


_NAME_TOKEN = re.compile(r"[A-Za-z0-9][\w\-.@]*[\w]")


def name_terms(text: str) -> set[str]:
    """Lexical terms of the name-like tokens of ``text``: capitals inside or after the first
    word, digits, or all capitals (CIFAR-10, MMLU, GPT-5, OptFS, Anchors mid-sentence)."""
    names = []
    for n, match in enumerate(_NAME_TOKEN.finditer(text)):
        token = match.group(0)
        inner_caps = any(c.isupper() for c in token[1:])
        if inner_caps or any(c.isdigit() for c in token) or (n > 0 and token[0].isupper()):
            names.append(token)
    return set(lexical_terms(" ".join(names)))


def paper_terms(paper: Paper) -> set[str]:
    """The lexical terms of a paper's title, label and abstract."""
    return set(lexical_terms(f"{paper.title} {paper.label} {paper.abstract}"))


def coverage(terms: Iterable[str], present: set[str], weights: TermWeights) -> float:
    """IDF-weighted share of ``terms`` that occur in ``present``."""
    wanted = {t: weights.weights.get(t, 1.0) for t in terms}
    total = sum(wanted.values())
    return sum(w for t, w in wanted.items() if t in present) / total if total else 0.0


def judge(query_terms: list[str], paper: Paper, similarity: float | None, weights: TermWeights) -> Relevance:
    """How ``paper`` relates to a query whose terms are ``query_terms``."""
    present = paper_terms(paper)
    names = tuple(sorted(t for t in weights.rare if t in query_terms and t in present))
    return Relevance(coverage(query_terms, present, weights), names, similarity or 0.0)


def papers_on(retriever: PaperSearch, topic: str, max_papers: int) -> list[Hit]:
    """Every paper on ``topic`` (up to ``max_papers``), best first: not a fixed k.

    Retrieval proposes a wide pool without its relevance floor; each paper then stays only if it
    is on the topic (see :attr:`Relevance.is_on_topic`).
    """
    pool = max(4 * max_papers, 40)
    candidates = retriever.search(topic, k=pool, pool=pool, floor=False)
    alternatives = [lexical_terms(part) for part in alternatives_of(topic)]
    weights = retriever.term_weights(list(dict.fromkeys(t for terms in alternatives for t in terms)))
    chosen = [
        h for h in candidates
        if any(judge(terms, h.paper, h.similarity, weights).is_on_topic for terms in alternatives if terms)
    ]  # fmt: skip
    return chosen[:max_papers]


def alternatives_of(topic: str) -> list[str]:
    """ "distributed or federated learning" → ["distributed learning", "federated learning"]: a
    paper on either is on the topic. A one-word part borrows the last part's head noun."""
    parts = [p.strip() for p in re.split(r"\s+or\s+|\s*/\s*", topic) if p.strip()]
    if len(parts) < 2:
        return [topic]
    head = parts[-1].split()[1:]
    return [f"{p} {' '.join(head)}" if len(p.split()) == 1 and head else p for p in parts]
