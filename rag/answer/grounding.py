"""Check a generated answer against the context before it is shown as grounded.

Failure modes of small models that are cheap to detect without another model: a figure that
appears in no retrieved abstract (and not in the question) is invented; a coined name (a method,
model or benchmark: AgentPoison, GPT-5, MMLU), or a capitalised one (Python, Yahoo), that no
retrieved paper writes is invented too, even when the question names it, since repeating the
question's benchmark is how a small model answers a near miss ("X lowers the attack rate on
AgentPoison by 50%" from a paper that reports 50% on something else); an answer whose cited
papers never write the figures of a model or setting the question names ("... on Llama-3-8B?"
answered from a paper that reports Qwen-7B) is about another setting; a yes/no or effect question
answered by repeating it in words its cited papers never write ("the watermark survives pruning"
from a paper that never writes "pruning") asserts what they do not say; and an answer none of
whose sentences is supported by any abstract is not drawn from the papers.
Either way the draft is withheld, saying why. The check is the same lexical judge the eval scores
answers with.
"""

from __future__ import annotations

import re

from rag.records import Paper
from rag.text import (
    AUXILIARIES,
    RESEARCH_FILLER,
    YEAR,
    YES_NO,
    acronym_singular,
    asked_figures,
    cited_sentences,
    coined_names,
    is_field_acronym,
    lexical_terms,
    line_sentences,
    names_written,
    numbers_in,
    plain_text,
    proper_names,
    stem_written,
    stems_of,
    supports,
    unwritten_variants,
    without_keys,
    word_written,
)


def _text_of(papers: list[Paper]) -> str:
    """The papers' titles and abstracts as plain text: what an answer may rest on."""
    return plain_text(" ".join(f"{p.title} {p.abstract}" for p in papers))


# A model or setting named with its size or version: a name that starts with letters and holds
# digits (Llama-3.1-8B, Qwen2.5-1.5B, GPT-4o, ImageNet-1k) or a bare size (7B, 1.5B, 125M).
# Digit-led tokens are thresholds, units or orders ("2x", "24GB", "2nd", "1st-order", "3D").
_SETTING = re.compile(r"(?<![\w.\-])(?:[A-Za-z][A-Za-z0-9.\-]*\d[A-Za-z0-9.\-]*|\d+(?:\.\d+)?[BM](?![\w.]))")


def _settings_named(question: str) -> list[tuple[str, str, list[str]]]:
    """(name, its leading letters, its digit runs) for each model or setting ``question`` names by
    a figure; a venue's year ("ICML2026", "ICLR-2024") and a name of one letter ("v2") are not."""
    named = []
    for token in _SETTING.findall(plain_text(question)):
        token = token.rstrip(".-")
        base = re.match(r"[A-Za-z]*", token).group()
        digits = re.findall(r"\d+", token)
        if digits and not any(YEAR.fullmatch(d) for d in digits) and len(base) != 1:
            named.append((token, base, digits))
    return named


