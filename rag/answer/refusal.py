"""Recognising a refusal, and holding one back from the stream while it may still be retried.

Small models rarely copy the refusal sentence exactly ("... is not provided in the abstracts"),
so a paraphrase counts too; the pipeline needs to know, because a refusal is never shown as an
answer with sources, and one given despite strong evidence is not the final word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.resources import prompt_text
from rag.text import normalized, without_keys

OnToken = Callable[[str], None]


def refusal_sentence() -> str:
    """The one sentence citeline answers with when the papers do not answer (prompts/refusal.txt)."""
    return prompt_text("refusal").strip()


_PARAPHRASED_REFUSAL = re.compile(
    r"\b(?:not|never) (?:provided|mentioned|stated|specified|given|reported|discussed|contain\w*|answer\w*|"
    r"include\w*|address\w*)\b.{0,40}\b(?:abstracts?|papers?|context)\b|"
    r"\b(?:abstracts?|papers?|context) (?:do|does) not "
    r"(?:provide|mention|state|specify|contain|answer|include)",
)


def is_refusal(text: str) -> bool:
    """The reply says the papers do not answer: exactly, or in a short paraphrase."""
    body = normalized(without_keys(text))
    if not body or normalized(refusal_sentence()) in body:
        return True
    return len(body) < 200 and bool(_PARAPHRASED_REFUSAL.search(body))


class RefusalGate:
    """Streams tokens as they come, except while the reply may still be the refusal sentence.

    A refusal is not shown as it streams because the pipeline may replace it (a retry, or the
    quoted evidence); anything else is passed through as soon as it diverges from the refusal's
    first words.
    """

    def __init__(self, sink: OnToken) -> None:
        self._target = normalized(refusal_sentence())
        self._sink = sink
        self._held = ""
        self.opened = False

    def __call__(self, piece: str) -> None:
        if self.opened:
            self._sink(piece)
            return
        self._held += piece
        if not self._target.startswith(normalized(self._held)):
            self.opened = True
            self._sink(self._held)

    def reset(self) -> None:
        """Forget a held reply (a refusal about to be retried)."""
        if not self.opened:
            self._held = ""
