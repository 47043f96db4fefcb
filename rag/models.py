"""The typed records that flow through the pipeline: sources → papers → chunks → hits → answers."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class Paper:
    """One entry of a paper list, with the provenance a citation needs to point back at it."""

    id: str
    abstract: str
    label: str
    source: str  # file name of the list the entry came from
    line: int  # 1-based physical line of the entry in that file
    title: str = ""
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    url: str = ""

    @property
    def display(self) -> str:
        return self.title or self.label

    def to_dict(self) -> dict[str, Any]:
        # Not dataclasses.asdict: its recursive deep copy was 8% of an unchanged 37k-paper re-ingest.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["authors"] = list(self.authors)
        return data


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
    text: str = ""  # best-matching chunk
    collection: str = ""  # the collection it was found in

    def to_dict(self) -> dict[str, Any]:
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
        return {
            "key": self.key,
            "id": self.paper.id,
            "label": self.paper.display,
            "source": self.paper.source,
            "line": self.paper.line,
            "text": self.paper.abstract,
        }


@dataclass
class Answer:
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "standalone_question": self.standalone_question,
            "answer": self.text,
            "abstained": self.abstained,
            "grounded": self.grounded,
            "citations": [c.to_dict() for c in self.citations],
            "invalid_citations": self.invalid_keys,
            "withheld": self.withheld,
            "retrieved": [h.to_dict() for h in self.retrieved],
            "model": self.model,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }
