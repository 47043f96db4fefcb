"""Citation keys for the context, and validation of the keys an answer uses.

The context labels each paper with a key the model must copy after every claim. A paper's own ID
is used when it is short and plain (``000-02``, an OpenReview id, ``uai2022-596b56d1b0``), because
a model copies a key it can see next to the text more reliably than a positional ``[3]``; long IDs
get ``S<n>`` (every list of sources then names the ID beside the key).
After generation every bracketed key is checked: a key that was not in the context is removed
from the text and reported, never shown as a source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.records import Citation, Hit, Paper
from rag.text import KEY_GROUP, split_keys

# A paper's own id is its key when it is short enough to copy: OpenReview's may start with "-" or
# "_" (-qh0M9XWxnv, _gZLyRGGuo); the corpora's slugs run to 22 characters (aistats2020-cb62e6a3a6).
# A longer one (iclr2024-<32 hex digits>) costs the model a dozen tokens per citation: S<n>.
_PLAIN_ID = re.compile(r"[-_]?[A-Za-z0-9][\w\-]{0,23}")


def assign_keys(hits: list[Hit]) -> dict[str, Paper]:
    """Citation key -> paper, in relevance order: the paper's own short ID, else ``S<n>``."""
    keys: dict[str, Paper] = {}
    for n, hit in enumerate(hits, start=1):
        key = hit.paper.id if _PLAIN_ID.fullmatch(hit.paper.id) else f"S{n}"
        keys[key if key not in keys else f"S{n}"] = hit.paper
    return keys


@dataclass
class CheckedCitations:
    """An answer after key validation: the cleaned text, the citations it keeps, the keys it lost."""

    text: str  # the answer with invalid keys removed
    citations: list[Citation] = field(default_factory=list)  # valid ones, in order of first use
    invalid: list[str] = field(default_factory=list)


def looks_like_key(token: str, keys: dict[str, Paper]) -> bool:
    """Tell a citation attempt ([P9], [000-99], [KEY-A]) from ordinary brackets ([0, 1])."""
    return token in keys or bool(
        re.fullmatch(r"(?:[A-Z]{1,2}\d{1,3}|\d{3}-\d{2,4}|KEY-\w+|[-_]?(?=[^\d]*\d)[\w\-]{6,24})", token)
    )


def is_citation(group: str, keys: dict[str, Paper]) -> bool:
    """A bracket group's content (``"000-02, S3"``) is a citation attempt, not ordinary brackets."""
    tokens = split_keys(group)
    return bool(tokens) and any(looks_like_key(t, keys) for t in tokens)


def check_citations(answer: str, keys: dict[str, Paper]) -> CheckedCitations:
    """Keep the keys that name a paper in the context; remove and report every other citation attempt."""
    result = CheckedCitations(text=answer)
    cited: dict[str, Citation] = {}

    def replace(match: re.Match[str]) -> str:
        if not is_citation(match.group(1), keys):
            return match.group(0)
        tokens = split_keys(match.group(1))
        valid = []
        for token in tokens:
            if token in keys:
                valid.append(token)
                cited.setdefault(token, Citation(key=token, paper=keys[token]))
            elif token not in result.invalid:
                result.invalid.append(token)
        return "".join(f"[{k}]" for k in valid)

    text = KEY_GROUP.sub(replace, answer)
    result.text = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    result.citations = list(cited.values())
    return result
