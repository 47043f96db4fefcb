"""Sentence-aware token chunking with tiktoken.

Sentences are packed into windows of at most ``max_tokens``; consecutive windows share whole
trailing sentences worth up to ``overlap`` tokens, so a fact split across a boundary is still
found whole in one chunk. A sentence longer than a window is cut on token boundaries. An abstract
shorter than the window stays a single chunk, which is the common case for paper lists.
"""

from __future__ import annotations

import hashlib
import json
import re

from rag.models import Chunk, Paper
from rag.tokens import count_tokens, encoding

# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and a capital,
# digit, or markup opener; "e.g. x" and "Fig. 3" style abbreviations are rarely followed by capitals.
_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9$*\\(\[“])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "Fig.", "Eq.", "cf.", "resp.")


def split_sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_BOUNDARY.split(text) if p.strip()]
    merged: list[str] = []
    for part in parts:
        if merged and merged[-1].endswith(_ABBREVIATIONS):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    return merged


def _split_long(sentence: str, max_tokens: int) -> list[str]:
    enc = encoding()
    ids = enc.encode(sentence, disallowed_special=())
    return [enc.decode(ids[i : i + max_tokens]).strip() for i in range(0, len(ids), max_tokens)]


def chunk_text(text: str, max_tokens: int = 200, overlap: int = 32) -> list[str]:
    if max_tokens <= 0 or overlap < 0 or overlap >= max_tokens:
        raise ValueError("need max_tokens > 0 and 0 <= overlap < max_tokens")
    if count_tokens(text) <= max_tokens:
        return [text]
    sentences: list[tuple[str, int]] = []
    for sentence in split_sentences(text):
        pieces = _split_long(sentence, max_tokens) if count_tokens(sentence) > max_tokens else [sentence]
        sentences.extend((p, count_tokens(p)) for p in pieces)
    chunks: list[str] = []
    window: list[tuple[str, int]] = []
    size = 0
    for sentence, n in sentences:
        if window and size + n + 1 > max_tokens:
            chunks.append(" ".join(s for s, _ in window))
            carried: list[tuple[str, int]] = []
            carried_size = 0
            for s, k in reversed(window):
                if carried_size + k > overlap or carried_size + k + n + 1 > max_tokens:
                    break
                carried.insert(0, (s, k))
                carried_size += k + 1
            window, size = carried, carried_size
        window.append((sentence, n))
        size += n + 1
    if window:
        chunks.append(" ".join(s for s, _ in window))
    return chunks


def paper_hash(paper: Paper, max_tokens: int, overlap: int) -> str:
    """Changes whenever the paper's content or the chunking would change its chunks."""
    payload = json.dumps([paper.to_dict(), max_tokens, overlap], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


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


def chunk_paper(paper: Paper, max_tokens: int = 200, overlap: int = 32) -> list[Chunk]:
    """Chunks of the title and abstract; the title leads every chunk so each stands on its own."""
    pieces = chunk_text(paper.abstract, max_tokens, overlap)
    digest = paper_hash(paper, max_tokens, overlap)
    base = paper_metadata(paper)
    chunks = []
    for index, piece in enumerate(pieces):
        meta = dict(base, chunk_index=index, n_chunks=len(pieces), paper_hash=digest)
        text = f"{paper.title}\n{piece}" if paper.title else piece
        chunks.append(
            Chunk(id=f"{paper.id}#{index}", paper_id=paper.id, index=index, text=text, metadata=meta)
        )
    return chunks
