"""Check a generated answer against the context before it is shown as grounded.

Two failure modes of small models are cheap to detect without another model: a figure that
appears in no retrieved abstract (and not in the question) is invented, and an answer none of
whose sentences is supported by any abstract is not drawn from the papers. Either way the draft
is withheld, saying why. The check is the same lexical judge the eval scores answers with.
"""

from __future__ import annotations

from rag.records import Paper
from rag.text import cited_sentences, numbers_in, plain_text, supports, without_keys


def invented_figures(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` states figures no paper (nor the question) has, or None when it does not."""
    context = plain_text(" ".join(f"{p.title} {p.abstract}" for p in papers))
    invented = numbers_in(plain_text(without_keys(answer))) - numbers_in(context) - numbers_in(question)
    return f"figures found in no retrieved paper: {', '.join(sorted(invented))}" if invented else None


def unsupported_reason(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` is not grounded in ``papers``, or None when it passes (invented figures, or
    no sentence supported by any paper: the check a one-sentence summary note must pass)."""
    if reason := invented_figures(answer, question, papers):
        return reason
    sentences = [s for s, _ in cited_sentences(answer)]
    if sentences and not any(supports(s, f"{p.title} {p.abstract}") for s in sentences for p in papers):
        return "no sentence of the draft is supported by a retrieved paper"
    return None
