"""The typed records that flow through the pipeline: sources → papers → chunks → hits → answers."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Protocol


class Progress(Protocol):
    """How a long job (a summary, an eval, a benchmark) reports: ``progress(stage, done, total)``,
    called as each item of a stage finishes, so a caller can draw a bar or ignore it."""

    def __call__(self, stage: str, done: int, total: int) -> None: ...


class IngestEvents(Protocol):
    """How an ingest reports: ``("start", 0, collection)`` once the collection is taken (the CLI
    defers Ctrl-C from then on), ``("total", papers, file)`` per file, ``("advance", 1, "")`` per paper.
    Its own type because its third field names a file, not a count."""

    def __call__(self, event: str, amount: int, detail: str) -> None: ...


class AnswerMode(StrEnum):
    """How an answer's text was made. A ``str``, so it compares equal to, and serialises as, its
    value (``"quoted"``) in JSON, the answer log and the eval reports."""

    GENERATED = "generated"  # by the model
    QUOTED = "quoted"  # evidence sentences, when the model refused or its draft was withheld
    EXTRACTIVE = "extractive"  # no model: the evidence quoted
    LISTING = "listing"  # topic selection, one cited line per paper
    ABSTAINED = "abstained"  # nothing relevant, or the evidence does not answer


@dataclass(frozen=True)
class Paper:
    """One entry of a paper list, with the provenance a citation needs to point back at it."""

    id: str
    abstract: str
    label: str
    source: str  # the list it came from: its path below the folder ingested (see rag.index.corpus)
    line: int  # 1-based physical line of the entry in that file
    title: str = ""
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    url: str = ""

    @property
    def display(self) -> str:
        """What to call the paper on screen: its title, else the label derived from its abstract."""
        return self.title or self.label

    def reference(self) -> dict[str, Any]:
        """Identity and provenance, what a reader needs to find the entry: id, label, file and
        line, venue, year and url (None when the list gives none), as ``check --json`` and the
        MCP tools give a paper."""
        return {
            "id": self.id,
            "label": self.display,
            "source": self.source,
            "line": self.line,
            "venue": self.venue or None,
            "year": self.year,
            "url": self.url or None,
        }

    def is_by(self, name: str) -> bool:
        """One of the paper's authors is ``name`` as a person writes it: "Yejin Choi", "Y. Choi",
        "Choi" (the surname alone), "Zico Kolter" for "J Zico Kolter", "Jose" for "José", "Choi,
        Yejin". The surname must match; each other word the name writes must match a word of the
        same author, in order, in full or as its initial."""
        asked = name_words(name)
        return bool(asked) and any(_names_author(asked, name_words(author)) for author in self.authors)

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (authors as a list)."""
        # Not dataclasses.asdict: its recursive deep copy was 8% of an unchanged 37k-paper re-ingest.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["authors"] = list(self.authors)
        return data


def name_words(name: str) -> list[str]:
    """A person's name as lower-case words without accents, surname last: "Shuo Yang" and "Yang,
    Shuo" → ["shuo", "yang"]; "José" → ["jose"]; "Łukasz" → ["lukasz"]; "John Doe Jr." → ["john", "doe"]."""
    if "," in name:
        surname, _, given = name.partition(",")
        name = f"{given} {surname}"
    # Accents off ("José" as "Jose"), and the letters no accent makes ("Łukasz" as "Lukasz");
    # a name in another script keeps its letters ("Иван Петров" matches itself).
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)).translate(_UNACCENTED)
    words = re.findall(r"[^\W_]+", bare.casefold())
    while len(words) > 1 and words[-1] in _NAME_SUFFIXES:  # "John Doe Jr.": the surname is Doe
        words.pop()
    return words


_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
_UNACCENTED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "đ": "d", "Đ": "D", "æ": "ae", "Æ": "Ae",
     "œ": "oe", "Œ": "Oe", "ı": "i", "þ": "th"}
)  # fmt: skip


def _names_author(asked: list[str], author: list[str]) -> bool:
    """``asked`` (a name's words) names ``author``: same surname, the other words in order, each
    in full or as an initial."""
    if not author or asked[-1] != author[-1]:
        return False
    given = iter(author[:-1])
    return all(
        any(word == own or (len(word) == 1 and own.startswith(word)) for own in given) for word in asked[:-1]
    )


