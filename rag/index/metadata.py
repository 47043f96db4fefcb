"""The codec between a :class:`Paper` and the scalar metadata Chroma stores with each chunk.

Chroma accepts only scalars (no lists, no None). Every chunk carries its paper's provenance (id,
label, source, line, venue, year...), so a hit shows where it comes from; the abstract, the one
large field, is stored once per paper, with its first chunk (``<id>#0``). Storing it with every
chunk made storage grow with the square of the abstract's length. Indexes written before that
carry it in every chunk, which still reads.
"""

from __future__ import annotations

from rag.records import Paper


def first_chunk_id(paper_id: str) -> str:
    """The chunk that carries the paper's abstract."""
    return f"{paper_id}#0"


def paper_metadata(paper: Paper, with_abstract: bool) -> dict[str, str | int]:
    """Scalar-only metadata (Chroma rejects lists and None) from which the Paper is rebuilt."""
    meta: dict[str, str | int] = {
        "paper_id": paper.id,
        "label": paper.label,
        "source": paper.source,
        "line": paper.line,
    }
    if with_abstract:
        meta["abstract"] = paper.abstract
    optional = {
        "title": paper.title,
        "authors": "; ".join(paper.authors),
        "venue": paper.venue,
        "url": paper.url,
    }
    meta.update({k: v for k, v in optional.items() if v})
    if paper.year is not None:
        meta["year"] = paper.year
    return meta


def paper_from_metadata(meta: dict) -> Paper:
    """The Paper a chunk's metadata describes (its first chunk's, or one the store completed)."""
    authors = str(meta.get("authors") or "")
    return Paper(
        id=str(meta["paper_id"]),
        abstract=str(meta.get("abstract") or ""),
        label=str(meta["label"]),
        source=str(meta["source"]),
        line=int(meta["line"]),
        title=str(meta.get("title") or ""),
        authors=tuple(a for a in authors.split("; ") if a),
        venue=str(meta.get("venue") or ""),
        year=int(meta["year"]) if meta.get("year") is not None else None,
        url=str(meta.get("url") or ""),
    )
