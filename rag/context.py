"""Build the context block the LLM sees: one keyed entry per retrieved paper, within a budget.

The stored abstract stays exactly as the source gave it; only the copy shown to the model has
light LaTeX/markdown markup unwrapped (``$\\textbf{14.94}$%`` becomes ``14.94%``), because small
models copy plain numbers far more reliably than markup.
"""

from __future__ import annotations

import re

from rag.models import Paper
from rag.resources import prompt_text
from rag.tokens import count_tokens

_MARKUP = [
    (re.compile(r"\\(?:textbf|textit|textrm|texttt|emph|mathrm|mathbf|bf|it)\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\$([^$]{1,40})\$"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])"), r"\1"),
]


def plain_text(text: str) -> str:
    for _ in range(2):  # nested markup such as $\textbf{x}$
        for pattern, repl in _MARKUP:
            text = pattern.sub(repl, text)
    return text


def build_context(keyed: dict[str, Paper], budget_tokens: int) -> tuple[str, dict[str, Paper]]:
    """The context text and the keys that fit; papers come in relevance order, the tail is cut."""
    template = prompt_text("context_entry")
    entries: list[str] = []
    used: dict[str, Paper] = {}
    total = 0
    for key, paper in keyed.items():
        entry = template.format(key=key, label=paper.display, text=plain_text(paper.abstract)).strip()
        cost = count_tokens(entry) + 2
        if entries and total + cost > budget_tokens:
            break
        entries.append(entry)
        used[key] = paper
        total += cost
    return "\n\n".join(entries) + "\n", used
