"""Parse paper lists into :class:`Paper` records, keeping provenance and reporting bad entries.

Formats: the seed plain-text lists (line 1 names the venue, each later non-empty line is one
abstract), JSON Lines, JSON arrays (or ``{"papers": [...]}``) and CSV with the fields title,
abstract, authors, venue, year, url, id; any of them gzipped. A bad entry is reported with its
file and line and skipped; the good entries of the same file are still returned.

A source is known by its *key*: its path relative to the folder given to ``ingest`` (just the file
name for a file given directly), so ``a/papers.jsonl`` and ``b/papers.jsonl`` are two sources, and
moving the whole folder keeps every key. One record may cost only so much: fields longer than
:data:`FIELD_LIMITS` are cut (with a warning), so a pathological record cannot blow up the index.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.errors import BadInput, CitelineError, NotFound
from rag.index.labels import display_label
from rag.records import Paper

_VENUE_YEAR = re.compile(r"([A-Za-z][A-Za-z\-]*)\s*'?(\d{4})")
_WS = re.compile(r"\s+")
SUFFIXES = (".txt", ".jsonl", ".ndjson", ".json", ".csv")
# Most characters one field of a record keeps. The longest abstract among 37,209 real papers has
# 16,262 characters; anything beyond 20,000 is not an abstract, and every chunk of a paper is
# embedded and stored, so the cap bounds what one record can cost.
FIELD_LIMITS = {"abstract": 20_000, "title": 1_000, "authors": 10_000, "venue": 200, "url": 2_000}


@dataclass
class Problem:
    """A bad entry or file, reported as ``file:line: message``."""

    source: str
    line: int | None
    message: str
    # False for a warning about an entry that was still ingested (a field cut to its limit).
    skipped: bool = True

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


class SourceError(CitelineError):
    """A whole file that cannot be read as a paper list, with the line where that showed, if any."""

    def __init__(self, path: Path, message: str, line: int | None = None) -> None:
        super().__init__(f"{path}:{line}: {message}" if line is not None else f"{path}: {message}")
        self.line, self.message = line, message


def _json_message(exc: json.JSONDecodeError) -> str:
    """json's message completed with its column ("Unterminated string starting at" says no more)."""
    return f"malformed JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})"


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest and its key: the path relative to the folder it was found in."""

    path: Path
    key: str


@dataclass
class ParsedSource:
    """One file's papers and the problems found in it."""

    path: Path
    key: str
    papers: list[Paper] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The source's key, which is what provenance shows."""
        return self.key


def physical_lines(text: str) -> list[str]:
    """Lines as editors and ``wc -l`` count them: split on newlines only.

    ``str.splitlines`` also splits on U+2028/U+2029, U+0085 and form feeds, which real abstracts
    contain (NeurIPS 2012 has U+2029 inside a JSON string): one record would become several
    broken ones, and every later line number would be off.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def normalize_ws(text: str) -> str:
    """Collapse runs of whitespace; the text itself (LaTeX, markdown) is kept as given."""
    return _WS.sub(" ", text).strip()


def _format_of(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return suffix.lstrip(".").replace("ndjson", "jsonl")
    raise SourceError(path, f"unsupported file type (expected {', '.join(SUFFIXES)}, optionally .gz)")


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(path, f"cannot read ({exc.strerror})") from None
    if path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise SourceError(path, f"not a valid gzip file ({exc})") from None
    if b"\x00" in raw[:8192]:
        raise SourceError(path, "binary file, not a paper list")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SourceError(
            path, f"not UTF-8 text (byte {exc.start}); re-save the file as UTF-8", line
        ) from None


def source_prefix(key: str) -> str:
    """The ID prefix for positional IDs: ``000`` for ``000_888317b1d60d9493.txt``, else the stem.

    Folders in the key lead the prefix (``a-papers`` for ``a/papers.jsonl``), so two lists of one
    name in different folders never give the same IDs.
    """
    *folders, name = key.split("/")
    stem = name.split(".")[0]
    match = re.match(r"^(\d+)_", stem)
    parts = [*folders, match.group(1) if match else stem]
    return "-".join(p for p in (re.sub(r"[^\w\-]+", "-", part).strip("-") for part in parts) if p) or "list"


def _capped(value: str, name: str, key: str, line: int, problems: list[Problem]) -> str:
    """``value`` cut to its field's limit at a word boundary, with a warning when cut."""
    limit = FIELD_LIMITS[name]
    if len(value) <= limit:
        return value
    cut = value[:limit].rsplit(" ", 1)[0] or value[:limit]
    message = f"{name} of {len(value):,} characters cut to {len(cut):,} (limit {limit:,})"
    problems.append(Problem(key, line, message, skipped=False))
    return cut


