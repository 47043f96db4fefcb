"""Check someone else's draft: does each cited claim say what the cited paper says?

A related-work paragraph written by a chatbot, a student or a reviewer cites papers in the forms
people use: ``\\cite{key}`` through a ``.bib``, ``(Author, 2024)`` / ``[Author et al., 2024]``,
numbered ``[3]`` with a reference list at the end, and citeline's own ``[000-02]`` keys. Each
sentence that carries a citation is a claim; each citation is resolved to an indexed paper (a
citation that names none is reported, never skipped) and the claim is judged against the paper
with the same lexical judge the answer path uses (:func:`rag.text.supports`, strict about numbers)
plus a check that every name of the claim, coined (GenAlign, GPT-5) or capitalised (Mistral), is
in the paper. No model is needed. A claim its paper does not support is searched for in the whole
collection, so the report can suggest the citation that does support it.
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.answer.intent import VENUES
from rag.errors import CitelineError, warn
from rag.retrieval.relevance import coverage, paper_terms, paper_text
from rag.text import (
    MAX_QUERY_CHARS,
    NAME_PATTERN,
    RESEARCH_FILLER,
    STOP_WORDS,
    acronym_matches,
    acronym_singular,
    coined_names,
    has_name,
    is_coined,
    lexical_sequence,
    lexical_terms,
    lexical_words,
    math_spans,
    names_written,
    normalized,
    numbers_in,
    plain_text,
    proper_names,
    split_sentences,
    stem_terms,
    stem_written,
    stems_of,
    word_written,
)

if TYPE_CHECKING:
    from rag.llm.client import LLMHandle
    from rag.records import Paper
    from rag.retrieval import PaperSearch
    from rag.retrieval.relevance import Phrases, TermWeights
    from rag.settings import AnswerSettings

MAX_DRAFT_BYTES = 20 * 1024 * 1024  # a 200-page .tex is ~1 MB; anything far larger is not a draft
SUGGESTIONS = 3
# With a model: claims partly supported for want of shared words get its yes/no on the paper's closest
# sentences. Every prompt token costs ~28 ms on 2 cores, so a call is short and their number capped.
MODEL_CALLS = 4  # ~4 s each on a quiet machine, ~14 s when the cores are shared
SEARCH_CACHE = 256  # claim searches remembered per draft
AUTHOR_YEAR_CANDIDATES = 5  # an author-year citation matching more papers than this is unresolved
MODEL_SENTENCES = 2

SUPPORTED, PARTLY, NOT_SUPPORTED, UNRESOLVED = "supported", "partly supported", "not supported", "unresolved"
VERDICTS = (NOT_SUPPORTED, UNRESOLVED, PARTLY, SUPPORTED)

# --- reading the draft ---------------------------------------------------------------------------


def read_draft(path: str) -> tuple[str, str]:
    """The draft's text and kind (tex, md or txt); ``-`` reads stdin. Unreadable: a one-line error."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_DRAFT_BYTES + 1)
        kind, name = "txt", "stdin"
    else:
        file = Path(path)
        try:
            if file.stat().st_size > MAX_DRAFT_BYTES:
                raise CitelineError(f"{path}: larger than {MAX_DRAFT_BYTES >> 20} MB; is this a draft?")
            data = file.read_bytes()
        except OSError as exc:
            raise CitelineError(f"cannot read {path}: {exc.strerror or exc}") from None
        suffix = file.suffix.lower()
        kind = {".tex": "tex", ".md": "md", ".markdown": "md"}.get(suffix, "txt")
        name = path
    if len(data) > MAX_DRAFT_BYTES:
        raise CitelineError(f"{name}: larger than {MAX_DRAFT_BYTES >> 20} MB; is this a draft?")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CitelineError(f"{name} is not UTF-8 text (byte {exc.start})") from None
    return text, draft_kind(text, kind)


def draft_kind(text: str, kind: str) -> str:
    """``kind`` (tex, md or txt), except that plain text written in TeX is tex (a .tex piped
    through stdin or sent as text)."""
    if kind not in ("tex", "md", "txt"):
        raise CitelineError(f"unknown draft kind {kind!r} (use tex, md or txt)")
    if kind == "txt" and re.search(r"\\(?:cite[a-z]*|begin\{document\}|section)\b", text):
        return "tex"
    return kind


def _blank(text: str) -> str:
    """``text`` as spaces, its line breaks kept: gone from the prose, every offset and line still valid."""
    return re.sub(r"[^\n]", " ", text)


def _masked(text: str, kind: str) -> str:
    """``text`` with what is not prose blanked to spaces of the same length (offsets stay valid):
    TeX comments, preamble, commented-out and verbatim blocks; Markdown code and HTML comments."""

    def blank(match: re.Match[str]) -> str:
        return _blank(match.group(0))

    def break_(match: re.Match[str]) -> str:
        """Structure between sentences (a list item, a heading): a paragraph break of the same
        length, so that it ends the sentence before it instead of running into the next one."""
        width = len(match.group(0))
        return "\n\n" + " " * (width - 2) if width >= 2 else " " * width

    if kind == "tex":
        text = re.sub(r"(?<!\\)%[^\n]*", blank, text)
        begin = text.find("\\begin{document}")
        if begin >= 0:  # the preamble is no prose
            text = _blank(text[:begin]) + text[begin:]
        # Not read: commented-out blocks and verbatim text.
        text = re.sub(
            r"\\iffalse\b[\s\S]*?\\fi\b|\\begin\{(comment|verbatim\*?|lstlisting|minted)\}[\s\S]*?\\end\{\1\}",
            blank,
            text,
        )
        # Structure between sentences: list items, headings, lists and the abstract begin or end.
        text = re.sub(
            r"\\(?:(?:sub)*section|chapter|paragraph)\*?(?:\[[^\]]*\])?\{[^{}]*\}|\\(?:maketitle|item)\b"
            r"|\\(?:begin|end)\{(?:itemize|enumerate|description|abstract|document)\}",
            break_,
            text,
        )
        # Structure inside a sentence ("we minimise \\begin{equation} … \\end{equation} as in …"):
        # environments, labels and captions are blanked, not breaks.
        text = re.sub(
            r"\\(?:begin|end|label|caption)\*?(?:\[[^\]]*\])?\{(?!thebibliography\})[^{}]*\}",
            blank,
            text,
        )
    elif kind == "md":
        # Code (fenced with ``` or ~~~, or inline) and HTML comments are not prose.
        text = re.sub(r"```[\s\S]*?```|~~~[\s\S]*?~~~|<!--[\s\S]*?-->|`[^`\n]+`", blank, text)
    return text


# --- bibliographies ------------------------------------------------------------------------------


@dataclass
class Reference:
    """What a citation key stands for: a .bib entry, a reference-list line or a \\bibitem."""

    key: str
    title: str = ""
    authors: str = ""
    year: str = ""
    doi: str = ""
    url: str = ""
    text: str = ""  # the whole entry as written (a free-text reference line)
    entry: str = ""  # the paper id in citeline's own BibTeX ("note = {citeline entry 000-02, s.txt:5}")
    entry_source: str = ""  # and the file it came from: an id alone may name another list's paper

    def query(self) -> str:
        """What to search the collection for when nothing matches exactly ("" when the reference
        says nothing to search by but author and year: the claim is searched instead)."""
        return self.title or self.text


def parse_bib(text: str, name: str = "refs.bib") -> dict[str, Reference]:
    """Entries of a .bib (key → :class:`Reference`); anything malformed is a one-line error.

    Small and strict on purpose: field values in braces (nested), quotes or bare numbers/macros;
    ``@string`` macros are expanded, ``@comment``, ``@preamble`` and ``%`` comment lines between
    entries skipped.
    """
    entries: dict[str, Reference] = {}
    macros: dict[str, str] = {}
    pos = 0

    def fail(at: int, what: str) -> CitelineError:
        return CitelineError(f"{name}: line {text.count(chr(10), 0, at) + 1}: {what}")

    while (at := text.find("@", pos)) >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        if text[line_start:at].lstrip().startswith("%"):  # a comment line between entries (biber, JabRef)
            pos = text.find("\n", at) + 1 or len(text)
            continue
        head = re.compile(r"@\s*([A-Za-z]+)\s*([{(])").match(text, at)
        if not head:
            raise fail(at, "expected @type{ after @")
        kind = head.group(1).lower()
        close = "}" if head.group(2) == "{" else ")"
        i = head.end()
        if kind in ("comment", "preamble"):
            pos = _skip_group(text, head.end() - 1, fail)
            continue
        fields: dict[str, str] = {}
        if kind != "string":
            key_match = re.compile(r"\s*([^\s,{}()]+)\s*,").match(text, i)
            if not key_match:
                raise fail(i, f"@{kind} entry without a key")
            key, i = key_match.group(1), key_match.end()
        while True:
            i = _skip_space(text, i)
            if i < len(text) and text[i] == close:
                i += 1
                break
            name_match = re.compile(r"([A-Za-z][\w\-:.]*)\s*=\s*").match(text, i)
            if not name_match:
                raise fail(i, "expected field = value or the end of the entry")
            value, i = _value(text, name_match.end(), macros, fail)
            fields[name_match.group(1).lower()] = value
            i = _skip_space(text, i)
            if i < len(text) and text[i] == ",":
                i += 1
            elif i >= len(text) or text[i] != close:
                raise fail(i, "expected , or the end of the entry")
        pos = i
        if kind == "string":
            macros.update({k: v for k, v in fields.items()})
            continue
        if key in entries:
            raise fail(at, f"duplicate key {key!r}")
        entries[key] = Reference(
            key=key,
            title=_unbrace(fields.get("title", "")),
            authors=_unbrace(fields.get("author", "")),
            year=re.sub(r"\D", "", fields.get("year", ""))[:4],
            doi=fields.get("doi", "").strip().lower(),
            url=fields.get("url", "").strip(),
            **_citeline_entry(fields.get("note", "")),
        )
    return entries


def _citeline_entry(note: str) -> dict[str, str]:
    """The paper id and source file citeline wrote into an entry's note (``papers show --bibtex``):
    an entry of a seed list has no authors and only its label as title, so nothing else finds its
    paper. {} for any other note."""
    found = re.search(r"citeline entry (\S+?), (\S+?):\d+\s*$", _unbrace(note))
    if not found:
        return {}
    unescaped = [re.sub(r"\\([_&%#$])", r"\1", part) for part in found.groups()]
    return {"entry": unescaped[0], "entry_source": unescaped[1]}


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _skip_group(text: str, i: int, fail: Callable[[int, str], CitelineError]) -> int:
    """The index after the bracket group opening at ``i``."""
    opener = text[i]
    closer = "}" if opener == "{" else ")"
    depth = 0
    for j in range(i, len(text)):
        depth += (text[j] == opener) - (text[j] == closer)
        if depth == 0:
            return j + 1
    raise fail(i, f"unbalanced {opener}")


def _value(text: str, i: int, macros: dict[str, str], fail: Callable[[int, str], CitelineError]):
    """One field value (parts joined by ``#``) and the index after it."""
    parts: list[str] = []
    while True:
        i = _skip_space(text, i)
        if i >= len(text):
            raise fail(i, "the file ends inside an entry")
        if text[i] == "{":
            end = _skip_group(text, i, fail)
            parts.append(text[i + 1 : end - 1])
            i = end
        elif text[i] == '"':
            j, depth = i + 1, 0
            while j < len(text) and not (text[j] == '"' and depth == 0):
                depth += (text[j] == "{") - (text[j] == "}")
                j += 1
            if j >= len(text):
                raise fail(i, 'unterminated "')
            parts.append(text[i + 1 : j])
            i = j + 1
        else:
            bare = re.compile(r"[\w\-:.]+").match(text, i)
            if not bare:
                raise fail(i, "expected a value")
            token = bare.group(0)
            parts.append(token if token.isdigit() else macros.get(token.lower(), token))
            i = bare.end()
        i = _skip_space(text, i)
        if i < len(text) and text[i] == "#":
            i += 1
            continue
        return "".join(parts), i


def _unbrace(value: str) -> str:
    return " ".join(plain_text(re.sub(r"(?<!\\)[{}]", "", value)).split())


_REF_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*|\\section\*?\{|\*\*)?(?:references|bibliography|works cited)\b[^\n]*$",
    re.I | re.M,
)
_NEXT_HEADING = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+\S|\\(?:sub)*section\*?\{|\\appendix\b)", re.M)
_REF_ENTRY = re.compile(r"^[ \t]*(?:\[(\d{1,4})\]|(\d{1,4})[.)])[ \t]+", re.M)
_BIBITEM = re.compile(r"\\bibitem(?:\[[^\]]*\])?\{([^}]+)\}")


