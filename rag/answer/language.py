"""Is a question in English? The embedder and BM25 only understand English queries."""

from __future__ import annotations

import re

_ENGLISH = frozenset(
    "the a an of and or to in on for with by from at as is are was were be does do did what which who whom"
    " how why when where that this these those it its than".split()
)


def needs_translation(question: str) -> bool:
    """Not English, so retrieval needs an English rewrite of the question.

    Non-Latin script (Chinese, Japanese, Russian) is certain; for Latin-script languages (German,
    Spanish, French) a question of several words with almost no English function words is.
    """
    if sum(c.isalpha() and not c.isascii() and not "\u00c0" <= c <= "\u024f" for c in question) >= 2:
        return True
    words = re.findall(r"[^\W\d_]+", question.lower())
    return len(words) >= 4 and not any(w in _ENGLISH for w in words)