def _venue_from_header(header: str) -> tuple[str, int | None]:
    match = _VENUE_YEAR.search(header)
    if not match:
        return normalize_ws(header), None
    return match.group(1), int(match.group(2))


# A .txt list's first line names its venue ("ICML 2026 论文列表"): short, at most one sentence.
# Two sentences or more than a venue may hold is an abstract (the list has no header line).
_HEADER_LIKE = re.compile(rf"(?s)(?!.*[.!?]\s+\S).{{0,{FIELD_LIMITS['venue']}}}")


def _parse_txt(path: Path, text: str, result: ParsedSource) -> None:
    lines = physical_lines(text)
    if not lines:
        return
    first = normalize_ws(lines[0])
    if _HEADER_LIKE.fullmatch(first):
        venue, year = _venue_from_header(lines[0])
        venue = _capped(venue, "venue", result.key, 1, result.problems)
        if year is None and first:  # "We propose ZebraNet." would be every paper's venue: say so
            message = (
                f"line 1 names no venue and year (such as 'ICML 2026'); read as the venue: {first[:60]!r}"
            )
            result.problems.append(Problem(result.key, 1, message, skipped=False))
        entries = [(n, line) for n, line in enumerate(lines[1:], start=2) if line.strip()]
    else:  # an abstract on line 1: a list without its header line, not a venue of 1,000 characters
        venue, year = "", None
        entries = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
        message = (
            "line 1 reads as an abstract, not the venue header a .txt list starts with: indexed as a paper"
        )
        result.problems.append(Problem(result.key, 1, message, skipped=False))
    prefix = source_prefix(result.key)
    width = max(2, len(str(len(entries))))
    for position, (lineno, line) in enumerate(entries, start=1):
        abstract = _capped(normalize_ws(line), "abstract", result.key, lineno, result.problems)
        result.papers.append(
            Paper(
                id=f"{prefix}-{position:0{width}d}",
                abstract=abstract,
                label=display_label(abstract),
                source=result.key,
                line=lineno,
                venue=venue,
                year=year,
            )
        )


def _records_jsonl(text: str) -> Iterator[tuple[int, Any]]:
    for lineno, line in enumerate(physical_lines(text), start=1):
        if line.strip():
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                yield lineno, BadInput(_json_message(exc))