def reference_list(text: str, kind: str) -> tuple[tuple[int, int], dict[str, Reference]]:
    """Where the draft's own reference list is ((start, end); (len, len) if none) and its entries:
    numbered lines after a References heading, up to the next heading (an appendix may follow),
    or the ``\\bibitem``s of a ``thebibliography``."""
    refs: dict[str, Reference] = {}
    none = (len(text), len(text))
    if kind == "tex" and (start := text.find("\\begin{thebibliography}")) >= 0:
        close = text.find("\\end{thebibliography}", start)
        end = close + len("\\end{thebibliography}") if close >= 0 else len(text)
        items = list(_BIBITEM.finditer(text, start, end))
        for n, item in enumerate(items):
            stop = items[n + 1].start() if n + 1 < len(items) else (close if close >= 0 else end)
            refs[item.group(1).strip()] = _free_reference(item.group(1).strip(), text[item.end() : stop])
        return (start, end), refs
    headings = list(_REF_HEADING.finditer(text))
    if not headings:
        return none, refs
    start = headings[-1].start()
    after = _NEXT_HEADING.search(text, headings[-1].end())
    end = after.start() if after else len(text)
    entries = list(_REF_ENTRY.finditer(text, headings[-1].end(), end))
    for n, entry in enumerate(entries):
        stop = entries[n + 1].start() if n + 1 < len(entries) else end
        number = entry.group(1) or entry.group(2)
        refs[number] = _free_reference(number, text[entry.end() : stop])
    return ((start, end), refs) if refs else (none, {})


def _free_reference(key: str, entry: str) -> Reference:
    """A reference written as free text: its DOI, URL and year are found by shape."""
    entry = " ".join(entry.replace("\\newblock", " ").split())
    doi = re.search(r"\b10\.\d{4,9}/[^\s,;]+", entry)
    url = re.search(r"https?://[^\s,;)>]+", entry)
    year = re.search(r"\b(19|20)\d{2}\b", entry)
    quoted = re.search(r"[\"“]([^\"”]{8,})[\"”]|\\emph\{([^}]{8,})\}|\*([^*]{8,})\*", entry)
    title = next((g for g in quoted.groups() if g), "") if quoted else ""
    return Reference(
        key=key,
        title=title.strip(" ."),
        authors=entry.split(".")[0],
        year=year.group(0) if year else "",
        doi=doi.group(0).rstrip(".").lower() if doi else "",
        url=url.group(0).rstrip(".") if url else "",
        text=plain_text(entry),
    )


# --- citations in the text -----------------------------------------------------------------------

_CITE_COMMAND = re.compile(
    r"~?\\(?:[Cc]ite[a-zA-Z]*|[Pp]arencite|[Tt]extcite|autocite)\*?(?:\[[^\]]*\]){0,2}\{([^}]*)\}"
)
_SURNAME = r"(?:(?:van|von|de|del|der|da|di|le|la)\s+)?[A-Z][\w'’\-]+"
_AUTHOR_YEAR = re.compile(
    rf"({_SURNAME}(?:\s+(?:and|&)\s+{_SURNAME}|\s+et\s+al\.?)?),?\s+((?:19|20)\d{{2}})[a-z]?"
)
_GROUP = re.compile(r"\[([^\[\]\n]{1,200})\]|\(([^()\n]{1,200})\)")
_NARRATIVE = re.compile(
    rf"\b({_SURNAME}(?:\s+(?:and|&)\s+{_SURNAME}|\s+et\s+al\.?)?)\s+\(((?:19|20)\d{{2}})[a-z]?\)"
)
# A locator inside a citation's brackets ("p. 3", "Sec. 2", "Appendix B", "§4"): never a key.
_LOCATOR = re.compile(
    r"(?:see\s+)?(?:(?:p|pp|pg|sec|secs|section|fig|figs|figure|tab|table|eq|eqs|ch|chap|chapter|app|"
    r"appendix|thm|theorem|lemma|def|alg|algorithm|line|l)(?:\.\s*|\s+)|§\s*)~?[\w\-–.]{1,12}",
    re.I,
)
# "(ICML 2026)", "(December, 2024)", "in Spring (2024)": a venue or a date, not an author and year
# (alone: "(May et al., 2020)" and "(March and Simon, 1958)" are authors).
_NOT_AUTHOR = re.compile(
    "|".join(VENUES)
    + r"|NIPS|Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t|tember)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|Spring|Summer|Autumn|Fall|Winter|Since|Until|Version|Release"
    r"|Workshop|Proceedings|Conference|Journal|Preprint|Submitted|Accessed|Retrieved|Published|Updated",
    re.I,
)
# A paper id as answers cite it; OpenReview's may start with "-" (-qh0M9XWxnv).
# An id as a draft cites it: OpenReview's may start with "-" or "_" (_gZLyRGGuo); not "[-1000, 1000]".
_ID_TOKEN = re.compile(r"(?:[-_](?=[\w-]*[A-Za-z]))?[A-Za-z0-9][\w\-]{1,40}")


@dataclass
class Cite:
    """One citation in the draft: its key as written, how it was written, where, and what it names."""

    key: str
    style: str  # id | numbered | author-year | cite
    start: int
    end: int
    papers: list[str] = field(default_factory=list)  # indexed paper IDs it resolves to
    reference: Reference | None = None


def find_citations(
    text: str,
    is_id: Callable[[str], bool],
    numbered: dict[str, Reference],
    orphans: list[tuple[int, str]] | None = None,
) -> list[Cite]:
    """Every citation in ``text`` in order (spans into ``text``); bracket groups that are not
    citations ("in [0, 1]", "(see above)") are left alone. Numbered groups ("[3]", "[2, 5]") in a
    draft with no reference list go to ``orphans`` as (offset, group), to be reported: they look
    like citations, but nothing says what they cite."""
    found: list[Cite] = []
    unknown: list[Cite] = []  # bracketed tokens shaped like ids that name no paper
    taken: list[tuple[int, int]] = math_spans(text)  # "$[t_0, T]$" is no citation
    for m in _CITE_COMMAND.finditer(text):
        for key in (k.strip() for k in m.group(1).split(",")):
            if key:
                found.append(Cite(key, "cite", m.start(), m.end()))
        taken.append(m.span())
    for m in _NARRATIVE.finditer(text):
        if not _inside(m.start(), taken) and not _NOT_AUTHOR.fullmatch(m.group(1)):
            found.append(
                Cite(f"{_clean_author(m.group(1))}, {m.group(2)}", "author-year", m.start(), m.end())
            )
            taken.append(m.span())
    for m in _GROUP.finditer(text):
        if _inside(m.start(), taken):
            continue
        body = m.group(1) if m.group(1) is not None else m.group(2)
        cites = [
            Cite(f"{_clean_author(a.group(1))}, {a.group(2)}", "author-year", m.start(), m.end())
            for a in _AUTHOR_YEAR.finditer(body)
            if not _NOT_AUTHOR.fullmatch(a.group(1))
        ]
        if not cites and m.group(1) is not None:
            tokens = [t.strip() for t in re.split(r"[,;]", body) if t.strip()]
            if len(kept := [t for t in tokens if not _LOCATOR.fullmatch(t)]) < len(tokens) and kept:
                tokens = kept  # "[000-02, p. 3]", "[3, Sec. 2]": the page or section is not a key
            numbers = [n for t in tokens for n in _numbers(t)]
            if tokens and all(_ID_TOKEN.fullmatch(t) for t in tokens) and any(is_id(t) for t in tokens):
                cites = [Cite(t, "id", m.start(), m.end()) for t in tokens]
            elif numbered and numbers and all(n is not None for n in numbers):
                cites = [Cite(str(n), "numbered", m.start(), m.end()) for n in numbers]
            elif tokens and all(re.fullmatch(r"\d{3}-\d{2,4}", t) for t in tokens):
                cites = [Cite(t, "id", m.start(), m.end()) for t in tokens]  # citeline's shape, unknown id
            elif orphans is not None and numbers and all(n is not None and n > 0 for n in numbers):
                orphans.append((m.start(), m.group(0)))
            elif tokens and all(_ID_TOKEN.fullmatch(t) for t in tokens):
                unknown.extend(Cite(t, "id", m.start(), m.end()) for t in tokens)
        if cites:
            found.extend(cites)
            taken.append(m.span())
    # In a draft citing papers by id, a bracketed token shaped as they are ("[rJXMpikCX]", one
    # letter off an OpenReview id) is a citation to no paper (unresolved, so the exit status says
    # so), not text in brackets to skip; "[CLS]", "[GPT-4]" or "$[t0, T1]$" are not shaped so.
    shapes = set().union(*(_shape(c.key) for c in found if c.style == "id"))
    found.extend(c for c in unknown if _shape(c.key, near=True) & shapes)
    return sorted(found, key=lambda c: c.start)


def _shape(token: str, near: bool = False) -> set[tuple[int, frozenset[str]]]:
    """An id's shape: its length and which kinds of character it holds (capitals, small letters,
    digits, each other character); with ``near``, the lengths one off too (a letter dropped or
    doubled)."""
    kinds = frozenset(
        "A" if c.isupper() else "a" if c.islower() else "0" if c.isdigit() else c for c in token
    )
    lengths = (len(token) - 1, len(token), len(token) + 1) if near else (len(token),)
    return {(n, kinds) for n in lengths}


def _numbers(token: str) -> list[int | None]:
    """``3`` → [3]; ``3-5`` / ``3–5`` → [3, 4, 5]; anything else → [None]."""
    if token.isdigit():
        return [int(token)]
    if span := re.fullmatch(r"(\d+)\s*[-–]\s*(\d+)", token):
        low, high = int(span.group(1)), int(span.group(2))
        if low <= high <= low + 50:
            return list(range(low, high + 1))
    return [None]


def _clean_author(author: str) -> str:
    return " ".join(author.replace("et al", "et al.").replace("..", ".").split())


