"""The answer chain: question → standalone question → retrieval → keyed context → LLM → checked answer.

Built from LangChain runnables (prompt template | chat model | string parser) over our own
retriever. The chain abstains without calling the LLM when retrieval finds nothing above the
relevance floor; after generation it validates every citation key and marks an answer that is
not a refusal yet cites nothing valid as ungrounded instead of presenting it as sourced.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.citations import assign_keys, check_citations
from rag.context import build_context
from rag.errors import CitelineError
from rag.extractive import extractive_answer
from rag.llm import LLMHandle, describe_llm_error
from rag.models import Answer, Hit
from rag.resources import prompt_text
from rag.retrieval import Retriever
from rag.settings import Settings
from rag.tokens import count_tokens
from rag.verify import unsupported_reason

OnToken = Callable[[str], None]
_CITATION = re.compile(r" ?\[[^\]]*\]")


@dataclass
class Turn:
    question: str
    answer: str


def refusal_sentence() -> str:
    return prompt_text("refusal").strip()


def _normalized(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text).strip().lower()


# Models paraphrase the refusal ("... is not provided in the abstracts"); these count as one too.
_PARAPHRASED_REFUSAL = re.compile(
    r"\b(?:not|never) (?:provided|mentioned|stated|specified|given|reported|discussed|contain\w*|answer\w*|"
    r"include\w*|address\w*)\b.{0,40}\b(?:abstracts?|papers?|context)\b|"
    r"\b(?:abstracts?|papers?|context) (?:do|does) not "
    r"(?:provide|mention|state|specify|contain|answer|include)",
)


def is_refusal(text: str) -> bool:
    body = _normalized(re.sub(r"\[[^\]]*\]", "", text))
    if not body or _normalized(refusal_sentence()) in body:
        return True
    return len(body) < 200 and bool(_PARAPHRASED_REFUSAL.search(body))


_ENGLISH = frozenset(
    "the a an of and or to in on for with by from at as is are was were be does do did what which who whom"
    " how why when where that this these those it its than".split()
)


def needs_translation(question: str) -> bool:
    """Not English: the English embedder and BM25 need an English query.

    Non-Latin script (Chinese, Japanese, Russian) is certain; for Latin-script languages (German,
    Spanish, French) a question of several words with almost no English function words is.
    """
    if sum(c.isalpha() and not c.isascii() and not "\u00c0" <= c <= "\u024f" for c in question) >= 2:
        return True
    words = re.findall(r"[^\W\d_]+", question.lower())
    return len(words) >= 4 and not any(w in _ENGLISH for w in words)


class _RefusalGate:
    """Streams tokens as they come, except while the reply may still be the refusal sentence.

    A refusal is not shown as it streams because the chain may retry it; anything else is passed
    through as soon as it diverges from the refusal's first words.
    """

    def __init__(self, refusal: str, sink: OnToken) -> None:
        self._target = _normalized(refusal)
        self._sink = sink
        self._held = ""
        self.opened = False

    def __call__(self, piece: str) -> None:
        if self.opened:
            self._sink(piece)
            return
        self._held += piece
        if not self._target.startswith(_normalized(self._held)):
            self.opened = True
            self._sink(self._held)

    def reset(self) -> None:
        """Forget a held reply (a refusal about to be retried)."""
        if not self.opened:
            self._held = ""


class AnswerChain:
    def __init__(self, settings: Settings, retriever: Retriever, llm: LLMHandle) -> None:
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

    def _prompt(self):
        from langchain_core.prompts import ChatPromptTemplate

        # The system prompt is passed as a variable so braces inside it are never parsed.
        return ChatPromptTemplate.from_messages(
            [("system", "{system}"), ("human", prompt_text("answer_user"))]
        )

    def _generate(self, variables: dict, on_token: OnToken | None, timings: dict, asked_at: float) -> str:
        """Stream one reply; ``first_token`` is measured from ``asked_at``, when the user asked."""
        from langchain_core.output_parsers import StrOutputParser

        chain = self._prompt() | self.llm.model | StrOutputParser()
        started = time.perf_counter()
        parts: list[str] = []
        try:
            for piece in chain.stream(variables):
                if piece and "first_token" not in timings:
                    timings["first_token"] = time.perf_counter() - asked_at
                parts.append(piece)
                if on_token:
                    on_token(piece)
        except CitelineError:
            raise
        except Exception as exc:
            raise describe_llm_error(exc, self.llm) from None
        timings["generate"] = time.perf_counter() - started
        return "".join(parts).strip()

    def standalone_question(self, question: str, history: Sequence[Turn] = ()) -> str:
        """Rewrite a follow-up (or a non-English question) into a standalone English query."""
        if self.llm.model is None or not (history or needs_translation(question)):
            return question
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import PromptTemplate

        transcript = "\n".join(
            f"User: {t.question}\nAssistant: {_CITATION.sub('', t.answer)}" for t in history[-3:]
        )
        chain = PromptTemplate.from_template(prompt_text("condense")) | self.llm.model | StrOutputParser()
        try:
            rewritten = chain.invoke({"history": transcript or "(none)", "question": question})
        except Exception as exc:
            raise describe_llm_error(exc, self.llm) from None
        line = next((ln.strip().strip('"') for ln in rewritten.splitlines() if ln.strip()), "")
        return line if 3 <= len(line) <= 400 else question

    def _context_budget(self, question: str) -> int:
        fixed = count_tokens(self._system) + count_tokens(question) + 64
        return max(256, self.settings.context_tokens - self.settings.llm_max_tokens - fixed)

    def retrieve(
        self, question: str, standalone: str, k: int | None, mode: str, follow_up: bool
    ) -> list[Hit]:
        hits = self.retriever.search(standalone, k=k, mode=mode)
        if standalone != question and not follow_up:
            # A translated question's original wording still matters: coined names and
            # numbers match exactly. A follow-up's fragment ("and in far-OOD?") would only add noise.
            seen = {h.paper.id for h in hits}
            extra = [h for h in self.retriever.search(question, k=k, mode=mode) if h.paper.id not in seen]
            hits = (hits + extra)[: k or self.settings.top_k]
        return hits

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        mode: str = "hybrid",
        on_token: OnToken | None = None,
    ) -> Answer:
        question = question.strip()
        if not question:
            raise CitelineError("the question is empty")
        timings: dict[str, float] = {}
        started = time.perf_counter()
        standalone = self.standalone_question(question, history)
        timings["rewrite"] = time.perf_counter() - started
        mark = time.perf_counter()
        hits = self.retrieve(question, standalone, k, mode, follow_up=bool(history))
        timings["retrieve"] = time.perf_counter() - mark

        def finish(text: str, abstained: bool, keyed: dict) -> Answer:
            checked = check_citations(text, keyed)
            refused = abstained or is_refusal(checked.text)
            timings["total"] = time.perf_counter() - started
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
                timings=timings,
            )

        if not hits:
            if on_token:
                on_token(self._refusal)
            return finish(self._refusal, True, {})
        context, keyed = build_context(assign_keys(hits), self._context_budget(standalone))
        if self.llm.model is None:
            mark = time.perf_counter()
            text = extractive_answer(standalone, keyed, self.retriever.embedder) or self._refusal
            timings["generate"] = time.perf_counter() - mark
            if on_token:
                on_token(text)
            return finish(text, False, keyed)
        # A follow-up is answered in its standalone form; a translated question keeps its
        # original wording so that the answer comes back in the user's language.
        asked = standalone if history else question
        variables = {"system": self._system, "context": context, "question": asked}
        gate = _RefusalGate(self._refusal, on_token) if on_token else None
        text = self._generate(variables, gate, timings, started)
        best = max((h.similarity or 0.0) for h in hits)
        if is_refusal(text) and best >= self.settings.retry_similarity:
            timings["first_refusal"] = timings.pop("generate", 0.0)
            timings.pop("first_token", None)  # the user saw nothing yet; time the reply they see
            if gate:
                gate.reset()
            variables = dict(variables, system=self._retry_system)  # a repair then builds on this turn
            text = self._generate(variables, gate, timings, started)
        if not is_refusal(text) and not check_citations(text, keyed).citations:
            # Small models sometimes drop the keys; one targeted retry is cheaper than an
            # answer the user cannot trace.
            text = self._repair(variables, text, timings) or text
        withheld = None
        if self.verify and not is_refusal(text):
            withheld = unsupported_reason(text, question, list(keyed.values()))
        if gate and not gate.opened:
            on_token(self._refusal if withheld or is_refusal(text) else text)
        answer = finish(self._refusal if withheld else text, bool(withheld), keyed)
        answer.withheld = withheld
        return answer

    def _repair(self, variables: dict, draft: str, timings: dict) -> str:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        started = time.perf_counter()
        messages = [
            SystemMessage(variables["system"]),
            HumanMessage(prompt_text("answer_user").format(**variables)),
            AIMessage(draft),
            HumanMessage(prompt_text("repair")),
        ]
        try:
            text = str(self.llm.model.invoke(messages).content).strip()
        except Exception as exc:
            raise describe_llm_error(exc, self.llm) from None
        timings["repair"] = time.perf_counter() - started
        return text