def _records_json(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(path, _json_message(exc), exc.lineno) from None
    if isinstance(data, dict):
        data = data.get("papers", data.get("data"))
    if not isinstance(data, list):
        raise SourceError(path, 'expected a JSON array of papers (or {"papers": [...]})')
    # json.loads forgets positions; report the record's 1-based index, the closest we can say.
    yield from enumerate(data, start=1)


def _records_csv(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """Rows with the line they start on; strict quoting, so a stray quote is an error, not data.

    The lenient default reads an unclosed quote as a field running on through the following rows,
    silently merging them into one paper; strict mode reports the row, and reading resumes after it.
    Lines are counted as they are fed in: the reader's own count stops moving at an error.
    """
    consumed = 0

    def lines() -> Iterator[str]:
        nonlocal consumed
        for line in io.StringIO(text, newline=""):
            consumed += 1
            yield line

    reader = csv.DictReader(lines(), strict=True)
    try:
        reader.fieldnames  # noqa: B018 - reads the header row
    except csv.Error as exc:
        raise SourceError(path, f"malformed CSV header ({exc})", 1) from None
    end = consumed
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield end + 1, BadInput(f"malformed CSV ({exc})")
        else:
            yield end + 1, row
        end = consumed


_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
_OTHERS = re.compile(r"^(?:others|et\s+al\.?)$", re.IGNORECASE)


def _as_authors(value: Any) -> tuple[str, ...]:
    """Authors from a list, or from one string as lists write them: "A; B", "A | B", "A, B",
    "A and B", "A, B, and C", and BibTeX's "Last, First and Last, Jr., First and others" (names
    turned round, "others" dropped). "and"/"&" between single words is part of a name
    ("Johnson & Johnson", "Research and Development Team")."""
    if isinstance(value, list):
        return tuple(normalize_ws(str(a)) for a in value if str(a).strip())
    if not isinstance(value, str) or not value.strip():
        return ()
    value = re.sub(r",?\s+et\s+al\.?\s*$", "", value.strip(), flags=re.IGNORECASE)  # "Grace Hopper et al."
    joined = [p.strip() for p in _AND.split(value) if p.strip() and not _OTHERS.match(p.strip())]
    if all(1 <= p.count(",") <= 2 for p in joined) and (len(joined) > 1 or _last_first(joined[0])):
        return tuple(_turned(p) for p in joined)  # BibTeX
    parts = re.split(r"\s*;\s*|\s*\|\s*", value) if (";" in value or "|" in value) else value.split(",")
    names = [name for part in parts for name in _people(part.strip())]
    return tuple(normalize_ws(n) for n in names if n.strip() and not _OTHERS.match(n.strip()))


def _last_first(name: str) -> bool:
    """One BibTeX name "Hopper, Grace" (one comma, a word or two each side), not "A. Turing, G. Hopper"."""
    sides = [side.split() for side in name.split(",")]
    return len(sides) == 2 and all(1 <= len(side) <= 2 for side in sides) and len(sides[0]) == 1


def _turned(name: str) -> str:
    """BibTeX's "Last, First" or "Last, Jr., First" as it is read: "First Last (Jr.)"."""
    last, *rest = [part.strip() for part in name.split(",")]
    first = rest[-1] if rest else ""
    return normalize_ws(" ".join([first, last, *rest[:-1]]))


def _people(part: str) -> list[str]:
    """``part`` split at "and"/"&" when both sides are names of two words or more ("Grace Hopper
    and Emile Zola"); "Johnson & Johnson" stays whole. A leading "and" ("…, and C") goes."""
    part = re.sub(r"^(?:and|&)\s+", "", part, flags=re.IGNORECASE)
    pieces = _AND.split(part)
    if len(pieces) > 1 and all(len(piece.split()) >= 2 for piece in pieces):
        return pieces
    return [part]


def _as_year(value: Any) -> int | None:
    try:
        return int(str(value).strip()[:4]) if value not in (None, "") else None
    except ValueError:
        return None


def _paper_from_record(record: Any, lineno: int, position: int, result: ParsedSource) -> Paper:
    if not isinstance(record, dict):
        raise BadInput(f"expected an object with title/abstract, got {type(record).__name__}")

    def warn(message: str) -> None:
        result.problems.append(Problem(result.key, lineno, message, skipped=False))

    def text(name: str) -> str:
        value = record.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, str | int | float)):
            # A list or an object is not text: stored as its Python repr it reached the index,
            # the terminal and BibTeX ("{'x': 1}").
            if name == "abstract":
                raise BadInput(f"abstract is {_kind(value)}, not text")
            warn(f"{name} is {_kind(value)}, not text; left out")
            value = None
        return _capped(normalize_ws(str(value or "")), name, result.key, lineno, result.problems)

    abstract = text("abstract")
    if not abstract:
        raise BadInput("missing abstract")
    title = text("title")
    raw_id = record.get("id")
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, str | int)):
        warn(f"id is {_kind(raw_id)}, not text; numbered by position")
        raw_id = None
    paper_id = normalize_ws(str(raw_id or "")) or f"{source_prefix(result.key)}-{position:04d}"
    if len(paper_id) > 200:
        raise BadInput(f"id of {len(paper_id)} characters (at most 200)")
    listed = record.get("authors")
    if isinstance(listed, list) and not all(isinstance(a, str) for a in listed):
        warn(f"{sum(not isinstance(a, str) for a in listed)} author entries are not names; left out")
        listed = [a for a in listed if isinstance(a, str)]
    authors = _as_authors(listed)
    year = _as_year(record.get("year"))
    if year is None and record.get("year") not in (None, ""):
        warn(f"year {str(record.get('year'))[:20]!r} is not a year; left out")
    total = 0
    for n, author in enumerate(authors):
        total += len(author) + 2
        if total > FIELD_LIMITS["authors"]:
            limit = FIELD_LIMITS["authors"]
            message = f"author list cut to {n} of {len(authors)} names (limit {limit:,} characters)"
            result.problems.append(Problem(result.key, lineno, message, skipped=False))
            authors = authors[:n]
            break
    return Paper(
        id=paper_id,
        abstract=abstract,
        label=title or display_label(abstract),
        source=result.key,
        line=lineno,
        title=title,
        authors=authors,
        venue=text("venue"),
        year=year,
        url=text("url"),
    )