def _inside(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(a <= position < b for a, b in spans)


# --- resolution ----------------------------------------------------------------------------------


class PaperIndex:
    """Indexed papers looked up by DOI/URL, normalised title and (first-author surname, year)."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self.by_address: dict[str, str] = {}
        self.by_title: dict[str, str] = {}
        self.by_author_year: dict[tuple[str, str], list[str]] = {}
        self.sources: dict[str, str] = {}  # id -> the file it came from
        for paper in papers:
            self.sources[paper.id] = paper.source
            if paper.url:
                self.by_address.setdefault(_address(paper.url), paper.id)
            if paper.title:
                self.by_title.setdefault(normalized(plain_text(paper.title)), paper.id)
            if paper.authors and paper.year:
                surname = _surname(paper.authors[0])
                self.by_author_year.setdefault((surname, str(paper.year)), []).append(paper.id)

    def match(self, ref: Reference) -> list[str]:
        """The paper(s) ``ref`` names: by the id citeline's own BibTeX records, DOI/URL, then
        title, then first author + year."""
        if ref.entry in self.sources and self.sources[ref.entry] == ref.entry_source:
            return [ref.entry]
        for address in (ref.doi, ref.url):
            if address and (found := self.by_address.get(_address(address))):
                return [found]
        if ref.title and (found := self.by_title.get(normalized(ref.title))):
            return [found]
        if ref.text:
            text = normalized(ref.text)
            for title, pid in self.by_title.items():
                if len(title) > 15 and title in text:
                    return [pid]
        if ref.authors and ref.year:
            first = re.split(r"\s+and\s+|;|\s+et\s+al", ref.authors)[0]
            found_ids = self.by_author_year.get((_surname(first), ref.year), [])
            bare = not ref.title and not ref.text  # "(Wang et al., 2024)": nothing else to go by
            if len(found_ids) == 1 or (bare and len(found_ids) <= AUTHOR_YEAR_CANDIDATES):
                # Several papers of one first author and year ("Wang et al., 2024"): the claim is
                # judged against each and the one that supports it best is the one it cites.
                return found_ids
        return []


def _address(value: str) -> str:
    value = value.strip().lower()
    value = re.sub(r"^https?://(?:dx\.)?(?:doi\.org/|www\.)?", "", value)
    return value.rstrip("/")


def _surname(author: str) -> str:
    name = author.split(",")[0] if "," in author else (author.split() or [""])[-1]
    return normalized(name).replace(" ", "")


def author_year_reference(key: str) -> Reference:
    """``Smith et al., 2024`` as a reference: first author and year."""
    author, _, year = key.rpartition(", ")
    return Reference(key=key, authors=re.sub(r"\s+(?:et al\.?|and .*|& .*)$", "", author), year=year)


# --- judging -------------------------------------------------------------------------------------

# Antonyms that turn a result around: a claim that writes one where its paper writes the other
# (and not the same word) states the opposite of what the paper found. Stems, as lexical_terms
# writes them ("increases" -> "increas", "worse" -> "wors").
_OPPOSITES = [
    ("more", "less"), ("more", "fewer"), ("higher", "lower"), ("larger", "smaller"), ("greater", "smaller"),
    ("better", "wors"), ("improv", "worsen"), ("stronger", "weaker"), ("faster", "slower"),
    ("increas", "decreas"), ("increas", "reduc"), ("rais", "lower"), ("improv", "degrad"), ("improv", "hurt"),
    ("outperform", "underperform"), ("outperform", "fall short"), ("exceed", "fall short"),
    ("match", "fall short"), ("longer", "shorter"), ("lengthen", "shorten"), ("superior", "inferior"),
    ("strong", "weak"), ("help", "hurt"), ("success", "fail"), ("easier", "harder"), ("need", "remov"),
    ("requir", "remov"), ("increas", "lower"), ("rais", "reduc"), ("rais", "decreas"), ("increas", "reduct"),
    ("success", "failur"), ("synchron", "asynchron"), ("strengthen", "weaken"), ("benefit", "harm"),
    ("help", "harm"), ("littl", "most"), ("still", "no longer"), ("improv", "lower"), ("posit", "negat"),
    # qualities and their negations ("healthy" / "degenerate", "stable" / "unstable")
    # (not "consistent": its stem is that of "consists of"; nor "seen" of "as seen in Table 2")
    ("healthi", "degener"), ("stabl", "unstabl"), ("accur", "inaccur"), ("effici", "ineffici"),
    ("reliabl", "unreli"), ("safe", "unsaf"), ("fair", "unfair"), ("affect", "unaffect"),
]  # fmt: skip
# Techniques of one kind, none the other: a claim naming one where its paper names another in the
# same words ("a quantized KV cache" / "a sparse KV cache", "into state space models" / "into
# recurrent neural networks") has swapped the method. Each member lists its forms, as stems.
_SIBLINGS = (
    (("quantiz",), ("spars", "sparsiti"), ("prune",), ("distil",)),  # ways to make a model smaller
    (
        ("state space", "state-spac", "ssm", "ssms"),
        ("recurr", "rnn", "rnns", "lstm", "lstms", "gru", "grus"),
        ("convolut", "cnn", "cnns"),
    ),
    (
        ("diffus", "score-bas"),
        ("autoregress",),
        ("gan", "generat adversari"),
        ("vae", "variat autoencod"),
        ("flow match",),
        ("normal flow", "normalis flow"),
        ("energy-bas", "energi base"),
    ),  # generative model families
    (("dens",), ("spars", "sparsiti")),  # "dense autoencoders" for "sparse", "dense retrieval" for "sparse"
    (("white-box",), ("black-box",)),
    (("zero-shot",), ("few-shot",)),
)  # fmt: skip
# Each form of a member, with all its forms: a paper that writes "gated recurrent networks" has
# written the claim's "LSTM" kind of network, whatever else it names.
_FORMS = {form: member for group in _SIBLINGS for member in group for form in member}
_OPPOSITES += [
    (a, b)
    for group in _SIBLINGS
    for i, member in enumerate(group)
    for other in group[i + 1 :]
    for a in member
    for b in other
]
# Verbs of winning a comparison, as stems ("A beats B").
_WON = ("outperform", "surpass", "beat")
# Verbs that compare what comes before them with what comes after ("A beats B").
_COMPARING = frozenset((*_WON, "exceed", "match", "underperform")) | {
    "fall short", "fall behind", "lag behind",
}  # fmt: skip
# A comparison won and a comparison lost, however each is written ("beats" / "lags behind").
_OPPOSITES += [
    (won, lost)
    for won in (*_WON, "better", "superior")
    for lost in ("underperform", "fall short", "fall behind", "lag behind", "wors", "inferior")
    if (won, lost) not in _OPPOSITES
]
# A superlative turns a result around as its comparative does: "largest for the models with the most
# parameters" where the paper says "most pronounced for models with fewer parameters".
_SUPERLATIVES = {
    "more": "most", "less": "least", "fewer": "fewest", "higher": "highest", "lower": "lowest",
    "larger": "largest", "smaller": "smallest", "greater": "greatest", "better": "best", "wors": "worst",
    "stronger": "strongest", "weaker": "weakest", "faster": "fastest", "slower": "slowest",
    "longer": "longest", "shorter": "shortest", "easier": "easiest", "harder": "hardest",
}  # fmt: skip
_OPPOSITES += [  # only a comparative against a comparative: "improves" / "the lowest perplexity" agree
    (x, y)
    for a, b in list(_OPPOSITES)
    if a in _SUPERLATIVES and b in _SUPERLATIVES
    for x in (a, _SUPERLATIVES[a])
    for y in (b, _SUPERLATIVES[b])
    if (x, y) not in _OPPOSITES
]
_RANKING = frozenset(_SUPERLATIVES.values())
# Superlatives that rank nothing: a bound ("at least as well", "at most 10%") or an idiom.
_NO_SUPERLATIVE = re.compile(
    r"\bat\s+(?:the\s+(?:very\s+)?)?(?:least|most)\b|\bthe\s+best\s+of\s+(?:our|my|their)\s+knowledge\b"
    r"|\bbest[\s-]known\b|\bworst[\s-]case\b|\bleast[\s-]squares?\b|\bmost\s+of\b|\bfor\s+the\s+most\s+part\b"
    r"|\bmost\s+likely\b|\blast\s+but\s+not\s+least\b",
    re.I,
)
# Words either side of an antonym that show what it is about ("lowered the agreement among
# annotators" / "increased the inter-annotator agreement"): an antonym counts only where claim and
# sentence share one, so "far less predictable" is no answer to "16x more compute".
_ANCHOR_WINDOW = 4
_NO_ANCHOR = STOP_WORDS | RESEARCH_FILLER | {"model", "one"}  # compared as stems: see _context
_LACK_WORD = r"lack(?:s|ing|ed)?"
# "no more than 5%" bounds a figure: it negates nothing and denies no need.
_NOT_A_BOUND = r"(?!\s+(?:more|less|fewer)\s+than\b)"
_NEGATION = re.compile(
    rf"\b(?:not|no{_NOT_A_BOUND}|never|cannot|can't|don't|doesn't|didn't|isn't|aren't"
    r"|(?:incur\w*|add\w*|introduc\w*|with|has|have|having)\s+zero(?![\s-]+shot)"  # "incurs zero latency"
    r"|neither|nor|fails? to|unable to"
    rf"|(?P<lack>{_LACK_WORD}))\b",
    re.I,
)
_LACK = re.compile(rf"\b{_LACK_WORD}\b", re.I)
# Doing without something: "without X", and a need denied ("requires no fine-tuning", "needs no
# labels", "no need for retraining").
_NEED_DENIED = (
    rf"\b(?:requir\w*|needs?|needed)\s+no\b{_NOT_A_BOUND}"
    r"|\bno\s+need\s+(?:for|to|of)\b"
    # "removing the need for vector quantization", "circumvent the need for any coefficient"
    r"|\b(?:remov|eliminat|avoid|circumvent|obviat|bypass|sidestep|forgo)\w*\s+(?:the\s+|any\s+)?"
    r"(?:need|requirement|necessity)s?\s+(?:for|to|of)\b"
)
_WITHOUT = re.compile(rf"\bwithout\b|{_NEED_DENIED}", re.I)
_ASIDE = re.compile(r"\([^()]*\)")
# "A is better than B", "A shows better generalization than B" (the second group: what is compared)
_COMPARATIVE = re.compile(r"\b(\w+er|more \w+|less \w+|worse|better)(?:\s+(\w+))?\s+than\b", re.I)
# A sentence that reports what others believe or did, which the paper may go on to refute: it is
# not the paper saying so ("It is widely believed that collapse can be avoided ... We show ...").
_REPORTED = re.compile(
    r"\b(?:widely|commonly|generally|often)\s+(?:believed|assumed|thought|held)|\bcommon\s+belief"
    r"|\b(?:prior|previous|earlier|existing)\s+(?:work|works|methods?|approaches|studies|research)"
    r"|\btypically\b|\bconventional(?:ly)?\b",
    re.I,
)


@dataclass
class Judgement:
    """How one paper stands to one claim."""

    paper: Paper
    coverage: float  # IDF-weighted share of the claim's terms the paper holds
    missing: list[str]  # numbers and names (coined or capitalised) of the claim the paper lacks
    evidence: str  # the paper's sentence closest to the claim
    contradiction: str = ""  # how the paper says otherwise, if it does
    closest: bool = False  # the paper is the claim's best match in the whole collection
    sentences: list[str] = field(default_factory=list)  # the paper's sentences, closest first
    support: float = 0.5  # settings.answer.check_support: the share a supporting paper holds
    partial: float = 0.3  # settings.answer.check_partial: below it the paper does not speak to it

    @property
    def verdict(self) -> str:
        """Supported needs most weighted terms (some, when no indexed paper matches the claim
        better: a paraphrase shares fewer words), every number and name, and no opposite finding;
        some terms make it partial."""
        if self.contradiction:
            return NOT_SUPPORTED
        enough = self.support if not self.closest else self.partial
        if self.coverage >= enough and not self.missing:
            return SUPPORTED
        if self.coverage >= self.partial:
            return PARTLY
        return NOT_SUPPORTED

    @property
    def reason(self) -> str:
        """What keeps the claim from being supported, in a few words ("" when it is)."""
        if self.contradiction:
            return self.contradiction
        if self.missing:
            return "not in the paper: " + ", ".join(self.missing)
        if self.coverage < (self.partial if self.closest else self.support):
            return f"the paper holds {self.coverage:.0%} of the claim's weighted terms"
        return ""


def judge(
    claim: str,
    paper: Paper,
    weights: TermWeights,
    tuning: AnswerSettings,
    closest: bool = False,
    phrases: Callable[[], Phrases] | None = None,
) -> Judgement:
    """The claim against the paper's title, label and abstract: IDF-weighted term coverage (as
    retrieval judges relevance), every number and name (coined or capitalised) present, no
    finding turned around, no term of the field swapped for another (when ``phrases`` gives the
    collection's counts: see :func:`swapped_term`), and the closest sentence as evidence;
    ``tuning`` (``settings.answer``) holds the thresholds."""
    read = _read(paper)
    claim = plain_text(claim)
    terms = lexical_terms(claim)
    share = coverage(terms, read.terms, weights)
    missing = sorted(numbers_in(claim) - read.stated)
    names = [n for n in coined_names(claim) if not n.isdigit()]
    missing += sorted(n for n in names if not _names(read.text, n))
    missing += _unsaid(claim, names, paper, read.terms)
    proper = proper_names(claim)
    missing += [w for w in proper if not _writes(read, paper, w)]
    missing += [joined for joined in _joined_names(claim, proper) if not _writes_joined(read, joined)]
    order = sorted(range(len(read.sentences)), key=lambda i: -coverage(terms, read.words[i], weights))
    ranked = [read.sentences[i] for i in order]
    turned = contradiction(claim, ranked) or (swapped_term(claim, read, phrases) if phrases else "")
    return Judgement(
        paper, share, missing, ranked[0], turned, closest, ranked, tuning.check_support, tuning.check_partial
    )


def _writes(read: _Read, paper: Paper, name: str) -> bool:
    """The paper writes ``name`` (a capitalised word of the claim) in some form: "Transformers"
    for its "transformer", "Markovian" for its "Markov", or as an author ("Wang et al. show")."""
    return word_written(name, read.terms | set(lexical_terms(" ".join(paper.authors))))


# A capitalised word right before a coined name ("Soft MoE", "Bayesian GNNs", "Deep Q-Network"):
# the two name one method, not any MoE, so a paper about another MoE does not support it.
_BEFORE_NAME = re.compile(rf"\b([A-Z][a-z]{{2,}})\s+({NAME_PATTERN})")
# How far before the name the paper may write the word ("Bayesian graph neural networks (GNNs)"),
# and after it ("RBF (Gaussian) kernel", "MMLU in English").
_JOINED_WITHIN = 4
_JOINED_AFTER = 2


def _joined_names(claim: str, proper: list[str]) -> list[str]:
    """The claim's capitalised words (``proper``, from :func:`proper_names`) written right before
    a coined name, each with that name ("Soft MoE")."""
    return [
        f"{word} {name}"
        for word, name in _BEFORE_NAME.findall(claim)
        if word in proper and is_coined(name) and not name[0].isdigit()  # "Llama 70B": a size
    ]


def _writes_joined(read: _Read, joined: str) -> bool:
    """The paper writes the word of ``joined`` at most :data:`_JOINED_WITHIN` terms before its
    name ("soft MoE", "Bayesian graph neural networks (GNNs)" for "Bayesian GNNs") or
    :data:`_JOINED_AFTER` after it ("MMLU in English" for "English MMLU"). A paper on SMEAR that
    "softly merges experts" several terms after naming MoE does not write Soft MoE. A name the
    paper writes only inside a longer one ("Tendency RL" for its "TRL") leaves nothing to place."""
    word, name = (_sequence(part) for part in joined.split(" ", 1))
    if not word or not name:
        return True
    terms = read.sequence
    if name[0] not in terms:
        return True
    return any(
        word[0] in terms[max(0, i - _JOINED_WITHIN) : i + 1 + _JOINED_AFTER]
        for i, term in enumerate(terms)
        if term == name[0]
    )


@dataclass(frozen=True)
class _Read:
    """What judging reads of one paper, computed once per paper and draft: a long .tex cites few
    papers thousands of times (a 2,200-claim thesis spent most of its time re-reading them)."""

    text: str  # title, label and abstract as plain text
    terms: frozenset[str]  # their lexical terms
    stated: frozenset[str]  # the numbers they state, and the year
    sentences: tuple[str, ...]  # the abstract's sentences
    words: tuple[frozenset[str], ...]  # each sentence's lexical terms
    pairs: frozenset[tuple[str, str]]  # adjacent lexical terms within the title, the label or a sentence
    title_pairs: frozenset[tuple[str, str]]  # terms the title writes side by side, nothing between
    sequence: tuple[str, ...]  # the lexical terms of title, label and abstract in order


@functools.lru_cache(maxsize=1024)
def _read(paper: Paper) -> _Read:
    text = plain_text(paper_text(paper))
    stated = numbers_in(text, spelled=True) | numbers_in(str(paper.year or ""))  # "introduced in 2024"
    sentences = tuple(split_sentences(plain_text(paper.abstract)) or [paper.abstract])
    return _Read(
        text,
        frozenset(paper_terms(paper)),
        frozenset(stated),
        sentences,
        tuple(frozenset(_sequence(s)) for s in sentences),
        frozenset(p for part in (paper.title, paper.label, *sentences) for p in pairwise(_sequence(part))),
        _side_by_side(paper.title),
        _sequence(text),
    )


@functools.lru_cache(maxsize=1024)
def _side_by_side(text: str) -> frozenset[tuple[str, str]]:
    """Pairs of lexical terms ``text`` writes next to each other, with no stop word or punctuation
    between ("value model" in "Don't throw away your value model!", not "matters learning" in
    "Why memory matters for learning")."""
    pairs: set[tuple[str, str]] = set()
    previous: list[str] = []
    for token in re.findall(r"[\w'’-]+|[^\w\s]", text):
        stems = lexical_terms(token) if re.match(r"\w", token) else []
        pairs.update(pairwise(stems))  # "Value-guided"
        if previous and stems:
            pairs.add((previous[-1], stems[0]))
        previous = stems
    return frozenset(pairs)


def _unsaid(claim: str, names: list[str], paper: Paper, present: set[str]) -> list[str]:
    """What the claim says about what it names, when the paper writes none of it: "AdaSCALE is
    terrible" holds one word besides the name, and a name weighs more than any other word (and a
    word no paper uses weighs little), so the name alone made it "supported". A claim needs one
    word of its own beyond the names in the paper (or one sharing its stem's start: "detector",
    "detection"); else those words are what is missing. Words that only point at or attribute a
    paper ("See X", "X was introduced by Moreau et al. in 2024", "Prior work includes X") and
    numbers (checked on their own) are not what a claim says; nor is the draft's own work."""
    if _OWN_WORK.match(claim):
        return []
    named = {t for n in names for t in lexical_terms(n)}
    named |= {t for a in paper.authors for t in lexical_terms(a)}
    said = [
        w
        for w in re.findall(r"[A-Za-z][\w-]*", claim)
        if w.lower() not in _POINTING and (t := lexical_terms(w)) and not set(t) <= named
    ]
    if not said or any(stem_written(t, present) for w in said for t in lexical_terms(w)):
        return []
    won = any(t.startswith(_WON) for w in said for t in lexical_terms(w))
    if won and any(t.startswith(_WON) for t in present):
        return []  # "beats" where the paper "outperforms": a win said in other words
    return list(dict.fromkeys(said))


