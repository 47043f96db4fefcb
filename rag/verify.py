"""Check a generated answer against the context before it is shown as grounded.

Two failure modes of small models are cheap to detect without another model: a figure that
appears in no retrieved abstract (and not in the question) is invented, and an answer none of
whose sentences is supported by any abstract is not drawn from the papers. Either way the answer
is withheld and the chain abstains, saying why. The check uses the same lexical judge as the eval.
"""

from __future__ import annotations

import re

from rag.context import plain_text
from rag.eval_metrics import cited_sentences
from rag.judges import LexicalJudge, numbers_in
from rag.models import Paper

_KEYS = re.compile(r"\[[^\[\]]*\]")


def unsupported_reason(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` is not grounded in ``papers``, or None when it passes."""
    context = plain_text(" ".join(f"{p.title} {p.abstract}" for p in papers))
    claims = plain_text(_KEYS.sub(" ", answer))
    invented = numbers_in(claims) - numbers_in(context) - numbers_in(question)
    if invented:
        return f"figures found in no retrieved paper: {', '.join(sorted(invented))}"
    judge = LexicalJudge()
    sentences = [s for s, _ in cited_sentences(answer)]
    if sentences and not any(judge.supports(s, f"{p.title} {p.abstract}") for s in sentences for p in papers):
        return "no sentence of the draft is supported by a retrieved paper"
    return None