@dataclass(frozen=True)
class Chunk:
    """A token window of one paper's text; ``id`` is stable so re-ingest upserts in place."""

    id: str
    paper_id: str
    index: int
    text: str
    metadata: dict[str, str | int | float | bool] = field(default_factory=dict)


@dataclass
class Hit:
    """A paper found by retrieval, with the scores that put it there."""

    paper: Paper
    score: float  # the fused (or single-mode) ranking score; higher is better
    similarity: float | None = None  # best dense cosine similarity of its chunks, if known
    bm25: float | None = None
    text: str = ""  # the paper's stored text (its abstract), as the matching chunk carried it
    collection: str = ""  # the collection it was found in

    def to_dict(self) -> dict[str, Any]:
        """The ranking row shown by ``search --json`` and inside answers."""
        return {
            "id": self.paper.id,
            "label": self.paper.display,
            "score": round(self.score, 6),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "bm25": None if self.bm25 is None else round(self.bm25, 4),
            "source": self.paper.source,
            "line": self.paper.line,
            "collection": self.collection,
        }


@dataclass(frozen=True)
class Citation:
    """A citation key used in an answer, resolved to the paper it names."""

    key: str
    paper: Paper

    def to_dict(self) -> dict[str, Any]:
        """Where the cited text comes from (file and line) and the text itself."""
        return {
            "key": self.key,
            "id": self.paper.id,
            "label": self.paper.display,
            "source": self.paper.source,
            "line": self.paper.line,
            "text": self.paper.abstract,
        }


@dataclass
class Turn:
    """One exchange of a conversation, kept so follow-ups can be rewritten into standalone questions."""

    question: str
    answer: str
    # Ids of the papers the answer cited: without a model, a follow-up that leans on the
    # conversation is answered from these alone (rag/answer/followup.py).
    papers: tuple[str, ...] = ()


@dataclass
class Answer:
    """A checked answer: its text, the citations that survived validation, and how it was made.

    ``context`` is the keyed context the model was given (after the token budget cut it), so
    the eval scores citations against exactly what the model saw.
    """

    question: str
    text: str
    abstained: bool
    citations: list[Citation]
    retrieved: list[Hit]
    model: str
    invalid_keys: list[str] = field(default_factory=list)
    grounded: bool = True  # False when a non-refusal answer carries no valid citation
    standalone_question: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    withheld: str | None = None  # why a generated draft was withheld by verification
    context: dict[str, Paper] = field(default_factory=dict)  # citation key -> paper, as the model saw them
    mode: AnswerMode = AnswerMode.GENERATED  # how the text was made; a plain string is converted
    attribution: list[dict[str, Any]] = field(default_factory=list)  # per sentence: keys and status
    revised: bool = False  # the checked text differs from what was streamed
    prompt_tokens: int = 0
    found: int | None = None  # a listing: how many papers the topic holds (the answer lists at most the cap)
    likely: int | None = None  # a listing: how many of ``found`` are likely on the topic (listed first)

    def __post_init__(self) -> None:
        """A mode given as a string (``"quoted"``) becomes the enum; an unknown one is a ValueError."""
        self.mode = AnswerMode(self.mode)

    def to_dict(self) -> dict[str, Any]:
        """The ``ask --json`` document."""
        return {
            "question": self.question,
            "standalone_question": self.standalone_question,
            "answer": self.text,
            "abstained": self.abstained,
            "grounded": self.grounded,
            "citations": [c.to_dict() for c in self.citations],
            "invalid_citations": self.invalid_keys,
            "withheld": self.withheld,
            "mode": self.mode,
            "found": self.found,
            "likely": self.likely,
            "attribution": self.attribution,
            "context": [{"key": key, "id": paper.id} for key, paper in self.context.items()],
            "retrieved": [h.to_dict() for h in self.retrieved],
            "model": self.model,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "prompt_tokens": self.prompt_tokens,  # the answer prompt in cl100k tokens (0: none was sent)
        }


@dataclass(frozen=True)
class CollectionCount:
    """One collection on a store and its chunk count (None: built with another embedding model,
    so listed but not usable with these settings)."""

    name: str
    chunks: int | None


@dataclass(frozen=True)
class StoreContents:
    """What :meth:`rag.Library.collections` reports: where the store is, and what it holds."""

    location: str  # the embedded store's directory, or the Chroma server's URL
    collections: list[CollectionCount]
