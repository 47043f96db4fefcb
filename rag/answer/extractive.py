"""The no-LLM answerer (``--llm none``): the retrieved abstracts' sentences that best match.

Deterministic and fast (one embedding batch), and every sentence it returns is a verbatim quote
followed by the key of its paper, so it is grounded by construction. It cannot reason or
combine, but it is a useful answer when no model is available, and a baseline for the eval.
Sentences are ranked by dense similarity plus an IDF-weighted overlap with the question's terms,
so that a sentence holding the rare words of the question (OptFS, FPR@95) wins.
"""

from __future__ import annotations

import math
import re

from rag.index.embeddings import Embedder
from rag.records import Paper
from rag.text import STOP_WORDS, split_sentences

_TERM = re.compile(r"[\w@\-]*\w")


def _terms(text: str) -> set[str]:
    return {t for t in (m.lower() for m in _TERM.findall(text)) if len(t) >= 3 and t not in STOP_WORDS}


def extractive_answer(
    question: str, keyed: dict[str, Paper], embedder: Embedder, max_sentences: int = 2
) -> str:
    """The ``max_sentences`` best-matching sentences of the keyed papers, each followed by its key."""
    candidates = [(key, s) for key, paper in keyed.items() for s in split_sentences(paper.abstract)]
    if not candidates:
        return ""
    vectors = embedder.embed_documents([s for _, s in candidates] + [question])
    query = vectors[-1]
    sentence_terms = [_terms(s) for _, s in candidates]
    wanted = _terms(question)
    idf = {t: math.log(1 + len(candidates) / (1 + sum(t in st for st in sentence_terms))) for t in wanted}
    norm = sum(idf.values()) or 1.0

    def score(i: int) -> float:
        similarity = sum(a * b for a, b in zip(vectors[i], query, strict=True))
        return similarity + sum(idf[t] for t in wanted & sentence_terms[i]) / norm

    ranked = sorted(range(len(candidates)), key=lambda i: -score(i))[:max_sentences]
    # Papers in relevance order, sentences in reading order within each paper.
    order = {key: n for n, key in enumerate(keyed)}
    ranked.sort(key=lambda i: (order[candidates[i][0]], i))
    return " ".join(_cite(candidates[i][1], candidates[i][0]) for i in ranked)


def _cite(sentence: str, key: str) -> str:
    """Put the key inside the sentence, before its final stop, as the LLM prompt asks too."""
    body = sentence.rstrip()
    stop = body[-1] if body[-1:] in ".!?" else "."
    return f"{body.rstrip('.!?')} [{key}]{stop}"
