"""BibTeX entries for papers, so that a cited answer can be pasted into a LaTeX document.

Keys follow the common ``<surname><year><first two title words>`` pattern (``yang2023datasetpruning``)
and come from the paper alone, so ``papers show --bibtex``, ``ask --cite bibtex`` and ``summarize
--cite bibtex`` give a paper the same key whatever else they print. Two different papers whose
keys would coincide in one bibliography both get a suffix from a hash of their own ID, never a
letter from their order. Seed entries have no title or authors: they get their display label as
title, a ``key`` field (what plain.bst sorts and labels by without an author) and their
``file:line`` in ``note``, so the entry still says where the claim came from.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from rag.records import Paper
from rag.text import STOP_WORDS, printable

_WORD = re.compile(r"[A-Za-z0-9]+")
_MACRO = re.compile(r"\\[A-Za-z]+")
# A word whose case matters (a capital after its first letter: AquaLoRA, KV, GPT, 3D); not a
# macro name. plain.bst lower-cases titles, so such words are braced.
_CASED_WORD = re.compile(r"(?<![\\\w])[^\W_]*?[^\W_][A-Z][^\W_]*")
# Inline math as the corpus writes it (``$C^3$``): kept as written, it is LaTeX already.
_MATH = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$")
# Outside math: a backslash with what it escapes or names, or a character LaTeX treats specially.
_TEXT_SPECIAL = re.compile(r"\\([A-Za-z]+|[&%#_$'\"`^~=.{}])?|[&%#_^~$]")
_ESCAPED = {
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\textasciitilde{}",
}
# Fields whose value is an address, not text: LaTeX never typesets them as text (plain.bst drops url).
_VERBATIM = ("url", "doi")


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _words(text: str) -> list[str]:
    """Lower-case ASCII words, LaTeX macro names (``\\mathtt``, ``\\texttt``) and terminal escape
    sequences (``\\x1b[31m``: "31m" is no word of a title) left out."""
    return [w.lower() for w in _WORD.findall(_ascii(_MACRO.sub(" ", printable(text, " "))))]


def _surname(author: str) -> str:
    """``Yang`` from ``Yang, Shuo`` or ``Shuo Yang``."""
    name = author.split(",")[0] if "," in author else (author.split() or [""])[-1]
    return "".join(_words(name))


def base_key(paper: Paper) -> str:
    """The paper's key from its first author's surname, year and first two significant title words."""
    title_words = [w for w in _words(paper.title or paper.label) if w not in STOP_WORDS][:2]
    surname = _surname(paper.authors[0]) if paper.authors else ""
    year = str(paper.year or "")
    key = surname + year + "".join(title_words) if surname else "".join(title_words) + year
    return key or "".join(_words(paper.id)) or "paper"


def _id_suffix(paper_id: str, length: int = 4) -> str:
    return hashlib.sha1(paper_id.encode("utf-8")).hexdigest()[:length]


def cite_keys(papers: Iterable[Paper]) -> dict[str, str]:
    """Paper ID → BibTeX key for ``papers``: :func:`base_key`, and where two different papers
    share one, each gets a suffix from a hash of its own ID (stable, whatever the order)."""
    unique: dict[str, Paper] = {}
    for paper in papers:
        unique.setdefault(paper.id, paper)
    groups: dict[str, list[str]] = {}
    for paper in unique.values():
        groups.setdefault(base_key(paper), []).append(paper.id)
    keys: dict[str, str] = {}
    for base, ids in groups.items():
        if len(ids) == 1:
            keys[ids[0]] = base
            continue
        length = 4
        while len({_id_suffix(i, length) for i in ids}) < len(ids):
            length += 2
        keys.update({i: f"{base}{_id_suffix(i, length)}" for i in ids})
    return keys


def _title(text: str) -> str:
    """A title value: escaped like every field, then case-protected where case matters: ``{KV}-cache``,
    ``{AquaLoRA}``, and math as ``{$C^3$}``."""
    value = _value("title", text)
    parts, end = [], 0
    for math in _MATH.finditer(value):
        parts.append(_CASED_WORD.sub(lambda m: "{" + m.group() + "}", value[end : math.start()]))
        parts.append("{" + math.group() + "}")
        end = math.end()
    parts.append(_CASED_WORD.sub(lambda m: "{" + m.group() + "}", value[end:]))
    return "".join(parts)


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


# Formatting and accent commands abstracts use; any other command from corpus text is printed as text.
_SAFE_COMMANDS = frozenset(
    "textbf textit emph texttt textsc textrm textsf textsuperscript textsubscript mathrm mathbf mathcal "
    "mathtt mathit mathsf ensuremath c v u H k r i j o O l L ss ae AE oe OE aa AA dag ddag S P".split()
)


def _escape_text(text: str) -> str:
    """Text outside math: ``_ & % # $ ^ ~`` escaped, a backslash that starts no command made literal."""

    def escape(match: re.Match) -> str:
        token = match.group()
        if not token.startswith("\\"):
            return _ESCAPED[token]
        named = match.group(1)
        if named is None:  # at the end, or before a space or digit: a literal backslash
            return r"\textbackslash{}"
        if named.isalpha() and named not in _SAFE_COMMANDS:
            # Corpus text is data: \input{/etc/...} or \end{document} in a title must not run.
            return r"\textbackslash{}" + named
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
    """One ``@inproceedings`` entry (``@misc`` without a venue or an author)."""
    fields: list[tuple[str, str]] = []
    if paper.authors:
        fields.append(("author", _value("author", " and ".join(paper.authors))))
    else:
        fields.append(("key", _value("key", paper.label or paper.title or paper.id)))
    fields.append(("title", _title(paper.title or paper.label)))
    # @inproceedings requires an author in plain.bst ("empty author" warning): without one, @misc
    # with the venue as howpublished.
    kind = "inproceedings" if paper.venue and paper.authors else "misc"
    if paper.venue:
        fields.append(
            ("booktitle" if kind == "inproceedings" else "howpublished", _value("venue", paper.venue))
        )
    if paper.year:
        fields.append(("year", str(paper.year)))
    if paper.url:
        fields.append(("url", _value("url", paper.url)))
    if not paper.title:
        fields.append(("note", _value("note", f"citeline entry {paper.id}, {paper.source}:{paper.line}")))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}"


def bibliography(papers: Iterable[Paper], cited_as: dict[str, list[str]] | None = None) -> str:
    """Entries for ``papers`` (each once, in order) under their :func:`cite_keys`.

    ``cited_as`` (paper ID → the answer's citation keys) puts a comment line before an entry,
    ``% [000-15] -> \\cite{key}``, so a writer can map the answer's citations; BibTeX ignores
    text between entries.
    """
    unique: dict[str, Paper] = {}
    for paper in papers:
        unique.setdefault(paper.id, paper)
    keys = cite_keys(unique.values())
    entries = []
    for paper in unique.values():
        key = keys[paper.id]
        mapping = "".join(f"% [{c}] -> \\cite{{{key}}}\n" for c in (cited_as or {}).get(paper.id, ()))
        entries.append(mapping + entry(paper, key))
    return "\n\n".join(entries)
