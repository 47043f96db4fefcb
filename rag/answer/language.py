"""Is a question in English? The embedder and BM25 only understand English queries."""

from __future__ import annotations

import re

from rag.text import RESEARCH_FILLER

_ENGLISH = frozenset(
    "the a an of and or to in on for with by from at as is are was were be does do did what which who whom"
    " how why when where that this these those it its than".split()
)
# A researcher's keyword query has no function words ("ICLR 2020 meta-learning papers"); the words
# papers are talked about with still say it is English.
_ENGLISH_TOPIC = frozenset("paper papers work works survey overview list".split()) | RESEARCH_FILLER


def needs_translation(question: str) -> bool:
    """Not English, so retrieval needs an English rewrite of the question.

    Non-Latin script (Chinese, Japanese, Russian) is certain; for Latin-script languages (German,
    Spanish, French) a question of several words with no English function word, nor a word
    English papers are named with ("papers", "learning", "model"), is.
    """
    if sum(c.isalpha() and not c.isascii() and not "\u00c0" <= c <= "\u024f" for c in question) >= 2:
        return True
    words = re.findall(r"[^\W\d_]+", question.lower())
    return len(words) >= 4 and not any(w in _ENGLISH or w in _ENGLISH_TOPIC for w in words)
