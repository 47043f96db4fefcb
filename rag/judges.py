"""Support judges for the grounding metrics: does a piece of evidence support a claim?

``lexical`` (offline, default): the claim's content words (stemmed) are mostly found in the
evidence and every number in the claim appears there; a cheap stand-in for entailment that is
strict about numbers, where answers most often go wrong. ``embedding``: the claim is close to some
evidence sentence in MiniLM space. ``llm``: ask a model through the same OpenAI-compatible
interface as answers. Every reported figure names the judge that produced it.
"""

from __future__ import annotations

import re
from typing import Protocol

from rag.chunking import split_sentences
from rag.context import plain_text
from rag.lexical import stem_terms

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_STOP = frozenset(
    "the a an of and or to in on for with by from is are was were be been that this these those it its as at"
    " which who what how their our we they than then also can such into over under both each more"
    " most".split()
)


class Judge(Protocol):
    name: str

    def supports(self, claim: str, evidence: str) -> bool: ...


def _stems(text: str) -> set[str]:
    return set(stem_terms(text, _STOP, min_length=3))


def numbers_in(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


class LexicalJudge:
    name = "lexical"

    def __init__(self, threshold: float = 0.6) -> None:
        self.threshold = threshold

    def supports(self, claim: str, evidence: str) -> bool:
        claim, evidence = plain_text(claim), plain_text(evidence)
        words = _stems(claim)
        if not words:
            return False
        if not numbers_in(claim) <= numbers_in(evidence):
            return False
        return len(words & _stems(evidence)) / len(words) >= self.threshold


class EmbeddingJudge:
    name = "embedding"

    def __init__(self, embedder, threshold: float = 0.7) -> None:
        self.embedder, self.threshold = embedder, threshold

    def supports(self, claim: str, evidence: str) -> bool:
        sentences = split_sentences(evidence) or [evidence]
        vectors = self.embedder.embed_documents([claim, *sentences])
        best = max(sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:])
        return best >= self.threshold


class LLMJudge:
    def __init__(self, handle) -> None:
        self.handle = handle
        self.name = f"llm:{handle.name}"

    def supports(self, claim: str, evidence: str) -> bool:
        from rag.llm import describe_llm_error
        from rag.resources import prompt_text

        prompt = prompt_text("judge_support").format(evidence=evidence, claim=claim)
        try:
            reply = str(self.handle.model.invoke(prompt).content)
        except Exception as exc:
            raise describe_llm_error(exc, self.handle) from None
        return reply.strip().lower().startswith("yes")