def _kind(value: Any) -> str:
    """ "a list", "an object": what a JSON value is, for a message."""
    kinds = {"list": "a list", "dict": "an object", "bool": "true or false"}
    return kinds.get(type(value).__name__, f"a {type(value).__name__}")


def parse_source(path: Path, key: str | None = None) -> ParsedSource:
    """Parse one paper list. Raises :class:`CitelineError` only when the whole file is unusable.

    ``key`` is the source's identity in provenance and IDs (default: the file name).
    """
    path = Path(path)
    kind = _format_of(path)
    text = _read_text(path)
    result = ParsedSource(path=path, key=key or path.name)
    if not text.strip():
        return result  # empty: no papers, and no parse error to report
    if kind == "txt":
        _parse_txt(path, text, result)
    else:
        records = {
            "jsonl": lambda: _records_jsonl(text),
            "json": lambda: _records_json(path, text),
            "csv": lambda: _records_csv(path, text),
        }[kind]()
        parsed_any = has_abstracts = False
        for position, (lineno, record) in enumerate(records, start=1):
            parsed_any |= not isinstance(record, CitelineError)
            has_abstracts |= isinstance(record, dict) and "abstract" in record
            try:
                if isinstance(record, CitelineError):
                    raise record
                result.papers.append(_paper_from_record(record, lineno, position, result))
            except CitelineError as exc:
                result.problems.append(Problem(result.key, lineno, str(exc)))
        if parsed_any and not has_abstracts:
            # A manifest or other JSON beside the lists: one warning, not one per record.
            result.problems = [
                Problem(result.key, None, "no record has an 'abstract' field; not a paper list")
            ]
    _drop_duplicate_ids(result)
    return result


def _drop_duplicate_ids(result: ParsedSource) -> None:
    seen: dict[str, int] = {}
    kept: list[Paper] = []
    for paper in result.papers:
        if paper.id in seen:
            result.problems.append(
                Problem(
                    paper.source,
                    paper.line,
                    f"duplicate id {paper.id!r} (first at line {seen[paper.id]}), skipped",
                )
            )
            continue
        seen[paper.id] = paper.line
        kept.append(paper)
    result.papers = kept


def expand_paths(paths: list[Path]) -> list[SourceFile]:
    """Files as given, directories expanded to the paper lists they hold (sorted, stable).

    Each file's key is its path below the directory it was found in, or its name when given
    directly.
    """
    files: list[SourceFile] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.name.lower().removesuffix(".gz").endswith(SUFFIXES)
            )
            if not found:
                raise BadInput(f"{path}: no paper lists found ({', '.join(SUFFIXES)})")
            files.extend(SourceFile(p, p.relative_to(path).as_posix()) for p in found)
        elif path.is_file():
            files.append(SourceFile(path, path.name))
        elif path.exists():  # /dev/zero, a pipe, a socket: nothing to read papers from
            raise BadInput(f"{path}: not a regular file or a directory")
        else:
            raise NotFound(f"{path}: no such file or directory")
    return files