# A sentence about the draft's own work ("We build on X [3]", "Following [3], our model …",
# "Unlike X, we …") cites what it uses or sets itself apart from; it says nothing of the paper.
_OWN_WORK = re.compile(r"^\s*(?:we|our|us|following|like|unlike|as\s+in)\b", re.IGNORECASE)
# Words that point at or attribute a paper rather than say what it found.
_POINTING = RESEARCH_FILLER | frozenset(
    "see cf e.g eg et al example examples instance prior previous earlier recent related work works"
    " include includes including included introduce introduces introduced present presents presented"
    " describe describes described study studies studied proposes one ones first originally popular"
    " known widely seminal line family notable representative reference references".split()
)


def _borderline(judged: Judgement) -> bool:
    """Partly supported for want of shared words alone (nothing missing, nothing turned around):
    a paraphrase the model may recognise. Only this: the embedded 1.5B model said "no" to four of
    six correct dev claims it was shown, so its answer may lift a claim but never sink one."""
    return judged.verdict == PARTLY and not judged.contradiction and not judged.missing


def claim_prompt(claim: str, sentences: list[str]) -> str:
    """The yes/no question about one claim: the paper's sentences and the claim each inside their
    own markers, as data, with any sentence that addresses the model left out of both."""
    from rag.answer.context import without_injections
    from rag.resources import prompt_text

    evidence = without_injections(" ".join(sentences))
    return prompt_text("claim_check").format(evidence=evidence, claim=without_injections(claim))


def _names(text: str, name: str) -> bool:
    """``text`` writes ``name``, or the same acronym in the singular or plural, inside a longer
    acronym (a paper on MLLMs speaks of LLMs), or spelled out ("large language models" for LLMs:
    a claim may shorten what its paper writes in full)."""
    if has_name(text, name):
        return True
    core = acronym_singular(name)
    if not core.isupper():
        return has_name(text, core) or has_name(text, core + "s")
    acronyms = (w for w in names_written(text) if w.isupper() or w[:-1].isupper())
    return any(core in written for written in acronyms) or bool(acronym_matches(name, text))


@functools.lru_cache(maxsize=8192)
def _sequence(text: str) -> tuple[str, ...]:
    """:func:`lexical_sequence`, cached (as :func:`_stems`, and for the same reason): it was
    half the time of checking a long .tex."""
    return tuple(lexical_sequence(text))


@functools.lru_cache(maxsize=4096)
def _stems(text: str) -> str:
    """Text as one string of its lexical terms, for phrase look-ups (" fall short "). Cached: every
    claim of a draft reads every sentence of the papers it cites, and a long .tex cites few papers
    many times."""
    return f" {' '.join(stem_terms(text, frozenset()))} "


def contradiction(claim: str, evidence: list[str], closest: int = 2) -> str:
    """How the evidence sentences say the opposite of the claim, or "".

    Its shapes, all lexical: an antonym (the claim's "weaker" where the paper writes "stronger", a
    superlative as its comparative, each next to two words the other side has next to it, so that
    both speak of the same thing); a need on one side that the other does without ("depends on
    fine-tuning" / "requires no fine-tuning"); a clear win the paper calls narrow; a quality one
    side makes more of where the other changes it the other way ("leaves it safer" / "degrades
    its safety", :func:`_changed_the_other_way`); a claim giving two things opposite signs where
    the paper gives one of them the other (:func:`_signs_crossed`); "less fair" against "fairer";
    a negation the other side lacks in front of the same words ("they do not spontaneously make
    ..."); and a comparison turned around ("A is worse than B" where the paper writes "B is worse
    than A", or "A outperforms B" where it writes "B, outperforming A"). ``evidence`` is ranked,
    closest to the claim first: the antonym, the need, the narrow win, the changed quality and the
    crossed signs are looked for
    in every sentence (the words they share say what they are about), the other shapes only in
    the ``closest`` sentences, as they say nothing of what they are about ("less than 1% of the
    parameters" is not turned around by "more than 20 datasets" elsewhere in the abstract).
    Abstracts set earlier work against their own, so a paper that also writes the claim's side
    (its word as near the claim as the opposite, or the negated words plainly) has said both, and
    nothing is turned around (of 1,465 authors' TL;DRs checked against their own papers, 10 are
    turned around, as before this rule and the antonyms it came with; 11 since 2026-12-07).
    """
    said = _stems(claim)
    paper = " ".join(evidence)  # the whole abstract: what it says outside one sentence counts too
    pairs = [  # the claim's antonyms: few, so each sentence is looked at for those only
        (mine, theirs, _context(said, mine))
        for a, b in _OPPOSITES
        for mine, theirs in ((a, b), (b, a))
        if f" {mine} " in said and f" {theirs} " not in said
    ]
    if any(mine in _FORMS for mine, _, _ in pairs):  # a technique the paper names in another form
        written = _stems(paper)
        pairs = [p for p in pairs if not any(f" {form} " in written for form in _FORMS.get(p[0], ()))]
    # How near the paper's own uses of the claim's word come to the claim's, in the sentence that
    # comes nearest (not negated, not reporting others' belief): a paper that writes the claim's
    # word about the same thing as near as its opposite has said both, of earlier work and its
    # own ("typically asynchronous"; "we revisit synchronous"), and nothing is turned around.
    stated = list(_stated(evidence)) if pairs else []
    own = {mine: max((_shared(near, s, mine) for s in stated), default=0) for mine, _, near in pairs}
    for rank, sentence in enumerate(evidence):
        found = _stems(sentence)
        for mine, theirs, near in pairs:
            if not _opposed(mine, claim, theirs, sentence):
                continue
            shared = _shared(near, found, theirs)
            if shared >= 2 and shared > own[mine] and not _roles_swapped(claim, mine, sentence, theirs):
                said_as = f"the paper says {_word_of(sentence, theirs)}, the claim {_word_of(claim, mine)}"
                return f"{said_as}: “{sentence}”"
        # What one side needs and the other does without is named by its words, as an antonym's
        # anchor is: every sentence is looked at; so is a win the paper calls narrow.
        if flipped := _needed_without(claim, sentence, paper) or _overstated(claim, sentence):
            return flipped
        if changed := _changed_the_other_way(claim, sentence):
            return f"the paper says {changed}: “{sentence}”"
        if (sign := _signs_crossed(claim, sentence)) and _in_own_voice(sentence):
            return f"the paper says {sign.group(0)}: “{sentence}”"
        if rank >= closest:
            continue
        if graded := _graded(claim, sentence):
            return f"the paper says {graded}: “{sentence}”"
        if flipped := _negated(claim, sentence, evidence) or _quality_denied(claim, sentence):
            return flipped
        if _compared_the_other_way(claim, sentence):
            return f"the paper compares the other way round: “{sentence}”"
    return ""


@dataclass(frozen=True)
class _OneForm:
    """An antonym pair that opposes only in some forms: ``forms`` (stem → the form each side must
    write it in) and ``not_of`` (stems of what, written just after either antonym, makes the pair
    agree instead)."""

    forms: dict[str, re.Pattern[str]]
    not_of: frozenset[str] = frozenset()


# "positive" and "negative" turn a finding around said of a correlation or an effect ("correlates
# negatively", "a positive correlation"), not of a rate, a class or a pair ("false positive rate").
_RELATION = r"(?:correlat\w*|associat\w*|relationship|effects?|impacts?|influence)"
_RELATED = r"(?:correlat\w*|associat\w*|relat\w*)"
# "lowers accuracy" turns "improves accuracy" around; a "lower bound" or "lower complexity" does
# not, nor "lowers the error" (lower is better there). "recovers little of the gain" turns "most of
# the gain" around; "little understanding" of one thing, "at most 10%" and "the most information"
# do not.
_ONE_FORM = {
    frozenset({"improv", "lower"}): _OneForm(
        {"lower": re.compile(r"\blower(?:s|ed|ing)\b", re.I)},
        frozenset(
            stem_terms(
                "error errors loss losses perplexity latency cost costs regret variance memory runtime "
                "overhead bias risk fid wer toxicity hallucination hallucinations leakage violations",
                frozenset(),
            )
        ),
    ),
    frozenset({"posit", "negat"}): _OneForm(
        {
            "posit": re.compile(rf"\bpositive(?:ly)?\s+{_RELATION}|\b{_RELATED}\s+positive(?:ly)?\b", re.I),
            "negat": re.compile(rf"\bnegative(?:ly)?\s+{_RELATION}|\b{_RELATED}\s+negative(?:ly)?\b", re.I),
        }
    ),
    frozenset({"littl", "most"}): _OneForm(
        {
            "littl": re.compile(r"\blittle\s+of\b", re.I),
            "most": re.compile(r"(?<!\bat )(?<!\bthe )\bmost\b", re.I),
        }
    ),
}


# Where a clause ends: a change or a comparative is turned around only by a negation in its own.
_CLAUSE_BREAK = re.compile(r"[,;:()]|\b(?:but|while|whereas|although|though)\b", re.I)
# "positively" or "negatively", each read with the words of its own clause (:func:`_signed`).
_SIGN = re.compile(r"\b(positive|negative)(?:ly)?\b", re.I)
_SIGN_OBJECT = 4  # content words of the claim that name what a sign is said of
_SIGN_REACH = 8  # content words after the paper's sign it may name them in
_SIGN_BEFORE = re.compile(rf"{_CLAUSE_BREAK.pattern}|\band\b", re.I)  # an "and" starts another thing too
_NOT_OBJECT = stems_of(_NO_ANCHOR) | frozenset(
    stem_terms("correlation association relationship effect", frozenset())
)


