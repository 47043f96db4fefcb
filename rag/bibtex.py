"""BibTeX entries for papers, so that a cited answer can be pasted into a LaTeX document.

Keys follow the common ``<surname><year><first two title words>`` pattern (``yang2023datasetpruning``)
and are made unique within one bibliography. Seed entries have no title or authors: they get
their display label as title and their ``file:line`` in ``note``, so the entry still says where
the claim came from.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rag.records import Paper
from rag.text import STOP_WORDS, printable

_WORD = re.compile(r"[A-Za-z0-9]+")
# Inline math as the corpus writes it (``$C^3$``): kept as written, it is LaTeX already.
_MATH = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$")
# Outside math: a backslash with what it escapes or names, or a character LaTeX treats specially.
_TEXT_SPECIAL = re.compile(r"\\([A-Za-z]+|[&%#_$'\"`^~=.{}])?|[&%#_^~$]")
_ESCAPED = {"&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$",
            "^": r"\^{}", "~": r"\textasciitilde{}"}  # fmt: skip
# Fields whose value is an address, not text: LaTeX never typesets them as text (plain.bst drops url).
_VERBATIM = ("url", "doi")


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(_ascii(text))]


def _surname(author: str) -> str:
    """``Yang`` from ``Yang, Shuo`` or ``Shuo Yang``."""
    name = author.split(",")[0] if "," in author else (author.split() or [""])[-1]
    return "".join(_words(name))


def base_key(paper: Paper) -> str:
    """The paper's key before de-duplication."""
    title_words = [w for w in _words(paper.title or paper.label) if w not in STOP_WORDS][:2]
    surname = _surname(paper.authors[0]) if paper.authors else ""
    year = str(paper.year or "")
    key = surname + year + "".join(title_words) if surname else "".join(title_words) + year
    return key or "".join(_words(paper.id)) or "paper"


def _value(name: str, text: str) -> str:
    """A field value that BibTeX parses and pdflatex typesets: printable, braces balanced, and
    LaTeX specials escaped outside ``$math$`` (not in a URL or DOI).

    A ``_`` from a file name stopped pdflatex ("Missing $ inserted"), and a value ending in a
    backslash closed the entry with ``\\}``, so a strict parser dropped it and the next one.
    """
    text = printable(" ".join(text.split()))
    if not _balanced(text):
        text = text.replace("{", "").replace("}", "")
    if name in _VERBATIM:
        return text.rstrip("\\")  # no address ends in a backslash; one would close the field with \\}
    parts, end = [], 0
    for math in _MATH.finditer(text):
        parts.append(_escape_text(text[end : math.start()]))
        parts.append(re.sub(r"(?<!\\)([&%#])", r"\\\1", math.group()))  # comment/alignment in math too
        end = math.end()
    parts.append(_escape_text(text[end:]))
    return "".join(parts)


def _escape_text(text: str) -> str:
    """Text outside math: ``_ & % # $ ^ ~`` escaped, a backslash that starts no command made literal."""

    def escape(match: re.Match) -> str:
        token = match.group()
        if not token.startswith("\\"):
            return _ESCAPED[token]
        named = match.group(1)
        if named is None:  # at the end, or before a space or digit: a literal backslash
            return r"\textbackslash{}"
        return {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}.get(named, token)

    return _TEXT_SPECIAL.sub(escape, text)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def entry(paper: Paper, key: str) -> str:
    """One ``@inproceedings`` (or ``@misc`` without a venue) entry."""
    fields: list[tuple[str, str]] = [("title", paper.title or paper.label)]
    if paper.authors:
        fields.append(("author", " and ".join(paper.authors)))
    if paper.venue:
        fields.append(("booktitle", paper.venue))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if paper.url:
        fields.append(("url", paper.url))
    if not paper.title:
        fields.append(("note", f"citeline entry {paper.id}, {paper.source}:{paper.line}"))
    kind = "inproceedings" if paper.venue else "misc"
    body = ",\n".join(f"  {name} = {{{_value(name, value)}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}"


def bibliography(papers: Iterable[Paper]) -> str:
    """Entries for ``papers`` (each once, in order), with keys unique among them."""
    seen: dict[str, Paper] = {}
    for paper in papers:
        seen.setdefault(paper.id, paper)
    used: set[str] = set()
    entries = []
    for paper in seen.values():
        key = base = base_key(paper)
        suffix = ord("a")
        while key in used:
            key, suffix = f"{base}{chr(suffix)}", suffix + 1
        used.add(key)
        entries.append(entry(paper, key))
    return "\n\n".join(entries)
