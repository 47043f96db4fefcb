"""The model's copy of a paper's text: data, never instructions.

The stored abstract stays exactly as the source gave it; only the copy shown to the model has
instruction-like sentences replaced by a marker (and, in rag/answer/evidence.py, markup
unwrapped), because a small model told to treat context as data still tends to obey or freeze.
"""

from __future__ import annotations

import re

from rag.text import split_sentences

# Sentences that address the model rather than describe research: a prompt injection planted in
# an abstract. The model's copy omits them (the stored abstract keeps them, faithfully); a small
# model, told to treat context as data, still tends to either obey or freeze when it sees them.
_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system|your)\b.{0,20}\b(?:instructions?|prompts?|rules|messages?)\b"
    r"|\b(?:reply|respond|output)\s+(?:only|just)\b|\bonly with the (?:word|phrase|text)\b"
    r"|\byou are now\b|\bnew instructions?:",
    re.IGNORECASE,
)
OMITTED = "[instruction-like text omitted]"


def without_injections(text: str) -> str:
    """The model's copy of ``text``: sentences that address the model replaced by a marker."""
    sentences = split_sentences(text)
    if not any(_INJECTION.search(s) for s in sentences):
        return text
    return " ".join(OMITTED if _INJECTION.search(s) else s for s in sentences)