def _signs_crossed(claim: str, sentence: str) -> str:
    """A claim relating its subject to two things with opposite signs ("correlates negatively with
    model size but positively with world knowledge") where the paper gives one of them the other
    sign ("a strong positive correlation between brain alignment and model size"): the paper's
    sign as written, or "". Such a claim holds both words, so the antonym rule, which wants the
    paper's word missing from the claim, cannot see it; here each sign is read with its own
    clause's words (:func:`_signed`): the paper's sign is said of all the claim's sign is said of
    after it, and of some of the claim's subject (the words before its first sign), so "data
    diversity has a negative effect on training speed" does not cross "robustness is positively
    associated with data diversity"."""
    if not re.search(rf"{_RELATION}|{_RELATED}", claim, re.I):
        return ""
    mine = _signed(claim, _SIGN_OBJECT)
    if len({sign for sign, _, _, _ in mine}) < 2:
        return ""
    subject = mine[0][1]
    theirs = [
        (sign, before | after, word)
        for sign, before, after, word in _signed(sentence, _SIGN_REACH)
        if _opposed_form(word, sentence)
    ]
    if len(frozenset().union(*(said for _, _, said, _ in mine))) < 2:  # too little to tell what of
        return ""
    for sign, _, said, _ in mine:
        if not said:
            continue
        if any(s == sign and said <= found for s, found, _ in theirs):
            continue
        for other, found, word in theirs:
            if other != sign and said <= found and (not subject or subject & found):
                return word
    return ""


def _signed(text: str, reach: int) -> list[tuple[str, frozenset[str], frozenset[str], re.Match[str]]]:
    """(the sign's stem, the content stems of its clause before it, the first ``reach`` after
    it, the sign as written) for each sign of ``text``. Before it: back to the clause's start, an
    "and" or the previous sign ("Label noise is negatively associated …"); after it: up to the
    next sign or the clause's end ("… with robustness, and data diversity …" names no diversity)."""
    found = list(_SIGN.finditer(text))
    out = []
    for n, m in enumerate(found):
        start = found[n - 1].end() if n else 0
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        before = _SIGN_BEFORE.split(text[start : m.start()])[-1]
        after = _CLAUSE_BREAK.split(text[m.end() : end])[0]
        stems = [
            [t for t in _sequence(part) if t not in _NOT_OBJECT and len(t) > 2] for part in (before, after)
        ]
        out.append((_stem_of(m.group(1)), frozenset(stems[0][-reach:]), frozenset(stems[1][:reach]), m))
    return out


def _opposed_form(sign: re.Match[str], sentence: str) -> bool:
    """The paper's sign is said of a relation (:data:`_ONE_FORM`): "positive correlation", not a
    "false positive rate"."""
    form = _ONE_FORM[frozenset({"posit", "negat"})].forms[_stem_of(sign.group(1))]
    return any(f.start() <= sign.start() < f.end() for f in form.finditer(sentence))


def _opposed(mine: str, claim: str, theirs: str, sentence: str) -> bool:
    """The claim's ``mine`` and the sentence's ``theirs`` oppose as written (:data:`_ONE_FORM`):
    each in its form, and neither said of what makes them agree (the two words after it); a
    superlative written only in a bound or an idiom (:data:`_NO_SUPERLATIVE`) ranks nothing."""
    for word, text in ((mine, claim), (theirs, sentence)):
        if word in _RANKING and not re.search(rf"\b{word}", _NO_SUPERLATIVE.sub(" ", text), re.I):
            return False
    pair = _ONE_FORM.get(frozenset({mine, theirs}))
    if pair is None:
        return True
    sides = ((mine, claim), (theirs, sentence))
    if not all(form.search(text) for word, text in sides if (form := pair.forms.get(word))):
        return False
    return not any((found := _around(text, word)) and found[1] & pair.not_of for word, text in sides)


def _word_of(text: str, stem: str) -> str:
    """The word of ``text`` written from ``stem`` ("increased" for "increas"): a reason names words
    as the reader wrote them, not as the stemmer cut them."""
    if " " in stem:  # "fall short"
        words = r"\w*\s+".join(re.escape(part) for part in stem.split())  # "variat autoencod"
        found = re.search(rf"\b{words}\w*", text, re.IGNORECASE)
        return found.group(0) if found else stem
    for found in re.finditer(r"\b[\w'’-]+", text):  # not "moreover" for "more"; "healthy" for "healthi"
        if stem_terms(found.group(0), frozenset()) == [stem]:
            return found.group(0)
    return stem


def _context(stems: str, word: str) -> set[str]:
    """The content words within :data:`_ANCHOR_WINDOW` content words of each use of ``word`` (a
    whole stem, or two: "fall short"; "moreover" is no "more") in ``stems`` (:func:`_stems`
    output). Counted in content words, so "fall short of transformers of the same size" reaches
    "size" as "exceed performance of comparably sized transformers" does."""
    parts = word.split()
    no_anchor = stems_of(_NO_ANCHOR)
    words = [w for w in stems.split() if w in parts or (len(w) > 2 and w not in no_anchor)]
    near: set[str] = set()
    for i in range(len(words) - len(parts) + 1):
        if words[i : i + len(parts)] == parts:
            near.update(words[max(0, i - _ANCHOR_WINDOW) : i + len(parts) + _ANCHOR_WINDOW])
    return near - set(parts)


def _shared(near: set[str], found: str, theirs: str) -> int:
    """How many of ``near`` (the content words around the claim's antonym, :func:`_context`) are
    near ``theirs`` in ``found`` (:func:`_stems` output): two say both sides speak of the same
    thing. One was too few: "requires" next to "neurons" turned around a TL;DR about "removing
    correlated neurons" (of 1,465 authors' TL;DRs checked against their own papers, 16 were
    turned around with one shared word, 8 with two)."""
    return len(near & _context(found, theirs)) if f" {theirs} " in found else 0


def _stated(evidence: Sequence[str]) -> Iterator[str]:
    """The stems of the evidence sentences in which the paper says something itself."""
    return (_stems(s) for s in evidence if _in_own_voice(s))


@functools.lru_cache(maxsize=4096)
def _in_own_voice(sentence: str) -> bool:
    """The paper states ``sentence`` itself: no negation, and no report of what others believe
    or did (:data:`_REPORTED`). Cached: every claim of a draft asks it of its papers' sentences."""
    return not _negates(sentence) and not _REPORTED.search(sentence)


def _roles_swapped(claim: str, mine: str, sentence: str, theirs: str) -> bool:
    """ "A beats B" and "B lags behind A" say the same: what comes just before the antonym on one
    side comes just after it on the other (what both write on both sides, "attention" in "sparse
    attention beats dense attention", tells nothing)."""
    if not ({mine, theirs} <= _COMPARING):  # "better Q than B" compares around "than" (below)
        return False
    a, b = _around(claim, mine), _around(sentence, theirs)
    if a is None or b is None:
        return False
    return _crossed(a[0] - a[1], a[1] - a[0], b[0] - b[1], b[1] - b[0])


def _around(text: str, stem: str, width: int = 2) -> tuple[set[str], set[str]] | None:
    """The ``width`` content terms of ``text`` just before and just after its first word(s)
    stemming to ``stem``: the two sides of a comparison."""
    words = [s for _, s in lexical_words(text)]
    parts = stem.split()
    for i in range(len(words) - len(parts) + 1):
        if words[i : i + len(parts)] == parts:
            return set(words[max(0, i - width) : i]), set(words[i + len(parts) : i + len(parts) + width])
    return None


def _crossed(before_a: set[str], after_a: set[str], before_b: set[str], after_b: set[str]) -> bool:
    """What comes before one side's word comes after the other's, more than in the same order."""
    crossed = len(before_a & after_b) + len(after_a & before_b)
    return crossed > len(before_a & before_b) + len(after_a & after_b)


def _graded(claim: str, sentence: str) -> str:
    """ "less fair" on one side where the other writes "fairer" or "more fair" (or the reverse):
    the phrase the other side uses, or ""."""
    for less_side, other in ((claim, sentence), (sentence, claim)):
        for word in re.findall(r"\bless (\w{3,})", less_side.lower()):
            if word in STOP_WORDS:  # "less than 1%" grades nothing
                continue
            found = re.search(rf"\b(?:more {word}|{word}e?r)\b", other.lower())
            if found and f"less {word}" not in other.lower():
                return found.group(0) if less_side is claim else f"less {word}"
    return ""


# A quality made more or less of by a verb ("degrades the model's safety", "improves robustness"),
# against a comparative of the same quality on the other side ("leaves it safer", "less robust").
# The verbs as verbs ("harmless", "a lower bound" change nothing), their object right after them,
# past determiners, possessives and up to two modifiers ("improves MLLMs' adversarial robustness";
# "raises concerns about their safety" raises no safety), and not a cost of the quality ("reduces
# the robustness gap").
_RAISES = r"(?:improv|increas|enhanc|rais)(?:e|es|ed|ing)\b|\b(?:boost|strengthen)(?:s|ed|ing)?\b"
_LOWERS = (
    r"(?:degrad|reduc|decreas|compromis|undermin|erod)(?:e|es|ed|ing)\b"
    r"|\b(?:lower|weaken|impair)(?:s|ed|ing)\b|\b(?:harm|hurt)(?:s|ed|ing)?\b"
)
_OBJECT_WORD = r"(?!(?:about|of|on|in|for|with|to|from|by|at|over|into|than|and|or|but)\b)[\w'’-]+\s+"
_CHANGED = re.compile(
    rf"\b(?:(?P<up>{_RAISES})|(?P<down>{_LOWERS}))\s+(?P<what>(?:{_OBJECT_WORD}){{0,3}}[\w-]+)", re.I
)
# An opening condition of a few words up to its comma ("Without safety data, …"); not an idiom.
_CONDITION = re.compile(
    r"\W*(?:without|unless|absent|in\s+the\s+absence\s+of|(?:if|when)\s+no)\b"
    r"(?!\s+(?:doubt|exception|loss\s+of\s+generality|question)\b)[^,;]{1,60},",
    re.I,
)
# What a lack of robustness is to: the quality at large, not another thing ("overfitting").
_ATTACKS = frozenset(
    stem_terms(
        "attacks attack adversaries adversarial perturbations perturbation noise jailbreaks jailbreak"
        " corruptions corruption shifts shift manipulation poisoning backdoors examples inputs",
        frozenset(),
    )
)
_TO_WHAT = re.compile(r"\s+to\s+(?:the\s+|an?\s+)?([\w-]+)", re.I)
_COST = re.compile(
    r"(?:gaps?|loss(?:es)?|drops?|risks?|concerns?|costs?|bounds?|penalt(?:y|ies)|violations?)$", re.I
)
_MORE = re.compile(
    r"\b(?:more\s+(?P<more>[a-z]{4,})|(?P<er>[a-z]{3,})er\s+than)\b|\bless\s+(?P<less>[a-z]{4,})\b", re.I
)


# A quality named by its opposite: "more vulnerable" is less robust, "more unstable" less stable.
_LACKING = {
    "vulnerable": "robust", "susceptible": "robust", "brittle": "robust", "fragile": "robust",
    "unsafe": "safe", "unstable": "stable", "unfair": "fair", "inaccurate": "accurate",
    "inefficient": "efficient", "unreliable": "reliable", "unrobust": "robust",
}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _qualities(text: str) -> tuple[tuple[int, str, re.Match[str]], ...]:
    """(+1 or -1, the quality's stem, the comparative as written) for each comparative of
    ``text``: "safer than" → (1, "saf", …), "more robust" → (1, "robust", …), "less fair" → (-1,
    "fair", …), "more vulnerable" → (-1, "robust", …) (:data:`_LACKING`). Cached, as
    :func:`_changes`: a claim is read against every sentence of its paper."""
    found = []
    for m in _MORE.finditer(text):
        sign, adjective = (-1, m.group("less")) if m.group("less") else (1, m.group("more") or m.group("er"))
        adjective = adjective.lower()
        if adjective in _LACKING:
            sign, adjective = -sign, _LACKING[adjective]
        found.append((sign, adjective, m))
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _changes(text: str) -> tuple[tuple[int, re.Match[str]], ...]:
    """(+1 for a raise, -1 for a lowering; the :data:`_CHANGED` match) for each change of ``text``."""
    return tuple((-1 if m.group("down") else 1, m) for m in _CHANGED.finditer(text))


def _same_quality(adjective: str, noun: str) -> bool:
    """ "safe" (or the comparative's stem "saf") and "safety", "robust" and "robustness",
    "stable" and "stability", "accurate" and "accuracy": a noun of the adjective's family. The
    adjective itself is no such noun (no suffix below is empty), so a "transformer than" names no
    quality "transformation"."""
    stem = adjective.rstrip("e")
    if len(stem) < 3:
        return False
    nouns = {stem + tail for tail in ("ty", "ety", "ity", "ness", "eness", "ities", "nesses")}
    if adjective.endswith("ble"):  # stable → stability
        nouns |= {adjective[:-3] + "bility", adjective[:-3] + "bilities"}
    if adjective.endswith("ate"):  # accurate → accuracy
        nouns.add(adjective[:-2] + "cy")
    if adjective.endswith("ent"):  # efficient → efficiency
        nouns.add(adjective[:-1] + "cy")
    return noun.lower() in nouns