def invented_figures(answer: str, question: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` states figures no paper (nor the question) has, or None when it does not."""
    given = numbers_in(_text_of(papers), spelled=True) | numbers_in(question)
    invented = numbers_in(plain_text(without_keys(answer))) - given
    return f"figures found in no retrieved paper: {', '.join(sorted(invented))}" if invented else None


def unmet_figures(question: str, papers: list[Paper]) -> str | None:
    """Why an answer resting on ``papers`` cannot answer ``question``, or None: the question sets
    a figure none of them writes. A model or setting named by its size or version ("on
    Llama-3-8B", "GPT-5", "the 7B model"), or a count or measure ("from 20 generators", "at
    4-bit", "on 8 GPUs"): the papers' figures then describe another setting, and an answer from
    them is a near miss however well each of its sentences is supported.

    The question's figures are exempt from :func:`invented_figures` (an answer may repeat them);
    this is the other half. In a name, digit runs are compared ("Qwen2.5-1.5B" needs 2, 5 and 1
    somewhere in the papers), and a name the papers also write bare passes ("ImageNet-1k" asked,
    "ImageNet" written), unless they write only another variant of it ("DINOv2-L" asked, DINOv2-S
    and DINOv2-B written). Other figures count as written in digits or words ("6 domains", "six
    domains"); a bound ("by more than 20%?"), a venue's year, an order ("2nd") or the reply's own
    size ("3 papers") is not a condition (see :func:`rag.text.asked_figures`).
    """
    if not papers:
        return None
    text = _text_of(papers)
    written = set(re.findall(r"\d+", text))
    unnamed = [
        name
        for name, base, digits in sorted(_settings_named(question))
        if not set(digits) <= written
        and not (base and re.search(rf"(?<![\w\-]){re.escape(base)}(?![\w\-])", text, re.I))
    ]
    # The counts and measures it sets outside a name ("from 20 generators", "at 4-bit", "on 8
    # GPUs"), in digits or words; bounds, years, orders and the reply's size are not conditions.
    counts = asked_figures(_SETTING.sub(" ", plain_text(question)))
    variants = [n for n in unwritten_variants(question, text) if n not in unnamed]
    unmet = [f"the figures of {name}" for name in unnamed]
    unmet += sorted(counts - numbers_in(text, spelled=True))
    unmet += [f"{name} (only another variant)" for name in variants]
    return f"the cited papers never write {', '.join(unmet)}" if unmet else None


_QUESTION_WORD = re.compile(r"[^\W_][\w\-]*")
# Verbs a question uses for how a result is reported, which a paper writes in its own words ("Does
# it reach an AUC above 90?" / "finds backdoors (AUC 94.3)"): repeating one asserts nothing new.
# With them, the auxiliaries and modals that make the question and its answer ("Does it have to
# ...", "it may"), and the verbs that ask for an effect ("How does X affect Y?", and in a yes/no
# question too: "Does X affect Y?" asserts no effect by repeating "affect").
_UNASSERTED = AUXILIARIES | frozenset(
    "reach achieve attain obtain get score beat outperform surpass exceed improve boost increase raise"
    " reduce lower cut decrease need require use work help perform handle scale run report evaluate"
    " compare test find show give yield make keep stay remain hold may might must shall should"
    " affect affected impact impacted influence influenced change changed alter altered effect".split()
)
_IN_ORDER_TO = re.compile(r"\bin order to\b", re.I)
# "How does adding dropout affect the risk gap?" puts a claim to the papers as a yes/no question
# does: that dropout was added. A paper that never writes it says nothing of its effect.
_EFFECT = re.compile(
    r"^\s*how\s+(?:does|do|did|would|will|can|could|might)\b.{0,160}?"
    r"\b(?:affect|affects|impact|impacts|influence|influences|change|changes|alter|alters)\b"
    r"|^\s*how\s+(?:is|are|was|were)\b.{0,160}?\b(?:affected|impacted|influenced|changed|altered)\s+by\b"
    r"|^\s*what\s+(?:is|are|was|were)\s+the\s+(?:effects?|impacts?|influence)\s+of\b",
    re.I,
)


def unmet_claim(question: str, answer: str, papers: list[Paper]) -> str | None:
    """Why an answer resting on ``papers`` asserts what a yes/no ``question`` puts to them without
    their saying it, or None. A yes/no question is a claim ("Does the watermark survive pruning of
    the extracted model?"); a small model answers it by repeating it ("The watermark survives
    pruning ..."), each sentence then shares most of its words with the paper and passes
    attribution. The words it repeats from the question must be the papers' words too: a paper
    that never writes "pruning" says neither yes nor no to it. Two such words at least: one is
    often the answer's paraphrase ("Does it have to retrain the protected model?" / "No, it does
    not have to retrain the protected model", the paper writing "the owner's model"). Only yes/no
    questions and those asking for an effect ("How does adding dropout affect ...?", which
    presupposes the dropout): other wh-questions' words are what the asker presupposes, and an
    answer repeats them."""
    if not papers or not (YES_NO.match(plain_text(question)) or _EFFECT.match(plain_text(question))):
        return None
    exempt = stems_of(RESEARCH_FILLER | _UNASSERTED)
    written = set(lexical_terms(_text_of(papers)))
    said = lexical_terms(_IN_ORDER_TO.sub(" ", plain_text(without_keys(answer))))
    repeated = {t for t in said if len(t) > 3 and t not in exempt and not stem_written(t, written)}
    words = [
        w for w in _QUESTION_WORD.findall(_IN_ORDER_TO.sub(" ", question)) if set(lexical_terms(w)) & repeated
    ]
    unmet = list(dict.fromkeys(w.lower() for w in words))
    return f"the cited papers never write {', '.join(unmet)}" if len(unmet) >= 2 else None


def invented_names(answer: str, papers: list[Paper]) -> str | None:
    """Why ``answer`` names methods, models or benchmarks no retrieved paper writes, or None:
    coined names (GPT-5, MMLU), and capitalised words inside a sentence (Python, Yahoo) that no
    paper writes in any form or as an author ("Transformers" for "transformer" is written).

    The question's names are not exempt (unlike its figures): a paper that does not write the
    benchmark the question asks about cannot ground an answer about that benchmark ("on the
    Yahoo! news dataset?" answered with a bound from a paper that never names Yahoo).
    """
    written: set[str] = set()
    for paper in papers:
        written |= {acronym_singular(n) for n in names_written(f"{paper.title} {paper.abstract}")}
    body = plain_text(without_keys(answer))
    invented = {
        n
        for n in coined_names(body)
        if len(n) > 2 and acronym_singular(n) not in written and not is_field_acronym(n)
    }
    terms = set(lexical_terms(f"{_text_of(papers)} {' '.join(a for p in papers for a in p.authors)}"))
    for sentence in line_sentences(body):
        invented.update(
            word
            for word in proper_names(sentence)
            if not word_written(word, terms) and not is_field_acronym(word)  # "LLMs" names nothing
        )
    return f"names found in no retrieved paper: {', '.join(sorted(invented))}" if invented else None


def unsupported_reason(answer: str, question: str, papers: list[Paper], together: bool = False) -> str | None:
    """Why ``answer`` is not grounded in ``papers``, or None when it passes (invented figures, or
    no sentence supported by any paper: the check a one-sentence summary note must pass).
    ``together`` reads the papers as one text: a sentence on what a theme's papers work on spans
    several of them, so no one paper supports it all."""
    if reason := invented_figures(answer, question, papers) or invented_names(answer, papers):
        return reason
    sentences = [s for s, _ in cited_sentences(answer)]
    texts = [_text_of(papers)] if together else [f"{p.title} {p.abstract}" for p in papers]
    if sentences and not any(supports(s, text) for s in sentences for text in texts):
        return "no sentence of the draft is supported by a retrieved paper"
    return None
