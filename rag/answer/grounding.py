"""Check a generated answer against the context before it is shown as grounded.

Three failure modes of small models are cheap to detect without another model: a figure that
appears in no retrieved abstract (and not in the question) is invented; a coined name (a method,
model or benchmark: AgentPoison, GPT-5, MMLU) that no retrieved paper writes is invented too, even
when the question names it, since repeating the question's benchmark is how a small model answers
a near miss ("X lowers the attack rate on AgentPoison by 50%" from a paper that reports 50% on
something else); an answer whose cited papers never write a figure the question asks about
("... on Llama-3-8B?" answered from a paper that reports Qwen-7B) is about another setting; and
an answer none of whose sentences is supported by any abstract is not drawn
from the papers. Either way the draft is withheld, saying why. The check is the same lexical judge
the eval scores answers with.
"""

from __future__ import annotations

from rag.records import Paper
from rag.text import (
    acronym_singular,
    cited_sentences,
    coined_names,
    names_written,
    numbers_in,
    plain_text,
    supports,
    without_keys,
)


def invented_figures(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` states figures no paper (nor the question) has, or None when it does not."""
    context = plain_text(" ".join(f"{p.title} {p.abstract}" for p in papers))
    invented = numbers_in(plain_text(without_keys(answer))) - numbers_in(context) - numbers_in(question)
    return f"figures found in no retrieved paper: {', '.join(sorted(invented))}" if invented else None


def unmet_figures(question: str, papers: list[Paper]) -> str | None:
    """Why an answer resting on ``papers`` cannot answer ``question``, or None: the question asks
    about a figure (a number, or one inside a model's name: "at 95% recall", "on Llama-3-8B")
    that none of them writes. Their figures then describe another setting, and an answer from
    them is a near miss however well each of its sentences is supported.

    The question's figures are exempt from :func:`invented_figures` (an answer may repeat them);
    this is the other half: they must be somewhere in what the answer cites.
    """
    if not papers:
        return None
    context = plain_text(" ".join(f"{p.title} {p.abstract}" for p in papers))
    unmet = numbers_in(plain_text(question)) - numbers_in(context)
    return f"the cited papers never write {', '.join(sorted(unmet))} from the question" if unmet else None


def invented_names(answer: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` names methods, models or benchmarks no retrieved paper writes, or None.

    The question's names are not exempt (unlike its figures): a paper that does not write the
    benchmark the question asks about cannot ground an answer about that benchmark.
    """
    written: set[str] = set()
    for paper in papers:
        written |= {acronym_singular(n) for n in names_written(f"{paper.title} {paper.abstract}")}
    named = coined_names(without_keys(answer))
    invented = {n for n in named if len(n) > 2 and acronym_singular(n) not in written}
    return f"names found in no retrieved paper: {', '.join(sorted(invented))}" if invented else None


def unsupported_reason(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` is not grounded in ``papers``, or None when it passes (invented figures, or
    no sentence supported by any paper: the check a one-sentence summary note must pass)."""
    if reason := invented_figures(answer, question, papers) or invented_names(answer, papers):
        return reason
    sentences = [s for s, _ in cited_sentences(answer)]
    if sentences and not any(supports(s, f"{p.title} {p.abstract}") for s in sentences for p in papers):
        return "no sentence of the draft is supported by a retrieved paper"
    return None