def _changed_the_other_way(claim: str, sentence: str) -> str:
    """One side makes a quality more of it ("leaves the model safer than …") where the other
    changes it the other way ("degrade the model's safety"), both about the same thing (two
    content words near the comparative and near the verb or its quality in common, as for an
    antonym): the other side's phrase, or "". A quality may be named by its opposite ("more
    vulnerable" against "improves robustness", :data:`_LACKING`).

    Not when a negation in the clause before the change or the comparative turns it around ("does
    not make it more robust"; a hedge after it, "…, but not substantially", does not), when the
    sentence reports earlier work ("existing methods degrade safety"), when the sentence also says
    the claim's way round ("Pruning degrades robustness, while distillation leaves the student
    more robust"), nor when what the change is said of is what the comparative is set against
    ("Dense models remain more robust than pruned models" / "Pruning degrades robustness")."""
    if _REPORTED.search(sentence):
        return ""
    for graded, changing in ((claim, sentence), (sentence, claim)):
        for sign, adjective, comparative in _qualities(graded):
            if _negated_before(graded, comparative.start()) or _said_of_another_thing(
                graded, comparative, changing
            ):
                continue
            for turned, m in _changes(changing):
                if turned == sign or _negated_before(changing, m.start()):
                    continue
                if not (said := _changed_quality(m, adjective)):
                    continue
                if _says_both(sentence, adjective, sign if changing is sentence else -sign):
                    continue
                if _set_against(changing[: m.start()], _against(graded, comparative)):
                    continue
                near = _context(_stems(graded), _stem_of(comparative.group(0).split()[-1]))
                changed = _stems(changing)  # near the verb or the quality it changes
                verb, quality = (_stem_of(word) for word in (said.split()[0], said.split()[-1]))
                there = _context(changed, verb) | _context(changed, quality)
                if len(near & there) >= 2:
                    return said if changing is sentence else comparative.group(0).removesuffix(" than")
    return ""


def _negated_before(text: str, at: int) -> bool:
    """A negation in the clause before ``at`` ("does not make the model more robust", "is no
    more robust"), which is what turns a change or comparative around; one after it ("…, but not
    substantially", "than answering without it") hedges or compares, it does not. A condition
    the sentence opens with ("Without safety data, fine-tuning makes it more unsafe") says when,
    so the change is not set against the other side's plain one either."""
    before = text[:at]
    return _negates(_CLAUSE_BREAK.split(before)[-1]) or bool(_CONDITION.match(before))


def _said_of_another_thing(graded: str, comparative: re.Match[str], other: str) -> bool:
    """A quality named by its opposite (:data:`_LACKING`) with what it is said of ("more
    susceptible to overfitting") is about that thing, not the quality at large: it lacks the
    other side's robustness only when the other side names the thing too, or the thing is what
    robustness is to (attacks, perturbations, noise: :data:`_ATTACKS`)."""
    if comparative.group(0).split()[-1].lower() not in _LACKING:
        return False
    to = _TO_WHAT.match(graded, comparative.end())
    thing = _stem_of(to.group(1)) if to else ""
    return bool(thing) and thing not in _ATTACKS and thing not in _stems(other)


def _changed_quality(change: re.Match[str], adjective: str) -> str:
    """The change (a :data:`_CHANGED` match) as far as the noun of ``adjective``'s quality it is
    made to ("degrades the model's robustness"), or "" when it changes another thing or a cost of
    the quality ("reduces the robustness gap")."""
    words = change.group("what").split()
    for n, word in enumerate(words):
        if _same_quality(adjective, word.strip("'’")):
            if n + 1 < len(words) and _COST.match(words[n + 1]):
                return ""
            verb = change.group("up") or change.group("down")
            return " ".join([verb, *words[: n + 1]])
    return ""


def _says_both(sentence: str, adjective: str, sign: int) -> bool:
    """The sentence also says the quality changes the ``sign`` way (the claim's): in a comparative
    or with a verb."""
    if any(s == sign and a == adjective for s, a, _ in _qualities(sentence)):
        return True
    return any(turned == sign and _changed_quality(m, adjective) for turned, m in _changes(sentence))


def _against(text: str, comparative: re.Match[str]) -> str:
    """What ``text`` sets its comparative against: the words after its "than" ("" when none)."""
    rest = text[comparative.end() :]
    if comparative.group(0).lower().endswith("than"):
        return rest
    found = re.match(r"\s+than\b(.*)", rest, re.S)
    return found.group(1) if found else ""


def _set_against(before_change: str, after_than: str) -> bool:
    """What the change is said of (the content words before its verb) is what the comparative is
    set against (the words after its "than")."""
    subject = set(_sequence(before_change)[-3:])
    return bool(after_than) and bool(subject & set(_sequence(after_than)[:3]))


def _stem_of(word: str) -> str:
    """The stem :func:`_stems` writes for ``word``."""
    stems = stem_terms(word, frozenset())
    return stems[0] if stems else word.lower()


def _negated(claim: str, sentence: str, evidence: Sequence[str] = ()) -> str:
    """One side puts a negation in front of three of the claim's terms in a row that the other
    side states without any negation ("without" counts as one there), the first term possibly a
    verb of the same sense (:data:`_SAME_VERB`: "does not prevent collapse" / "avoids collapse").
    A paper that also says it the other side's way in another of its sentences (``evidence``)
    has said both (earlier work's factors "are not efficiently computable", its own "are"):
    nothing is negated."""
    for negating, plain, who in ((sentence, claim, "the paper"), (claim, sentence, "the claim")):
        if _denies(plain):
            continue  # "can be avoided, but not by annealing": both sides negate something
        # What the other side states plainly: each clause up to its "without" ("KnowNo can be used
        # with LLMs out-of-the-box" of "… out-of-the-box without model-finetuning").
        clauses = _CLAUSE_END.split(_ASIDE.sub(" ", plain))
        terms = _sequence(" ".join(_before_without(clause) for clause in clauses))
        for match in _NEGATION.finditer(negating):
            if match.group("lack") and _LACK.search(plain):
                continue  # both say something lacks: "does not lack X" is then read as "not"
            # An aside in parentheses is no part of what is negated: "lack a sense of selfhood
            # (memory, beliefs, consistency) and initiative" negates "selfhood and initiative".
            after = _unaside(negating[match.end() : match.end() + 160])
            before = _unaside(_CLAUSE_END.split(negating[max(0, match.start() - 160) : match.start()])[-1])
            # What is negated: the three terms after the negation, or the two before it in its
            # clause (its subject: "model collapse cannot be avoided") and the one after.
            for run in (after[:3], (*before[-2:], *after[:1])):
                if len(run) < 3 or not _holds(terms, run):
                    continue
                # the paper's other sentences may say it the claim's way too: then it said both
                # (when the claim is the side that negates, the paper would negate it elsewhere)
                negated = who == "the claim"
                if not any(_says(other, run, negated) for other in evidence if other != sentence):
                    return f"{who} negates what the other states: “{sentence}”"
    return ""


# "a proxy that is not stable", "is not a plug-and-play framework": a quality denied of a thing
# (the word before the verb, or the one after the quality), the clause ending with it. Not
# "non-X": "non-convex functions" is a term of its own, and an authors' TL;DR was turned around by
# a paper's "convex function".
_DENIED_QUALITY = re.compile(
    r"\b(?P<thing>[\w-]+)\s+(?:(?:that|which)\s+)?(?:is|are|was|were|remains?|stays?)\s+not\s+"
    r"(?:(?:a|an|the|very|always|particularly)\s+)*(?P<quality>[\w-]+)(?:\s+(?P<after>[\w-]+))?"
    r"(?=\s*(?:[,.;:)]|\b(?:and|but)\b|$))",  # the clause ends there: "not trained on ImageNet" says more
    re.IGNORECASE,
)
_QUALITY_REACH = 3  # content words between the paper's quality and the thing it qualifies


def _quality_denied(claim: str, sentence: str) -> str:
    """The claim denies a quality ("the proxy is not stable") that the sentence, in its own
    voice, gives the same thing ("a stable proxy", "the proxy is stable"): the quality at most
    :data:`_QUALITY_REACH` words before the thing, or just after it. The thing is the word before
    the verb, or the noun after the quality ("is not a plug-and-play framework"). :func:`_negated`
    needs three words in a row after a negation, and a quality is one."""
    if not _in_own_voice(sentence):
        return ""
    theirs = _sequence(sentence)
    for match in _DENIED_QUALITY.finditer(claim):
        quality = match.group("quality")
        things = [match.group(g) for g in ("thing", "after") if match.group(g)]
        q = _sequence(quality)
        if len(q) != 1 or q[0] in stems_of(_NO_ANCHOR):
            continue
        for thing in things:
            t = _sequence(thing)
            if len(t) != 1 or t[0] in stems_of(_NO_ANCHOR) or t == q:
                continue
            for i, term in enumerate(theirs):
                if term == t[0] and q[0] in theirs[max(0, i - _QUALITY_REACH) : i + 2]:
                    return f"the claim denies what the paper states: “{sentence}”"
    return ""


def _holds(terms: tuple[str, ...], run: Sequence[str]) -> bool:
    """``terms`` has ``run`` in a row (the first possibly a verb of the same sense)."""
    return any(_same_run(terms[i : i + 3], tuple(run)) for i in range(len(terms) - 2))


def _before_without(clause: str) -> str:
    """``clause`` up to what it does without ("no need for", "without"): what it states plainly."""
    cut = _WITHOUT.search(clause)
    return clause[: cut.start()] if cut else clause


def _denies(text: str) -> bool:
    """``text`` says "not" (or "never", "fails to", …); "lacks" is a statement, not a denial."""
    return any(not m.group("lack") for m in _NEGATION.finditer(text))


def _negates(text: str) -> bool:
    """``text`` holds a negation ("without the need" negates too; "lacks" is a statement)."""
    return _denies(text) or bool(_WITHOUT.search(text))


def _unaside(text: str) -> tuple[str, ...]:
    """``text``'s terms in order, asides in parentheses left out."""
    return _sequence(_ASIDE.sub(" ", text))


def _says(text: str, run: Sequence[str], negated: bool) -> bool:
    """``text`` has ``run``, with a negation or (``negated`` False) in the paper's own voice."""
    return (_negates(text) if negated else _in_own_voice(text)) and _holds(_unaside(text), run)


# "needs retraining" where the paper "operates without retraining": a need stated on one side,
# its absence on the other. The words that state a need, and what ends the thing needed.
_NEED = re.compile(
    r"\b(?:needs?|needed|needing|requir\w*|relies\s+on|rely\s+on|depends?\s+on|only\s+through)\b",
    re.I,
)
_NEED_WORDS = frozenset("need needs required requires relies depends any".split())  # "without requiring any"
_CLAUSE_END = re.compile(r"[,;:()]|\b(?:but|while|whereas|although|yet|and\s+then)\b", re.I)
# "without sacrificing accuracy" keeps the accuracy; "Without large batches, training diverges"
# says what happens when it is missing: neither does without anything.
_KEEPS = re.compile(r"\s*(?:sacrific|los|compromis|hurt|degrad|harm|reduc|affect|impair)\w*", re.I)
_NEED_WINDOW = 3  # content words after the cue that say what is (not) needed
_DOES_WITHOUT = re.compile(
    rf"\bwithout\s+(?:the\s+need\s+\w+|requir\w*|need\w*|rely\w*\s+on)|{_NEED_DENIED}", re.I
)


def _needed_without(claim: str, sentence: str, paper: str) -> str:
    """One side says something is needed ("needs retraining", "requires computing a matrix
    inversion") where the other does without it ("operates without retraining"): two content
    words of what one side needs are what the other does without, or the one word it needs is.

    Abstracts set earlier work against their own ("existing methods rely on strong assumptions
    … ours uncovers structure without such assumptions"), so ``paper`` (the whole abstract)
    decides: a paper that writes most of the shared words outside what it does without (one of
    three is not enough: "tasks" elsewhere in an abstract that "requires no fine-tuning on these
    tasks"), or that also does without what it is said to need, has said both, and nothing is
    turned around. So is a side that negates the need itself ("does not need retraining"). Of
    17,821 sentences with a need or a "without" in ``../shared/corpora``'s abstracts, each
    checked against its own abstract, none is turned around; against the rest of it (itself left
    out), 88 are (81 when one shared word written plainly was enough), mostly where an abstract
    sets earlier work's needs against its own."""
    if not (_WITHOUT.search(claim) or _WITHOUT.search(sentence)):
        return ""
    paper_without, paper_plainly = _after(paper, _WITHOUT), Counter(_sequence(paper))
    claim_without, claim_plainly = _after(claim, _WITHOUT), Counter(_sequence(claim))
    cases: list[tuple[str, str, Callable[[str], bool], str]] = [
        (claim, sentence, lambda w: paper_plainly[w] > paper_without[w],
         "the paper does without what the claim needs"),
        (sentence, claim, lambda w: claim_plainly[w] > claim_without[w] or w in paper_without,
         "the paper needs what the claim does without"),
    ]  # fmt: skip
    for needing, lacking, says_both, says in cases:
        says_need = _NEED.search(_DOES_WITHOUT.sub(" ", lacking))
        if _WITHOUT.search(needing) or any(_NEGATION.finditer(needing)) or says_need:
            continue  # a side that says both ("without X for Adam, but SGD requires one") is no opposite
        without = _after(lacking, _WITHOUT)
        for needed in _windows(needing, _NEED):
            shared = [w for w in needed if w in without]
            # Most of what is needed must be written only where it is done without: a paper
            # writing "tasks" elsewhere still does without "fine-tuning on these tasks".
            plainly = sum(map(says_both, shared))
            if shared and (len(shared) >= 2 or len(needed) == 1) and 2 * plainly < len(shared):
                return f"{says}: “{sentence}”"
    return ""


