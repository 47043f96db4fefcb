"""The codec between a :class:`Paper` and the scalar metadata Chroma stores with each chunk.

Chroma accepts only scalars (no lists, no None), and every chunk must carry enough to rebuild its
paper, so that a search hit needs no second look-up to show provenance.
"""

from __future__ import annotations

from rag.records import Paper


def paper_metadata(paper: Paper) -> dict[str, str | int]:
    """Scalar-only metadata (Chroma rejects lists and None) from which the Paper is rebuilt."""
    meta: dict[str, str | int] = {
        "paper_id": paper.id,
        "label": paper.label,
        "abstract": paper.abstract,
        "source": paper.source,
        "line": paper.line,
    }
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
    """The Paper a chunk's metadata describes."""
    authors = str(meta.get("authors") or "")
    return Paper(
        id=str(meta["paper_id"]),
        abstract=str(meta["abstract"]),
        label=str(meta["label"]),
        source=str(meta["source"]),
        line=int(meta["line"]),
        title=str(meta.get("title") or ""),
        authors=tuple(a for a in authors.split("; ") if a),
        venue=str(meta.get("venue") or ""),
        year=int(meta["year"]) if meta.get("year") is not None else None,
        url=str(meta.get("url") or ""),
    )
