"""Sentence-aware token chunking with tiktoken.

Sentences are packed into windows of at most ``max_tokens``; consecutive windows share whole
trailing sentences worth up to ``overlap`` tokens, so a fact split across a boundary is still
found whole in one chunk. A sentence longer than a window is cut on token boundaries. An abstract
shorter than the window stays a single chunk, which is the common case for paper lists.
"""

from __future__ import annotations

import hashlib
import json

from rag.index.metadata import paper_metadata
from rag.index.tokens import count_tokens, encoding
from rag.records import Chunk, Paper
from rag.text import split_sentences


def _split_long(sentence: str, max_tokens: int) -> list[str]:
    enc = encoding()
    ids = enc.encode(sentence, disallowed_special=())
    return [enc.decode(ids[i : i + max_tokens]).strip() for i in range(0, len(ids), max_tokens)]


def chunk_text(text: str, max_tokens: int = 200, overlap: int = 32) -> list[str]:
    """Token windows of whole sentences (see the module docstring for why)."""
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


# Bumped when what a chunk stores changes, so that a re-ingest rewrites papers in the old layout
# (2: the abstract once per paper, sources keyed by relative path). Vectors are reused.
LAYOUT = 2


def paper_hash(paper: Paper, max_tokens: int, overlap: int) -> str:
    """Changes whenever the paper's content, the chunking or the stored layout would change its chunks."""
    payload = json.dumps([paper.to_dict(), max_tokens, overlap, LAYOUT], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def chunk_paper(
    paper: Paper, max_tokens: int = 200, overlap: int = 32, source_path: str | None = None
) -> list[Chunk]:
    """Chunks of the title and abstract; the title leads every chunk so each stands on its own.

    The first chunk also carries the abstract; ``source_path`` (where the file was read) lets a
    later ingest tell a moved file from a different file with the same key.
    """
    pieces = chunk_text(paper.abstract, max_tokens, overlap)
    digest = paper_hash(paper, max_tokens, overlap)
    chunks = []
    for index, piece in enumerate(pieces):
        meta = dict(
            paper_metadata(paper, with_abstract=index == 0),
            chunk_index=index,
            n_chunks=len(pieces),
            paper_hash=digest,
        )
        if source_path:
            meta["source_path"] = source_path
        text = f"{paper.title}\n{piece}" if paper.title else piece
        chunks.append(
            Chunk(id=f"{paper.id}#{index}", paper_id=paper.id, index=index, text=text, metadata=meta)
        )
    return chunks