def _windows(text: str, cue: re.Pattern[str]) -> list[list[str]]:
    """The content stems after each ``cue`` in ``text`` up to :data:`_NEED_WINDOW` of them, the
    clause's end or an aside; for "without", not where it keeps something ("without sacrificing
    accuracy") or opens a sentence ("Without large batches, …")."""
    skip = stems_of(_NO_ANCHOR) | stems_of(_NEED_WORDS)
    found = []
    for match in cue.finditer(text):
        rest = text[match.end() : match.end() + 160]
        if cue is _WITHOUT and (_KEEPS.match(rest) or not text[: match.start()].strip()):
            continue
        rest = _CLAUSE_END.split(rest, maxsplit=1)[0]
        found.append([w for w in _sequence(rest) if w not in skip][:_NEED_WINDOW])
    return found


def _after(text: str, cue: re.Pattern[str]) -> Counter[str]:
    """Every content stem of :func:`_windows`, counted."""
    return Counter(w for window in _windows(text, cue) for w in window)


# Verbs that say the same of what follows them, as stems: "does not prevent model collapse" is
# turned around by "avoids model collapse" as much as by "prevents model collapse".
_SAME_VERB = [
    frozenset({"prevent", "avoid", "mitig", "elimin", "allevi", "overcom"}),
    frozenset({"improv", "enhanc", "boost"}),
    frozenset({"need", "requir"}),
    frozenset(_WON),
]


def _same_sense(a: str, b: str) -> bool:
    """Two stems say the same: equal, or verbs of one group (:data:`_SAME_VERB`)."""
    return a == b or any(a in group and b in group for group in _SAME_VERB)


def _same_run(mine: tuple[str, ...], theirs: tuple[str, ...]) -> bool:
    """Two runs of terms say the same: equal, or equal but for a first verb of one group."""
    return mine[1:] == theirs[1:] and _same_sense(mine[0], theirs[0])


def _compared_the_other_way(claim: str, sentence: str) -> bool:
    """Both compare with the same word (and of the same thing, when both name it: "higher accuracy
    than" is no answer to "higher latency than"), and what comes before "than" in one comes
    after it in the other; or both say one named thing beats another, and the names change
    places ("PPO, which then outperforms DPO" / "with DPO, outperforming traditional PPO")."""
    if _winner_swapped(claim, sentence):
        return True
    a, b = _COMPARATIVE.search(claim), _COMPARATIVE.search(sentence)
    if not (a and b) or a.group(1).lower() != b.group(1).lower():
        return False
    if a.group(2) and b.group(2) and lexical_terms(a.group(2)) != lexical_terms(b.group(2)):
        return False
    return _crossed(
        set(lexical_terms(claim[: a.start()])),
        set(lexical_terms(claim[a.end() :])),
        set(lexical_terms(sentence[: b.start()])),
        set(lexical_terms(sentence[b.end() :])),
    )


# A comparison won, said with a verb: "A outperforms B", "A surpasses B", "A is superior to B".
_BEATS = re.compile(rf"\b(?:(?:{'|'.join(_WON)})\w*|superior\s+to)\b", re.I)
_BY = re.compile(r"\s+by\b", re.I)


def _winner_swapped(claim: str, sentence: str) -> bool:
    """Both say a named thing beats another (:data:`_BEATS`), and the names both write change
    sides: what the claim names before the verb the sentence names after it, and the reverse,
    with no name on the same side in both."""
    a, b = _BEATS.search(claim), _BEATS.search(sentence)
    if not (a and b):
        return False
    sides = []
    for text, m in ((claim, a), (sentence, b)):
        first, second = coined_names(text[: m.start()]), coined_names(text[m.end() :])
        # "PPO is outperformed by DPO": the winner comes after the verb
        sides.append((second, first) if _BY.match(text, m.end()) else (first, second))
    (before_a, after_a), (before_b, after_b) = sides
    crossed = bool(before_a & after_b) and bool(after_a & before_b)
    return crossed and not (before_a & before_b or after_a & after_b)


# A win said to be narrow ("barely outperform") and the same win said to be clear.
_WIN = rf"((?:{'|'.join((*_WON, 'exceed', 'improv'))})\w*)"
_NARROW = re.compile(
    rf"\b(?:barely|hardly|scarcely|marginally|only\s+(?:slightly|marginally))\s+{_WIN}", re.I
)
_CLEAR = re.compile(
    rf"\b(?:clearly|significantly|substantially|strongly|consistently|greatly|dramatically|vastly|markedly"
    rf"|far)\s+{_WIN}",
    re.I,
)


def _overstated(claim: str, sentence: str) -> str:
    """The claim calls a win clear ("clearly beat random guessing") that the paper calls narrow
    ("barely outperform random guessing"): verbs of one sense, and two of the content words just
    after them shared, so both speak of the same win. The reverse (a clear win called narrow) is
    a weaker claim, not a wrong one."""
    clear, narrow = _CLEAR.search(claim), _NARROW.search(sentence)
    if not (clear and narrow):
        return ""
    if not _same_sense(*(lexical_terms(m.group(1))[0] for m in (clear, narrow))):
        return ""
    sides = ((claim, clear), (sentence, narrow))
    after = [set(_sequence(text[m.end() : m.end() + 80])[:3]) for text, m in sides]
    if len(after[0] & after[1]) < 2:
        return ""
    return f"the paper says {narrow.group(0)}, the claim {clear.group(0)}: “{sentence}”"


# Words that make no term: function words the index keeps ("against adversarial", "other tasks"),
# and, as a term's first word, the words every abstract uses ("model", "proposed").
_FUNCTION = STOP_WORDS | frozenset(
    "against toward towards among upon onto despite beyond rather same other".split()
)
_NO_FIRST = _NO_ANCHOR | _FUNCTION
# A term the claim sets its subject apart from is no claim about the paper: "Unlike imitation
# learning, A2PR ...", "an alternative to transfer learning", "improves over imitation learning"
# (not any "over": "drafts over a quantized KV cache" says what it drafts with).
_CONTRAST = re.compile(
    r"\b(?:unlike|rather\s+than|instead\s+of|in\s+contrast\s+(?:to|with)|as\s+opposed\s+to"
    r"|alternatives?\s+to|compared\s+(?:to|with)|than|beyond|outperform\w*|beat\w*|surpass\w*"
    r"|(?:improv\w*|gains?|advantages?|edge|wins?|superiority)\s+over)"
    r"(?:\W+\w+){0,3}?\W+$",
    re.IGNORECASE,
)


def swapped_term(claim: str, read: _Read, phrases: Callable[[], Phrases]) -> str:
    """The claim names one of the field's terms where its paper writes another with the same head
    ("imitation learning" for the paper's "reinforcement learning", a method swapped), or "".

    Both pairs must be terms of the collection (:class:`rag.retrieval.relevance.Phrases`: written
    by two papers or more, their first word mostly there and not in most papers), or the paper's
    pair in its title (a title names the paper's method: "Don't throw away your value model!" for
    a claim on its "reward model", "value" being too common a word to make a term), the claim's first
    word absent from the paper in any form, the paper's absent from the claim, and the two not
    of one word family ("defend"/"defense"). Two words that met ("craft training environments"
    for "generate training environments") are no term, so a paraphrase passes: of 1,465 authors'
    TL;DRs checked against their own papers, two were flagged. A term the claim contrasts its
    subject with ("unlike imitation learning", "outperforms imitation learning") is not what it
    says of the paper, and a coined name is left to the name check. ``phrases`` is called only
    when a pair could be swapped (counting a conference's pairs takes a moment).

    The claim's side needs no count when its shape names a technique, a hyphenated word with a
    part the paper never writes, and the paper's side is a coined name: "prefix-tuning modules"
    for the paper's "LoRA modules" (a small collection rarely has two papers writing either).
    A coined name it must be: "target-side attention" for a paper's "self-attention", "ride-sharing
    fleet" for its "Vehicle Fleet" are paraphrases (of those TL;DRs, 17 more were flagged with
    any term of the paper's)."""
    said = lexical_words(claim)
    stems = {stem for _, stem in said}
    no_first, no_head = stems_of(_NO_FIRST), stems_of(_FUNCTION)
    named = {t for name in coined_names(claim) for t in lexical_terms(name)}
    theirs: dict[str, list[str]] = {}
    for first, head in sorted(read.pairs):
        if first not in stems and first not in no_first and len(first) > 2 and head not in no_head:
            theirs.setdefault(head, []).append(first)
    counts: Phrases | None = None
    for (word, first), (head_word, head) in pairwise(said):
        if head not in theirs or first in no_first or first in named or len(first) < 3:
            continue
        compound = _compound_before(claim, word, head_word)
        parts = lexical_terms(compound) if compound else [first]
        mine = f"{compound} {head_word}" if compound else _written(claim, word, head_word)
        at = claim.lower().find(mine.lower())
        if all(stem_written(p, read.terms) for p in parts) or (at > 0 and _CONTRAST.search(claim[:at])):
            continue
        if counts is None:
            counts = phrases()
        if not (compound or counts.is_term(first, head)):
            continue
        for other in theirs[head]:
            titled = (other, head) in read.title_pairs
            if _one_family(other, first):
                continue
            if compound and _named_technique(read, other, head, counts):
                return _swap_reason(read, (other, head), mine)
            if not compound and ((titled and counts.is_specific(other)) or counts.is_term(other, head)):
                return _swap_reason(read, (other, head), mine)
    return ""


def _named_technique(read: _Read, other: str, head: str, counts: Phrases) -> bool:
    """The paper writes ``other`` ``head`` side by side, ``other`` a coined name of one word, and
    the two are a term of the collection ("LoRA modules"): a technique of the field, not the
    paper's name for its own dataset ("the HHCD dataset", which a claim may well call
    "self-collected") or a title's capitals ("INteractive Querying")."""
    return (
        counts.is_term(other, head)
        and (other, head) in _side_by_side(read.text)
        and other in _coined_stems(read.text)
    )


@functools.lru_cache(maxsize=1024)
def _coined_stems(text: str) -> frozenset[str]:
    """The stems of the coined names ``text`` writes, each a name of one term ("lora" for LoRA;
    not "base" for "LSTM-based")."""
    stems = (lexical_terms(name) for name in coined_names(text))
    return frozenset(one[0] for one in stems if len(one) == 1)


def _compound_before(claim: str, word: str, head: str) -> str:
    """The hyphenated word of ``claim`` ending in ``word`` right before ``head`` ("prefix-tuning"
    in "prefix-tuning modules"), or "": a name by its shape."""
    found = re.search(rf"\b((?:[A-Za-z]+-)+{re.escape(word)})\s+{re.escape(head)}\b", claim, re.IGNORECASE)
    return found.group(1) if found else ""


def _one_family(a: str, b: str) -> bool:
    """Two stems of one word family ("defend", "defens"): most of the shorter one is shared."""
    shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return shared >= max(5, 0.7 * min(len(a), len(b))) or a.startswith(b) or b.startswith(a)


def _written(text: str, first: str, head: str) -> str:
    """ "first … head" as ``text`` writes it, the words between kept ("mixture of experts"), or
    the two words alone when they are not within three words of each other there."""
    found = re.search(rf"\b{re.escape(first)}\b(?:\W+\w+){{0,2}}?\W+{re.escape(head)}\b", text, re.IGNORECASE)
    return found.group(0) if found else f"{first} {head}"


def _swap_reason(read: _Read, pair: tuple[str, str], mine: str) -> str:
    """ "the paper says X, the claim Y: “sentence”", X as the paper's sentence (or title) writes it."""
    for sentence in read.sentences:
        for (a, first), (b, head) in pairwise(lexical_words(sentence)):
            if (first, head) == pair:
                return f"the paper says {_written(sentence, a, b)}, the claim {mine}: “{sentence}”"
    for (a, first), (b, head) in pairwise(lexical_words(read.text)):  # the title or the label
        if (first, head) == pair:
            return f"the paper says {_written(read.text, a, b)} (in its title), the claim {mine}"
    return f"the paper says {' '.join(pair)}, the claim {mine}"


