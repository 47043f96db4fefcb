"""Short display labels for papers that have no title (the seed lists carry abstracts only).

A label is the name of the method the abstract introduces ("AdaSCALE", "GenAlign") when one can
be found, else the first sentence cut to a readable length. Heuristic by design: it only has to
make lists and citations scannable, never to be the paper's identity (that is the paper ID).
"""

from __future__ import annotations

import re

from rag.text import split_sentences

MAX_LABEL = 60

_INTRO = re.compile(
    r"\b(?:we\s+(?:propose|introduce|present|develop|design|call|name|term|dub)|"
    r"(?:paper|work)\s+(?:proposes|introduces|presents)|"
    r"(?:called|named|dubbed|termed|coined))\b(?P<rest>[^.;:]{0,160})",
    re.IGNORECASE,
)
_NAMED_APPOSITION = re.compile(
    r"\b(?:propose|introduce|present)s?\s+[`*]*((?:[A-Z][\w\-]+ ){0,2}[A-Z][\w\-]+)[`*]*,\s+(?:a|an|the)\s"
)
_BOLD = re.compile(r"\*\*([^*]{2,40})\*\*")
_APPOSITION = re.compile(r"(?:^|[.!?]\s+)(?P<name>[^\s,]{2,30}),\s+(?:a|an)\s", re.MULTILINE)
_ABBREV_DEF = re.compile(r"\(([^()\s]{1,12})\)")
_PAREN = re.compile(r"\w\s\((\$[^$]{1,15}\$|[A-Za-z][\w\-]{1,15})\)")
_TOKEN = re.compile(r"\$[^$]{1,20}\$|[A-Za-z][\w\-+²³]*[\w+]|[A-Za-z]\d\w*")


def is_coined_name(token: str, abbreviations: set[str]) -> bool:
    """A coined method name: mixed case inside the word, letters with digits, or math like $C^3$."""
    if token.startswith("$"):
        return True
    bare = token.rstrip("s") if token.endswith("s") and token[:-1].isupper() else token
    if bare in abbreviations or token in abbreviations:
        return False
    if bare.isupper() and len(bare) <= 4:
        return False  # generic acronyms: LLM, RL, OOD, SAE, ...
    inner_upper = any(c.isupper() for c in token[1:])
    has_digit = any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    return inner_upper or (has_digit and not token[0].isdigit())


def _first_sentence(text: str) -> str:
    sentence = (split_sentences(text) or [text.strip()])[0].rstrip(".")
    if len(sentence) <= MAX_LABEL:
        return sentence
    cut = sentence[:MAX_LABEL].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def method_name(abstract: str) -> str | None:
    """The name the abstract gives its method, if one can be found."""
    abbreviations = set(_ABBREV_DEF.findall(abstract))
    introduced = set(_PAREN.findall(" ".join(m.group("rest") for m in _INTRO.finditer(abstract))))
    abbreviations -= introduced
    candidates: list[str] = []
    # "we propose Neural Honeytrace, a plug-and-play ...", "We introduce `SOPE`, a ...": a
    # capitalised name followed by an apposition is the method's name, short or not.
    named = [m.group(1) for m in _NAMED_APPOSITION.finditer(abstract)]
    if named and len(named[0]) <= MAX_LABEL and named[0] not in abbreviations:
        return named[0]
    for match in _INTRO.finditer(abstract):
        rest = match.group("rest")
        # "we introduce Cross-Context Consistency ($C^3$)": the short form is the name people use.
        candidates.extend(_PAREN.findall(rest))
        candidates.extend(t for t in _TOKEN.findall(rest)[:12] if not t.startswith("$"))
    candidates.extend(_BOLD.findall(abstract))
    candidates.extend(m.group("name") for m in _APPOSITION.finditer(abstract))
    for token in candidates:
        token = token.strip("*_`'\"()[],")
        if token and (" " in token or is_coined_name(token, abbreviations)) and len(token) <= MAX_LABEL:
            return token
    return None


def display_label(abstract: str) -> str:
    """A short label for an untitled entry: its method name, else its first sentence."""
    return method_name(abstract) or _first_sentence(abstract)
