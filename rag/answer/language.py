"""Is a question in English? The embedder and BM25 only understand English queries."""

from __future__ import annotations

import re

from rag.text import RESEARCH_FILLER

_ENGLISH = frozenset(
    "the a an of and or to in on for with by from at as is are was were be does do did what which who whom"
    " how why when where that this these those it its than".split()
)
# A researcher's keyword query has no function words ("ICLR 2020 meta-learning papers"); the words
# papers are talked about with say it is English, unless a function word of another language says
# otherwise ("Welche Paper untersuchen Wasserzeichen für Sprachmodelle": German borrows "Paper").
_ENGLISH_TOPIC = frozenset("paper papers work works survey overview list".split()) | RESEARCH_FILLER
_FOREIGN = frozenset(
    "der die das und für über mit von welche welcher welches gibt es ist sind ein eine"
    " les des sur pour dans avec quels quelles quel quelle une est sont qui que du au aux"
    " los las el para sobre con por qué cuáles cuál hay una del"
    " il gli della delle per sono quali che di da"
    " os da do dos das em quais são".split()
)


def needs_translation(question: str) -> bool:
    """Not English, so retrieval needs an English rewrite of the question.

    Non-Latin script (Chinese, Japanese, Russian) is certain; for Latin-script languages (German,
    Spanish, French) a question of several words with no English function word is, unless it
    writes words English papers are named with ("papers", "learning", "model") and neither a
    function word of those languages nor an accented letter.
    """
    if sum(c.isalpha() and not c.isascii() and not "\u00c0" <= c <= "\u024f" for c in question) >= 2:
        return True
    words = re.findall(r"[^\W\d_]+", question.lower())
    if len(words) < 4 or any(w in _ENGLISH for w in words):
        return False
    foreign = any(w in _FOREIGN for w in words) or any("\u00c0" <= c <= "\u024f" for c in question)
    return foreign or not any(w in _ENGLISH_TOPIC for w in words)
