"""The answer pipeline: question → standalone question → retrieval → keyed context → draft → check.

The chain abstains without calling the LLM when retrieval finds nothing relevant; after
generation it validates every citation key and marks an answer that is not a refusal yet cites
nothing valid as ungrounded instead of presenting it as sourced. Each step is a method, so
``ask`` reads as the flow it implements.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from rag.answer.citations import assign_keys, check_citations
from rag.answer.context import build_context
from rag.answer.extractive import extractive_answer
from rag.answer.grounding import unsupported_reason
from rag.answer.language import needs_translation
from rag.answer.llm import LLMHandle
from rag.answer.refusal import OnToken, RefusalGate, is_refusal, refusal_sentence
from rag.errors import CitelineError
from rag.index.tokens import count_tokens
from rag.records import Answer, Hit, Paper, Turn
from rag.resources import prompt_text
from rag.retrieval import PaperSearch
from rag.settings import Settings
from rag.text import without_keys

__all__ = ["AnswerChain", "Turn", "is_refusal", "refusal_sentence"]


@dataclass
class _Draft:
    """A reply on its way to the user, with what the checks found."""

    text: str
    timings: dict[str, float]
    context: dict[str, Paper] = field(default_factory=dict)
    withheld: str | None = None
    abstained: bool = False


class AnswerChain:
    """Answers questions over one retriever with one LLM (or none: the extractive answerer)."""

    def __init__(self, settings: Settings, retriever: PaperSearch, llm: LLMHandle) -> None:
        self.settings = settings
        self.verify = settings.verify_answers
        self.retriever = retriever
        self.llm = llm
        self._refusal = refusal_sentence()
        self._system = prompt_text("answer_system").replace("{refusal}", self._refusal)
        # Used once when the model refuses although retrieval found a strong match: small models
        # over-refuse, and the verification below still withholds an unsupported second answer.
        self._retry_system = prompt_text("answer_retry_system")

    @property
    def system_prompt(self) -> str:
        """The answer prompt's system text (the eval counts its tokens)."""
        return self._system

    # --- the flow ------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        mode: str = "hybrid",
        on_token: OnToken | None = None,
    ) -> Answer:
        """Answer ``question`` (a follow-up when ``history`` is given), streaming to ``on_token``."""
        question = question.strip()
        if not question:
            raise CitelineError("the question is empty")
        started = time.perf_counter()
        timings: dict[str, float] = {}
        standalone = self.standalone_question(question, history)
        timings["rewrite"] = time.perf_counter() - started
        mark = time.perf_counter()
        hits = self.retrieve(question, standalone, k, mode, follow_up=bool(history))
        timings["retrieve"] = time.perf_counter() - mark
        if not hits:
            draft = _Draft(self._refusal, timings, abstained=True)
            if on_token:
                on_token(self._refusal)
        else:
            context, keyed = build_context(assign_keys(hits), self._context_budget(standalone))
            # A follow-up is answered in its standalone form; a translated question keeps its
            # original wording so that the answer comes back in the user's language.
            asked = standalone if history else question
            draft = self.draft(asked, standalone, context, keyed, hits, timings, started, on_token)
        timings["total"] = time.perf_counter() - started
        return self.check_answer(question, standalone, hits, draft)

    def standalone_question(self, question: str, history: Sequence[Turn] = ()) -> str:
        """Rewrite a follow-up (or a non-English question) into a standalone English query."""
        if self.llm.model is None or not (history or needs_translation(question)):
            return question
        transcript = "\n".join(
            f"User: {t.question}\nAssistant: {without_keys(t.answer)}" for t in history[-3:]
        )
        prompt = prompt_text("condense").format(history=transcript or "(none)", question=question)
        rewritten = self.llm.invoke(prompt)
        line = next((ln.strip().strip('"') for ln in rewritten.splitlines() if ln.strip()), "")
        return line if 3 <= len(line) <= 400 else question

    def retrieve(
        self, question: str, standalone: str, k: int | None, mode: str, follow_up: bool
    ) -> list[Hit]:
        """The papers to answer from, best first."""
        hits = self.retriever.search(standalone, k=k, mode=mode)
        if standalone != question and not follow_up:
            # A translated question's original wording still matters: coined names and
            # numbers match exactly. A follow-up's fragment ("and in far-OOD?") would only add noise.
            seen = {h.paper.id for h in hits}
            extra = [h for h in self.retriever.search(question, k=k, mode=mode) if h.paper.id not in seen]
            hits = (hits + extra)[: k or self.settings.top_k]
        return hits

    def draft(
        self,
        asked: str,
        standalone: str,
        context: str,
        keyed: dict[str, Paper],
        hits: list[Hit],
        timings: dict[str, float],
        started: float,
        on_token: OnToken | None,
    ) -> _Draft:
        """The reply before its citations are checked: the model's, or quoted sentences without one."""
        if self.llm.model is None:
            mark = time.perf_counter()
            text = extractive_answer(standalone, keyed, self.retriever.embedder) or self._refusal
            timings["generate"] = time.perf_counter() - mark
            if on_token:
                on_token(text)
            return _Draft(text, timings, keyed)
        messages = self._messages(self._system, context, asked)
        gate = RefusalGate(on_token) if on_token else None
        text = self._generate(messages, gate, timings, started)
        best = max((h.similarity or 0.0) for h in hits)
        if is_refusal(text) and best >= self.settings.retry_similarity:
            timings["first_refusal"] = timings.pop("generate", 0.0)
            timings.pop("first_token", None)  # the user saw nothing yet; time the reply they see
            if gate:
                gate.reset()
            messages = self._messages(self._retry_system, context, asked)  # a repair builds on this turn
            text = self._generate(messages, gate, timings, started)
        if not is_refusal(text) and not check_citations(text, keyed).citations:
            # Small models sometimes drop the keys; one targeted retry is cheaper than an
            # answer the user cannot trace.
            text = self._repair(messages, text, timings) or text
        withheld = None
        if self.verify and not is_refusal(text):
            withheld = unsupported_reason(text, asked, list(keyed.values()))
        if gate and not gate.opened:
            on_token(self._refusal if withheld or is_refusal(text) else text)
        return _Draft(self._refusal if withheld else text, timings, keyed, withheld, bool(withheld))

    def check_answer(self, question: str, standalone: str, hits: list[Hit], draft: _Draft) -> Answer:
        """Validate the draft's citations and decide what the user is told it rests on."""
        checked = check_citations(draft.text, draft.context)
        refused = draft.abstained or is_refusal(checked.text)
        return Answer(
            question=question,
            text=self._refusal if refused and not checked.text else checked.text,
            abstained=refused,
            citations=[] if refused else checked.citations,
            retrieved=hits,
            model=self.llm.name,
            invalid_keys=checked.invalid,
            grounded=refused or bool(checked.citations),
            standalone_question=standalone if standalone != question else None,
            timings=draft.timings,
            withheld=draft.withheld,
            context=draft.context,
        )

    # --- helpers -------------------------------------------------------------------------------

    def _context_budget(self, question: str) -> int:
        fixed = count_tokens(self._system) + count_tokens(question) + 64
        return max(256, self.settings.context_tokens - self.settings.llm_max_tokens - fixed)

    @staticmethod
    def _messages(system: str, context: str, question: str) -> list:
        from langchain_core.messages import HumanMessage, SystemMessage

        user = prompt_text("answer_user").format(context=context, question=question)
        return [SystemMessage(system), HumanMessage(user)]

    def _generate(self, messages: list, on_token: OnToken | None, timings: dict, asked_at: float) -> str:
        """Stream one reply; ``first_token`` is measured from ``asked_at``, when the user asked."""
        started = time.perf_counter()
        parts: list[str] = []
        for piece in self.llm.stream(messages):
            timings.setdefault("first_token", time.perf_counter() - asked_at)
            parts.append(piece)
            if on_token:
                on_token(piece)
        timings["generate"] = time.perf_counter() - started
        return "".join(parts).strip()

    def _repair(self, messages: list, draft: str, timings: dict) -> str:
        from langchain_core.messages import AIMessage, HumanMessage

        started = time.perf_counter()
        text = self.llm.invoke([*messages, AIMessage(draft), HumanMessage(prompt_text("repair"))])
        timings["repair"] = time.perf_counter() - started
        return text
