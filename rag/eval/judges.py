"""Support judges for the grounding metrics: does a piece of evidence support a claim?

``lexical`` (offline, default): the claim's content words (stemmed) are mostly found in the
evidence and every number in the claim appears there; a cheap stand-in for entailment that is
strict about numbers, where answers most often go wrong. ``embedding``: the claim is close to some
evidence sentence in MiniLM space. ``llm``: ask a model through the same OpenAI-compatible
interface as answers. Every reported figure names the judge that produced it.
"""

from __future__ import annotations

from typing import Protocol

from rag.text import split_sentences, supports


class Judge(Protocol):
    """Decides whether evidence supports a claim; every reported figure names its judge."""

    name: str

    def supports(self, claim: str, evidence: str) -> bool: ...


class LexicalJudge:
    """The offline default: :func:`rag.text.supports`, the same check the answer path runs."""

    name = "lexical"

    def __init__(self, threshold: float = 0.6) -> None:
        self.threshold = threshold

    def supports(self, claim: str, evidence: str) -> bool:
        """Most content words and every number of the claim are in the evidence."""
        return supports(claim, evidence, self.threshold)


class EmbeddingJudge:
    """Support as closeness in MiniLM space: lenient on paraphrase, blind to wrong numbers."""

    name = "embedding"

    def __init__(self, embedder, threshold: float = 0.7) -> None:
        self.embedder, self.threshold = embedder, threshold

    def supports(self, claim: str, evidence: str) -> bool:
        """Some evidence sentence is within ``threshold`` cosine of the claim."""
        sentences = split_sentences(evidence) or [evidence]
        vectors = self.embedder.embed_documents([claim, *sentences])
        best = max(sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:])
        return best >= self.threshold


class LLMJudge:
    """Support as a model's yes/no, through the same OpenAI-compatible interface as answers."""

    def __init__(self, handle) -> None:
        self.handle = handle
        self.name = f"llm:{handle.name}"

    def supports(self, claim: str, evidence: str) -> bool:
        """The model says yes."""
        from rag.resources import prompt_text

        reply = self.handle.invoke(prompt_text("judge_support").format(evidence=evidence, claim=claim))
        return reply.strip().lower().startswith("yes")
