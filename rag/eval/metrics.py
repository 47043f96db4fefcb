"""Grounding metrics, after ALCE (citation precision/recall) and RAGAS (faithfulness).

Pure functions over plain data, so each can be checked on hand-made cases with known values.
Definitions (also in the README):

- recall@k: share of a question's gold papers among the first k retrieved; MRR: 1/rank of the
  first gold paper (0 if none), averaged over answerable questions.
- fact coverage: share of a question's required facts found in the answer (case- and
  markup-insensitive).
- abstention precision: of the answers that abstained, the share whose question is unanswerable;
  abstention recall: of the unanswerable questions, the share that abstained.
- citation recall: share of answer sentences whose cited papers, together, support the sentence.
- citation precision: share of citations that point to a gold paper or support the sentence they
  follow.
- faithfulness: share of answer sentences supported by the retrieved context as a whole.
- gold citation precision / recall: share of the cited papers that are gold / of the gold papers
  cited (for listing questions: precision and recall of the papers listed).
- refusal on answerable: share of answerable questions answered with the refusal sentence.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from rag.eval.judges import Judge
from rag.text import cited_sentences, plain_text

__all__ = ["cited_sentences"]  # re-exported: the metrics' sentence unit


def recall_at_k(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of the gold papers among the first ``k`` retrieved."""
    if not gold:
        raise ValueError("recall needs at least one gold paper")
    return len(set(retrieved[:k]) & set(gold)) / len(set(gold))


def reciprocal_rank(retrieved: Sequence[str], gold: Sequence[str]) -> float:
    """1 / rank of the first gold paper (0 when none is retrieved)."""
    return next((1.0 / rank for rank, pid in enumerate(retrieved, start=1) if pid in set(gold)), 0.0)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", plain_text(text).replace("\\%", "%")).lower()


def fact_coverage(answer: str, facts: Sequence[str]) -> float:
    """Share of the required facts the answer states (case- and markup-insensitive)."""
    if not facts:
        raise ValueError("coverage needs at least one fact")
    text = _norm(answer)
    return sum(_norm(f) in text for f in facts) / len(facts)


def abstention_scores(
    abstained: Sequence[bool], unanswerable: Sequence[bool]
) -> tuple[float | None, float | None]:
    """(precision, recall); None where the denominator is empty (no abstentions / no such questions)."""
    hits = sum(a and u for a, u in zip(abstained, unanswerable, strict=True))
    precision = hits / sum(abstained) if any(abstained) else None
    recall = hits / sum(unanswerable) if any(unanswerable) else None
    return precision, recall


def citation_scores(
    answer: str, key_to_text: dict[str, str], key_to_id: dict[str, str], gold: Sequence[str], judge: Judge
) -> tuple[float | None, float | None]:
    """(citation precision, citation recall) of one answer; None when it has no citation / sentence."""
    sentences = cited_sentences(answer)
    supported_sentences = 0
    good_citations = total_citations = 0
    for sentence, keys in sentences:
        known = [k for k in keys if k in key_to_text]
        evidence = "\n".join(key_to_text[k] for k in known)
        if known and judge.supports(sentence, evidence):
            supported_sentences += 1
        for key in keys:
            total_citations += 1
            if key in key_to_text and (key_to_id[key] in gold or judge.supports(sentence, key_to_text[key])):
                good_citations += 1
    precision = good_citations / total_citations if total_citations else None
    recall = supported_sentences / len(sentences) if sentences else None
    return precision, recall


def faithfulness(answer: str, context: str, judge: Judge) -> float | None:
    """Share of answer sentences the retrieved context supports (None: no sentence)."""
    sentences = cited_sentences(answer)
    if not sentences:
        return None
    return sum(judge.supports(s, context) for s, _ in sentences) / len(sentences)


def gold_citation_scores(cited: Sequence[str], gold: Sequence[str]) -> tuple[float | None, float]:
    """(share of cited papers that are gold, share of gold papers cited): for a listing question,
    the precision and recall of the papers it lists."""
    cited_set, gold_set = set(cited), set(gold)
    if not gold_set:
        raise ValueError("gold citation scores need at least one gold paper")
    precision = len(cited_set & gold_set) / len(cited_set) if cited_set else None
    return precision, len(cited_set & gold_set) / len(gold_set)


def mean(values: Sequence[float | None]) -> float | None:
    """Mean of the values that exist; None when none does (a metric with no cases)."""
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile, without numpy (the eval reports p50/p95)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
