"""Build the context block the LLM sees: one keyed entry per retrieved paper, within a budget.

The stored abstract stays exactly as the source gave it; only the copy shown to the model has
light LaTeX/markdown markup unwrapped (``$\\textbf{14.94}$%`` becomes ``14.94%``), because small
models copy plain numbers far more reliably than markup.
"""

from __future__ import annotations

import re

from rag.index.tokens import count_tokens
from rag.records import Paper
from rag.resources import prompt_text
from rag.text import plain_text, split_sentences

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


def build_context(keyed: dict[str, Paper], budget_tokens: int) -> tuple[str, dict[str, Paper]]:
    """The context text and the keys that fit; papers come in relevance order, the tail is cut."""
    template = prompt_text("context_entry")
    entries: list[str] = []
    used: dict[str, Paper] = {}
    total = 0
    for key, paper in keyed.items():
        text = plain_text(without_injections(paper.abstract))
        entry = template.format(key=key, label=paper.display, text=text).strip()
        cost = count_tokens(entry) + 2
        if entries and total + cost > budget_tokens:
            break
        entries.append(entry)
        used[key] = paper
        total += cost
    return "\n\n".join(entries) + "\n", used