@dataclass
class Claim:
    """One cited sentence of the draft and the verdict on it."""

    text: str
    start: int
    end: int
    line: int
    cites: list[Cite]
    verdict: str = NOT_SUPPORTED
    evidence: dict[str, Any] | None = None
    missing: list[str] = field(default_factory=list)
    reason: str = ""  # what keeps it from being supported ("" when it is)
    model: str | None = None  # the model's yes/no on a borderline claim, when it was asked
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    candidates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # unresolved key → closest

    @property
    def unresolved(self) -> list[str]:
        """Keys of the claim that name no indexed paper."""
        return [c.key for c in self.cites if not c.papers]

    def to_dict(self) -> dict[str, Any]:
        """One ``check --json`` record."""
        return {
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "keys": list(dict.fromkeys(c.key for c in self.cites)),
            "papers": list(dict.fromkeys(p for c in self.cites for p in c.papers)),
            "unresolved": self.unresolved,
            "verdict": self.verdict,
            "missing": self.missing,
            "reason": self.reason,
            "model": self.model,
            "evidence": self.evidence,
            "suggestions": self.suggestions,
            "candidates": self.candidates,
        }


@dataclass
class CheckReport:
    """Every claim of a draft with its verdict."""

    source: str
    claims: list[Claim]
    text: str = ""  # the draft as read (``--format md`` annotates it; stdin cannot be read twice)

    @property
    def failed(self) -> bool:
        """Some claim is not fully supported or cites something unresolved: the exit status is 1."""
        return any(c.verdict != SUPPORTED or c.unresolved for c in self.claims)

    def counts(self) -> dict[str, int]:
        """Claims per verdict, worst first (the report's summary line)."""
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def to_dict(self) -> dict[str, Any]:
        """The ``check --json`` document."""
        return {"source": self.source, "counts": self.counts(), "claims": [c.to_dict() for c in self.claims]}


def _paper_ref(paper: Paper, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**paper.reference(), **(extra or {})}


_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\\(\[])")
# A citation written after the full stop ("… per sample.[3] Next …", "… sample. [3] Next …")
# belongs to the sentence it follows.
_CITED_END = re.compile(
    r"(?<=[.!?])((?:\s?~?\\[Cc]ite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}|\s?\[[^\[\]\n]{1,200}\])+)"
    r"\s+(?=[A-Z0-9\\(\[])"
)
# Where a block ends, whatever the punctuation: a blank line (also with CRLF line ends), a line
# break before a list item, heading or table row, and the end of a heading line.
_BLOCK_BREAK = re.compile(
    r"\r?\n[ \t]*\r?\n|\r?\n(?=[ \t]*(?:[-*+•][ \t]|\d{1,3}[.)][ \t]|#{1,6}[ \t]|\|))"
    r"|^[ \t]*#{1,6}[ \t][^\r\n]*(\r?\n)",
    re.M,
)
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|et al|vs|Fig|Eq|cf|resp|Sec|Tab|No)\.)$")


def _breaks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(end of a sentence, start of the next) for every sentence boundary in ``text[start:end]``."""
    cited = [
        (m.start(), m.end(1), m.end())
        for m in _CITED_END.finditer(text, start, end)
        if not _ABBREVIATION.search(text[max(start, m.start() - 8) : m.start()])  # "e.g. [3] BERT"
    ]
    after_cite = {at for at, _, _ in cited}
    found = [(stop, nxt) for _, stop, nxt in cited]
    for m in _SENTENCE_END.finditer(text, start, end):
        if m.start() in after_cite or _ABBREVIATION.search(text[max(start, m.start() - 8) : m.start()]):
            continue
        found.append((m.start(), m.end()))
    for m in _BLOCK_BREAK.finditer(text, start, end):
        found.append(m.span(1) if m.group(1) is not None else m.span())
    return sorted(found)


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text[start:end]``, abbreviations kept inside; list
    items, headings and table rows are sentences of their own."""
    end = len(text) if end is None else end
    spans, begin = [], start
    for stop, nxt in _breaks(text, start, end):
        if stop < begin:  # inside a boundary already taken (a blank line after a full stop)
            begin = max(begin, nxt)
            continue
        spans.append((begin, stop))
        begin = nxt
    spans.append((begin, end))
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


def claim_text(sentence: str, cites: list[Cite], offset: int) -> str:
    """The sentence without its citations and markup: what it claims."""
    pieces, last = [], 0
    for cite in sorted({(c.start, c.end) for c in cites}):
        a, b = cite[0] - offset, cite[1] - offset
        if a < last:
            continue
        pieces.append(sentence[last:a])
        last = b
    pieces.append(sentence[last:])
    text = "".join(pieces)
    text = re.sub(r"\\(?:section|subsection|paragraph)\*?\{[^}]*\}", " ", text)
    text = re.sub(r"^\s*(?:#+|[-*•]|\d+[.)])\s+", "", text)
    text = plain_text(text).replace("~", " ")
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split()))


def _report_orphans(source: str, orphans: list[tuple[str, int]], cites: list[Cite]) -> None:
    """Numbered groups ((group, line)) in a draft with no reference list: an error when they are
    its only citations, else a warning; named, never dropped in silence."""
    listed = ", ".join(f"{group} (line {line})" for group, line in orphans[:3])
    more = f" and {len(orphans) - 3} more" if len(orphans) > 3 else ""
    if not cites:
        raise CitelineError(
            f"{source}: numbered citations such as {listed}{more}, but no reference list to "
            "resolve them (a References heading followed by numbered entries)"
        )
    warn(
        f"{source}: {listed}{more} look like numbered citations, but the draft has no "
        "reference list; not checked"
    )


def _query(text: str) -> str:
    """A claim as a search query: a run-on "sentence" (a list without full stops, a pasted
    table) is searched by its first :data:`MAX_QUERY_CHARS` characters, not refused."""
    if len(text) <= MAX_QUERY_CHARS:
        return text
    return text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]


class Checker:
    """Checks drafts against the papers ``retriever`` searches; ``all_papers`` (needed only for
    .bib, reference-list and author-year citations) lists every indexed paper. ``llm``, when
    given, returns the model that settles borderline claims (called on the first one only)."""

    def __init__(
        self,
        retriever: PaperSearch,
        all_papers: Callable[[], Iterable[Paper]],
        tuning: AnswerSettings,
        llm: Callable[[], LLMHandle] | None = None,
    ) -> None:
        self.retriever = retriever
        self.tuning = tuning
        self._all_papers = all_papers
        self._index: PaperIndex | None = None
        self._llm = llm
        self.model_calls = 0
        self._searches: dict[tuple[str, int], tuple[TermWeights, list]] = {}
        self._papers: dict[str, Paper | None] = {}

    @property
    def index(self) -> PaperIndex:
        """Every indexed paper by address, title and author-year: listed once, on first need."""
        if self._index is None:
            self._index = PaperIndex(self._all_papers())
        return self._index

    def check(
        self, text: str, kind: str = "txt", bib: dict[str, Reference] | None = None, source: str = "draft"
    ) -> CheckReport:
        """Every cited claim of ``text`` with its verdict; a draft with no citation is an error."""
        masked = _masked(text, kind)
        (refs_start, refs_end), numbered = reference_list(masked, kind)
        # The reference list is not prose; what follows it (an appendix) is.
        masked = masked[:refs_start] + _blank(masked[refs_start:refs_end]) + masked[refs_end:]
        newlines = [i for i, ch in enumerate(text) if ch == "\n"]
        orphans: list[tuple[int, str]] = []
        cites = find_citations(masked, self._is_id, numbered, orphans)
        if orphans:
            _report_orphans(
                source, [(group, bisect.bisect_left(newlines, at) + 1) for at, group in orphans], cites
            )
        if not cites:
            raise CitelineError(
                f"{source}: no citations found (\\cite{{key}}, [3], (Author, 2024) or [paper-id])"
            )
        for cite in cites:
            self._resolve(cite, numbered, bib)
        claims = []
        starts = [c.start for c in cites]  # in the order found, which is the text's
        for a, b in sentence_spans(masked):
            inside = cites[bisect.bisect_left(starts, a) : bisect.bisect_left(starts, b)]
            if not inside:
                continue
            said = claim_text(masked[a:b], inside, a)
            if not lexical_terms(said):  # only citations ("\\item \\cite{a}", "- Vaswani et al. (2017)")
                continue  # claims nothing to judge
            claim = Claim(said, a, b, bisect.bisect_left(newlines, a) + 1, inside)
            self._judge(claim)
            claims.append(claim)
        return CheckReport(source, claims, text)

    def _searched(self, text: str, k: int) -> tuple[TermWeights, list]:
        """The claim's term weights and closest papers, remembered per text: a long .tex repeats
        its sentences ("as shown in prior work"), and each search costs an embedding."""
        key = (text, k)
        if key not in self._searches:
            if len(self._searches) >= SEARCH_CACHE:
                self._searches.pop(next(iter(self._searches)))  # oldest first: memory stays bounded
            weights = self.retriever.term_weights(lexical_terms(text))
            self._searches[key] = (weights, self.retriever.search(_query(text), k=k, floor=False))
        return self._searches[key]

    def _second_opinion(self, claim: Claim, best: Judgement) -> None:
        """Ask the model whether the paper's closest sentences state the claim; a "yes" makes a
        paraphrase that shares few words supported. Numbers, names and findings turned around are
        never left to the model."""
        from rag.answer.evidence import model_says_yes

        self.model_calls += 1
        prompt = claim_prompt(claim.text, best.sentences[:MODEL_SENTENCES])
        says = model_says_yes(self._llm(), prompt) if self._llm is not None else None
        if says is None:
            return
        claim.model = "yes" if says else "no"
        if says:
            claim.verdict, claim.reason = SUPPORTED, ""

    def _paper(self, paper_id: str) -> Paper | None:
        """The indexed paper with this id, looked up once per draft (each look-up reads the store;
        a 2,200-claim thesis made 4,400 of them, 4 of its 10 seconds)."""
        if paper_id not in self._papers:
            self._papers[paper_id] = self.retriever.paper(paper_id)
        return self._papers[paper_id]

    def _is_id(self, token: str) -> bool:
        return self._paper(token) is not None

    def _resolve(self, cite: Cite, numbered: dict[str, Reference], bib: dict[str, Reference] | None) -> None:
        if cite.style == "id":
            cite.papers = [cite.key] if self._paper(cite.key) else []
            return
        if cite.style == "numbered":
            cite.reference = numbered.get(cite.key)
        elif cite.style == "author-year":
            cite.reference = author_year_reference(cite.key)
        else:
            cite.reference = (bib or {}).get(cite.key) or numbered.get(cite.key)
            if cite.reference is None and self._paper(cite.key):
                cite.papers = [cite.key]  # \cite{000-02}: citeline's own key
                return
        if cite.reference is not None:
            cite.papers = self.index.match(cite.reference)

    def _judge(self, claim: Claim) -> None:
        cited = list(dict.fromkeys(p for c in claim.cites for p in c.papers))
        for cite in claim.cites:
            if not cite.papers:
                query = cite.reference.query() if cite.reference else claim.text
                hits = self.retriever.search(_query(query or claim.text), k=SUGGESTIONS, floor=False)
                claim.candidates[cite.key] = [_paper_ref(h.paper) for h in hits]
        papers = [p for p in (self._paper(pid) for pid in cited) if p is not None]
        if not papers:
            claim.verdict = UNRESOLVED
            return
        weights, hits = self._searched(claim.text, SUGGESTIONS + len(cited))
        closest = hits[0].paper.id if hits else None
        phrases = getattr(self.retriever, "phrases", None)  # a PaperSearch of an older shape has none

        def judged_on(paper: Paper, best_match: bool = False) -> Judgement:
            return judge(claim.text, paper, weights, self.tuning, closest=best_match, phrases=phrases)

        judged = [judged_on(p, best_match=p.id == closest) for p in papers]
        best = max(judged, key=lambda j: (VERDICTS.index(j.verdict), j.coverage))  # any cited paper
        others = [judged_on(h.paper) for h in hits if h.paper.id not in cited]
        rival = max((o for o in others if o.verdict == SUPPORTED), key=lambda o: o.coverage, default=None)
        claim.verdict, claim.missing, claim.reason = best.verdict, best.missing, best.reason
        margin = self.tuning.check_better_margin
        better = rival if rival is not None and rival.coverage >= best.coverage + margin else None
        if better is not None and claim.verdict == SUPPORTED:
            claim.verdict = NOT_SUPPORTED
            claim.reason = f"another paper states it far more fully ({better.paper.id})"
        elif (
            better is None and self._llm is not None and self.model_calls < MODEL_CALLS and _borderline(best)
        ):
            self._second_opinion(claim, best)
        claim.evidence = _paper_ref(
            best.paper, {"sentence": best.evidence, "coverage": round(best.coverage, 3)}
        )
        if claim.verdict == SUPPORTED and claim.unresolved:
            # Supported by the papers found, but a citation names none: the summary, the JSON and
            # the exit status (1) must all say so, not "supported" (each key's line names it).
            claim.verdict = UNRESOLVED
        if claim.verdict != SUPPORTED:
            claim.suggestions = [
                _paper_ref(o.paper, {"sentence": o.evidence, "coverage": round(o.coverage, 3)})
                for o in sorted(others, key=lambda o: -o.coverage)
                if o.verdict == SUPPORTED
            ][:SUGGESTIONS]
