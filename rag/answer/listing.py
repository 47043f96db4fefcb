"""Answers to listing questions: every paper on the topic, one cited line each.

"Which papers study watermarking?" wants all of them, not the four a fixed top-k retrieved, and
not a model's guess at how to enumerate. The papers come from topic selection (the same as
``summarize``), each line quotes the paper's sentence that best matches the question, and with
more than ``listing_group_above`` papers (a setting) the lines are grouped into themes. No LLM is
involved, so a listing answer is as fast and as grounded with the embedded model as with
``--llm none``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rag.answer.evidence import PaperEvidence, cite, gather
from rag.answer.themes import group_by_theme
from rag.retrieval.relevance import TermWeights

if TYPE_CHECKING:
    from rag.index.embeddings import Embedder
    from rag.records import Paper
    from rag.settings import AnswerSettings

_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:propose|introduce|present|design|develop)", re.I
)


def _line(evidence: PaperEvidence) -> str:
    """One paper: its name, then the best sentence that states what it contributes on the topic.

    A seed entry's label is often its own first sentence, cut; then the sentence alone is shown.
    """
    on_topic = [s for s in sorted(evidence.sentences, key=lambda s: -s.score) if s.coverage > 0]
    best = (
        next((s for s in on_topic if _CONTRIBUTION.search(s.text)), None)
        or (on_topic or sorted(evidence.sentences, key=lambda s: -s.score) or [None])[0]
    )
    if best is None:
        return f"- {evidence.paper.display} [{evidence.key}]"
    label = evidence.paper.display
    if best.text.startswith(label.rstrip("…")) or label.endswith("…"):
        return f"- {cite(best.text, evidence.key)}"
    return f"- {label}: {cite(best.text, evidence.key)}"


def listing_head(topic: str, shown: int, found: int | None = None, where: str = "") -> str:
    """ "81 papers on graph neural networks at ICLR 2024 (showing 30; --all or -n N shows more):" """
    found = shown if found is None else found
    head = f"{found} paper{'s' if found != 1 else ''} on {topic}{f' {where}' if where else ''}"
    if found > shown:
        head += f" (showing the {shown} closest; --all or -n N shows more)"
    return head + ":"


def listing_answer(
    question: str,
    topic: str,
    keyed: dict[str, Paper],
    embedder: Embedder,
    weights: TermWeights,
    found: int | None = None,
    where: str = "",
    vectors: dict | None = None,
    *,
    tuning: AnswerSettings,
) -> str:
    """A short cited answer: a count, then one line per paper (grouped when there are many).

    Each line's sentence is chosen by its terms (no embedding); themes cluster the papers' stored
    vectors (``vectors``, paper id → unit vector) when the retriever gave them.
    """
    evidence = gather(question, keyed, None, weights, per_paper=5, tuning=tuning)
    lines = {e.key: _line(e) for e in evidence}
    head = listing_head(topic, len(keyed), found, where)
    if len(keyed) <= tuning.listing_group_above:
        return "\n".join([head, *lines.values()])
    parts = [head]
    for name, keys in group_by_theme(topic, keyed, embedder, vectors):
        parts += [f"{name}:", *(lines[k] for k in keys)]
    return "\n".join(parts)
