"""Check a generated answer against the context before it is shown as grounded.

Two failure modes of small models are cheap to detect without another model: a figure that
appears in no retrieved abstract (and not in the question) is invented, and an answer none of
whose sentences is supported by any abstract is not drawn from the papers. Either way the draft
is withheld, saying why. The check is the same lexical judge the eval scores answers with.
"""

from __future__ import annotations

from rag.records import Paper
from rag.text import cited_sentences, numbers_in, plain_text, supports, without_keys


def unsupported_reason(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` is not grounded in ``papers``, or None when it passes."""
    context = plain_text(" ".join(f"{p.title} {p.abstract}" for p in papers))
    claims = plain_text(without_keys(answer))
    invented = numbers_in(claims) - numbers_in(context) - numbers_in(question)
    if invented:
        return f"figures found in no retrieved paper: {', '.join(sorted(invented))}"
    sentences = [s for s, _ in cited_sentences(answer)]
    if sentences and not any(supports(s, f"{p.title} {p.abstract}") for s in sentences for p in papers):
        return "no sentence of the draft is supported by a retrieved paper"
    return None
