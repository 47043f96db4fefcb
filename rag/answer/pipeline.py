"""The answer pipeline: question → standalone question → intent → retrieval → evidence → draft → check.

Two promises shape it. An answer is never worse than quoting the evidence: when the model
refuses, or its draft is withheld, although the evidence answers the question, the user gets the
cited sentences themselves (``mode: quoted``), not the refusal sentence. And a refusal rests on
the evidence: off-topic questions retrieve nothing relevant and abstain without an LLM call;
otherwise the evidence check (:func:`rag.answer.evidence.answers_question`) decides, whoever
says so first. Listing questions ("Which papers study X?") are answered from topic selection,
one cited line per paper, without the model.

Each step is a method, so :meth:`AnswerChain.ask` reads as the flow it implements.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from rag.answer import evidence as ev
from rag.answer.asked import asked_for, restates
from rag.answer.attribution import Attributed, attribute
from rag.answer.citations import assign_keys, check_citations
from rag.answer.context import without_injections
from rag.answer.expansion import subfield_terms
from rag.answer.followup import NO_CONVERSATION, NO_WORDS, is_fragment, topic_alone
from rag.answer.followup import resolve as resolve_follow_up
from rag.answer.grounding import invented_figures, invented_names, unmet_claim, unmet_figures
from rag.answer.intent import Intent, asks_for_authors, classify
from rag.answer.language import needs_translation
from rag.answer.listing import catalogue_answer, in_place, listing_answer, select_on
from rag.answer.refusal import OnToken, RefusalGate, is_refusal, refusal_sentence
from rag.index.tokens import count_tokens
from rag.llm.client import LLMHandle, read_reply, resolve_kind
from rag.records import Answer, Hit, Paper, Turn
from rag.resources import answer_system_prompt, prompt_text
from rag.retrieval import PaperSearch
from rag.retrieval.relevance import topic_of
from rag.retrieval.topics import since_recent
from rag.settings import Settings
from rag.text import checked_query, lexical_terms, without_keys

__all__ = ["AnswerChain", "Turn", "is_refusal", "refusal_sentence"]

# The model name of an answer that needed no model (a listing, or nothing relevant to answer from).
NO_MODEL_CALL = "no model call"


@dataclass
class _AskTrace:
    """One question on its way through the pipeline: what each step found, and when."""

    question: str
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    standalone: str = ""
    hits: list[Hit] = field(default_factory=list)
    context: dict[str, Paper] = field(default_factory=dict)
    evidence: list[ev.PaperEvidence] = field(default_factory=list)
    prompt_tokens: int = 0
    shown: int = 30  # most papers a listing shows (listing_max_papers, or the caller's limit)
    found: int | None = None  # papers a listing selected (it shows at most ``shown``)
    likely: int | None = None  # of those, how many are likely on the topic (the first ones)

    def lap(self, name: str, since: float) -> float:
        """Record the time since ``since`` under ``name``; returns now, for the next lap."""
        now = time.perf_counter()
        self.timings[name] = now - since
        return now


# What may be a paper's ID in a question: a token with a digit, a dash or an inner capital
# ("000-02", "rkecl1rtwB", "-qh0M9XWxnv", "_gZLyRGGuo", "2401.12345"), bracketed or not.
_PAPER_ID = re.compile(
    r"\[?(?<![\w.-])([-_]?(?=[\w.-]*(?:\d|-|[a-z][A-Z]))[A-Za-z0-9][\w.-]{2,60}[A-Za-z0-9])(?![\w-])\]?"
)
# What of a title may not reach the question: control and invisible characters.
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass
class _Draft:
    """A reply before its citations are validated, and how it came about."""

    text: str
    mode: str  # generated | quoted | extractive | listing | abstained
    withheld: str | None = None
    invalid: list[str] = field(default_factory=list)
    attributed: Attributed | None = None
    streamed: str | None = None  # what the user already saw, when it differs from text


def _no_author(author: str, where: str, recorded: bool) -> str:
    """Why no paper is listed for ``author``: the list records no authors at all (a seed list),
    or none of the papers it records (at that venue and year) names that person."""
    if not recorded:
        return f"The papers here record no authors, so none can be found by {author}."
    place = f" {where}" if where else ""
    return f"No indexed paper{place} lists {author} among its authors."


class AnswerChain:
    """Answers questions over one retriever with one LLM (or none: quoted evidence)."""

    def __init__(
        self, settings: Settings, retriever: PaperSearch, llm: LLMHandle | Callable[[], LLMHandle]
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        # A handle, or how to make one: then the model is started only when an answer needs it,
        # so a listing or an abstention never waits for the embedded model to load.
        self._llm = llm if isinstance(llm, LLMHandle) else None
        self._make_llm = None if isinstance(llm, LLMHandle) else llm
        self._refusal = refusal_sentence()
        self._system = answer_system_prompt()

    @property
    def llm(self) -> LLMHandle:
        """The model (built on first use when the chain was given a factory)."""
        if self._llm is None:
            self._llm = self._make_llm()
        return self._llm

    def _has_model(self) -> bool:
        """Whether answers use a model, without starting one."""
        return self._llm.model is not None if self._llm is not None else resolve_kind(self.settings) != "none"

    @property
    def system_prompt(self) -> str:
        """The answer prompt's system text: identical for every question, so a local server's
        prompt cache reuses its tokens (the eval counts them too)."""
        return self._system

    # --- the flow ------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        mode: str = "hybrid",
        on_token: OnToken | None = None,
        max_papers: int | None = None,
    ) -> Answer:
        """Answer ``question`` (a follow-up when ``history`` is given), streaming to ``on_token``.
        ``max_papers``: most papers a listing shows (default ``listing_max_papers``), for a caller
        that serves many questions with one settings object (the MCP server)."""
        question = checked_query(question)
        run = _AskTrace(question, shown=max_papers or self.settings.listing_max_papers)
        question = self.named_ids(question)  # "What does [004-05] propose?": by the paper's name
        run.standalone = self.standalone_question(question, history)
        # Without a model to rewrite it, a follow-up is resolved by rule (rag/answer/followup.py).
        follow = None if self._has_model() else resolve_follow_up(question, history)
        if follow is not None:
            run.standalone = follow.standalone
        mark = run.lap("rewrite", run.started)
        intent = classify(run.standalone)
        if not history and (topic := topic_alone(question)):
            # "what about watermarking?", asked first: which papers are about it
            asked = classify(f"Which papers are about {topic}?")
            intent = asked if asked.is_listing or asked.is_catalogue else intent
        if follow is not None and follow.unlisted:  # "the third one" after a listing of two
            draft = _Draft(follow.refusal, "abstained")
        elif intent.is_catalogue and not (follow and follow.papers):
            draft = self.list_collection(run, intent)
            run.lap("retrieve", mark)
        elif (
            not history and is_fragment(question) and not (intent.is_listing and lexical_terms(intent.topic))
        ):
            # "does it need retraining?", asked first ("language papers" is a topic)
            draft = _Draft(NO_CONVERSATION if re.search(r"\w", question) else NO_WORDS, "abstained")
        elif intent.is_listing and not (follow and follow.papers):
            draft = self.list_papers(run, intent)
            run.lap("retrieve", mark)
        else:
            if follow is not None and follow.papers:
                before = self.cited_before(follow.papers)
                if not before:  # asked with another -c than the conversation's, or removed since
                    elsewhere = (
                        f"The papers this conversation cited ({', '.join(follow.papers)}) are not in "
                        f"the collection searched now ({self.settings.collection}); ask it with the "
                        "conversation's collection (-c), or as a full question."
                    )
                    follow = replace(follow, refusal=elsewhere)
                run.hits = [h for h in before if follow.about(h.paper)]
                if not run.hits and follow.switched:  # "What about ActHook?": a new subject
                    run.standalone, follow = follow.switched, None
                    run.hits = self.retrieve(run.standalone, run.standalone, k, mode, follow_up=False)
            else:
                run.hits = self.retrieve(question, run.standalone, k, mode, follow_up=bool(history))
            mark = run.lap("retrieve", mark)
            if not run.hits:
                draft = _Draft(self._refusal, "abstained")
            else:
                run.evidence = self.gather_evidence(run)
                mark = run.lap("evidence", mark)
                # A follow-up is answered in its standalone form; a translated question keeps
                # its original wording so that the answer comes back in the user's language.
                asked = run.standalone if history else question
                draft = self.draft(run, asked, on_token)
        if follow is not None and draft.mode != "abstained" and not follow.answered_by(draft.text):
            draft = _Draft(self._refusal, "abstained")  # "and on which benchmark?": no benchmark named
        if follow is not None and draft.mode == "abstained":
            draft.text = follow.refusal  # say what went wrong with the follow-up and how to ask
        if on_token and draft.streamed is None:
            on_token(draft.text)
        run.timings["total"] = time.perf_counter() - run.started
        return self.check_answer(run, draft)

    def named_ids(self, question: str) -> str:
        """``question`` with each paper ID it writes ("000-02", "[rkecl1rtwB]") as the paper's name:
        an ID is no word of an abstract, so evidence would not match it, while its title or label
        is what retrieval and the evidence read. An ID without a name to give it stays as it is."""

        def named(match: re.Match[str]) -> str:
            paper = self.retriever.paper(match.group(1))
            if paper is None:
                return match.group(0)
            name = paper.title or ("" if paper.label.endswith("…") else paper.label)
            # The title is file text: what reaches the question reaches the model too.
            name = without_injections(_UNSHOWN.sub("", " ".join(name.split())))[:200]
            return name or match.group(0)

        return _PAPER_ID.sub(named, question)

    def standalone_question(self, question: str, history: Sequence[Turn] = ()) -> str:
        """Rewrite a follow-up (or a non-English question) into a standalone English query."""
        if not (history or needs_translation(question)) or not self._has_model():
            return question
        turns = history[-3:]
        transcript = "\n".join(f"User: {t.question}\nAssistant: {without_keys(t.answer)}" for t in turns)
        prompt = prompt_text("condense").format(history=transcript or "(none)", question=question)
        rewritten = self.llm.invoke(prompt)
        line = next((ln.strip().strip('"') for ln in rewritten.splitlines() if ln.strip()), "")
        return line if 3 <= len(line) <= 400 else question

    def list_papers(self, run: _AskTrace, intent: Intent) -> _Draft:
        """Every paper on the topic, one cited line each (no LLM: selection is the answer).

        The venue and year a question names ("GNN papers at ICLR 2024") filter the selection,
        unless no indexed paper records them (a seed list has no venue field): then the question
        is answered over every paper and the answer says so.
        """
        topic = topic_of(intent.topic)
        # With a model, one short cached call names the subfield's terms (rag/answer/expansion.py).
        mark = time.perf_counter()
        asked_model = self._has_model() and self.retriever.uses_expansions()  # not over a short list
        terms = subfield_terms(self.llm, topic, self.settings) if asked_model else []
        if terms:
            run.timings["terms"] = time.perf_counter() - mark
        topic, selection, where, note = select_on(
            topic,
            intent.venue,
            intent.year,
            lambda on, venue, year: self.retriever.select_topic(on, venue=venue, year=year, expansions=terms),
            self.retriever,
        )
        if selection is None:
            return _Draft(note, "abstained")
        if intent.recent and not self.settings.year:  # --year says when instead
            selection, said = since_recent(selection)  # "recent work on X" over several years
            note = "; ".join(part for part in (said, note) if part)
        run.found, run.likely = selection.total, selection.likely
        run.hits = selection.hits[: run.shown]
        if not run.hits:
            return _Draft(self._refusal, "abstained")
        run.context = assign_keys(run.hits)
        weights = self.retriever.term_weights(lexical_terms(run.standalone))
        text = listing_answer(
            run.standalone,
            topic,
            run.context,
            self.retriever.embedder,
            weights,
            found=run.found,
            likely=run.likely,
            where=where,
            note=note,
            vectors=selection.vectors,
            each=intent.each,
            tuning=self.settings.answer,
        )
        return _Draft(text, "listing")

    def list_collection(self, run: _AskTrace, intent: Intent) -> _Draft:
        """The papers themselves, for a question on no topic ("list all papers", "Which papers are
        from ICML 2026?"): how many there are (at that venue and year) and the first
        ``listing_max_papers`` (or the caller's limit) by name, in the order of their lists (file,
        then line). No model, no sentence picked: nothing was asked about them."""
        # One person's papers are filtered from all of them: the venue and year still say where
        # to look ("No indexed paper is from ICLR 2024"), whoever wrote what is there.
        author = intent.author
        limit = 10**9 if author else run.shown
        listed, where, note = in_place(
            intent.venue,
            intent.year,
            lambda venue, year: self.retriever.catalogue(venue, year, limit),
            lambda listed: listed[1] > 0,
            self.retriever,
            instead="listed",
        )
        if listed is None:
            return _Draft(note, "abstained")
        run.hits, run.found = listed
        if author:
            mine = [hit for hit in run.hits if hit.paper.is_by(author)]
            if not mine:
                return _Draft(_no_author(author, where, any(h.paper.authors for h in run.hits)), "abstained")
            run.hits, run.found = mine[: run.shown], len(mine)
        if not run.hits:
            return _Draft(self._refusal, "abstained")
        run.context = assign_keys(run.hits)
        return _Draft(catalogue_answer(run.context, run.found, where, note, author), "listing")

    def retrieve(
        self, question: str, standalone: str, k: int | None, mode: str, follow_up: bool
    ) -> list[Hit]:
        """The papers judged relevant to the question, best first (none: abstain, no LLM call)."""
        hits = self.retriever.search(standalone, k=k, mode=mode)
        if standalone != question and not follow_up:
            # A translated question's original wording still matters: coined names and
            # numbers match exactly. A follow-up's fragment ("and in far-OOD?") would only add noise.
            seen = {h.paper.id for h in hits}
            extra = [h for h in self.retriever.search(question, k=k, mode=mode) if h.paper.id not in seen]
            hits = (hits + extra)[: k or self.settings.top_k]
        return hits

    def cited_before(self, paper_ids: Sequence[str]) -> list[Hit]:
        """The papers the previous answer cited, in its order: what a follow-up without a model
        is answered from (a paper no longer indexed is left out)."""
        papers = [self.retriever.paper(pid) for pid in dict.fromkeys(paper_ids)]
        return [Hit(paper=p, score=0.0, text=p.abstract) for p in papers if p is not None]

    def gather_evidence(self, run: _AskTrace) -> list[ev.PaperEvidence]:
        """Each retrieved paper's best sentences for the question, and whether they answer it."""
        weights = self.retriever.term_weights(lexical_terms(run.standalone))
        keyed = assign_keys(run.hits)
        return ev.gather(run.standalone, keyed, self.retriever.embedder, weights, tuning=self.settings.answer)

    def draft(self, run: _AskTrace, asked: str, on_token: OnToken | None) -> _Draft:
        """The model's answer from the evidence, or the quoted evidence when the model has
        nothing better to say; a refusal only when the evidence does not answer."""
        # Untranslated (no model to translate with), a question cannot be matched word by word
        # against English abstracts: retrieval (names, numbers, meaning) has the last word then.
        answers = ev.answers_question(run.evidence) or needs_translation(run.standalone)
        if asks_for_authors(asked) and (by := ev.authors_answer(asked, run.evidence)):
            run.context = {e.key: e.paper for e in run.evidence}  # no model: the list's author field
            return _Draft(by, "extractive")
        if self.llm.model is None:
            run.context = {e.key: e.paper for e in run.evidence}
            if not answers:
                return _Draft(self._refusal, "abstained")
            return _Draft(
                ev.quoted_answer(run.evidence, one_paper=ev.about_one_paper(run.standalone)), "extractive"
            )
        context_text, run.context = ev.render(ev.focus(run.evidence), self._context_budget(asked))
        messages = self._messages(context_text, asked)
        run.prompt_tokens = sum(count_tokens(str(m.content)) for m in messages)
        gate = RefusalGate(on_token) if on_token else None
        mark = time.perf_counter()
        text = self._generate(messages, gate, run)
        run.lap("generate", mark)
        streamed = text if gate is not None and gate.opened else None
        if is_refusal(text):
            return self._fallback(run, asked, answers, None, streamed)
        if not self.settings.verify_answers:  # keys validated only, as the user asked
            return _Draft(
                text, "generated", streamed=streamed, invalid=check_citations(text, run.context).invalid
            )
        # Figures are checked here; whether each sentence is supported, attribution decides.
        papers = list(run.context.values())
        withheld = invented_figures(text, asked, papers) or invented_names(text, papers)
        english = not needs_translation(asked)
        attributed = attribute(text, run.context, english, tuning=self.settings.answer)
        if withheld is None and not attributed.text:
            withheld = "no sentence of the draft is supported by a retrieved paper"
        if withheld is None:
            cited = attributed.cited(run.context)
            withheld = unmet_figures(asked, cited) or unmet_claim(asked, attributed.text, cited)
        # "How does MAIL perform on StarCraft II?" answered from its Tic-Tac-Toe results
        kept = attributed.kept_keys
        if withheld is None and english and (lacking := ev.lacking_names(asked, run.evidence, kept)):
            withheld = f"the cited papers never write {lacking}, which the question names"
        if withheld is None and not ev.names_what_is_asked(attributed.text, asked, run.evidence):
            withheld = "the draft does not name what the question asks for"
        if withheld:
            draft = self._fallback(run, asked, answers, withheld, streamed)
        else:
            text, shown = self._settled(run, asked, attributed, gate, streamed)
            draft = _Draft(text, "generated", streamed=shown)  # revised if it differs
        draft.invalid, draft.attributed = attributed.invalid(run.context), attributed
        return draft

    def check_answer(self, run: _AskTrace, draft: _Draft) -> Answer:
        """Validate the final text's citations and say what the answer rests on."""
        checked = check_citations(draft.text, run.context)
        refused = draft.mode == "abstained" or is_refusal(checked.text)
        attribution = draft.attributed.sentences if draft.attributed else []
        return Answer(
            question=run.question,
            text=self._refusal if refused and not checked.text else checked.text,
            abstained=refused,
            citations=[] if refused else checked.citations,
            retrieved=run.hits,
            model=self._llm.name if self._llm is not None else NO_MODEL_CALL,
            invalid_keys=list(dict.fromkeys(draft.invalid + checked.invalid)),
            grounded=refused or bool(checked.citations),
            standalone_question=run.standalone if run.standalone != run.question else None,
            timings=run.timings,
            withheld=draft.withheld,
            context=run.context,
            mode="abstained" if refused else draft.mode,
            attribution=[s.to_dict() for s in attribution],
            prompt_tokens=run.prompt_tokens,
            found=None if refused else run.found,
            likely=None if refused else run.likely,
            revised=draft.streamed is not None and draft.streamed.strip() != checked.text.strip(),
        )

    # --- helpers -------------------------------------------------------------------------------

    def _fallback(
        self, run: _AskTrace, asked: str, answers: bool, withheld: str | None, streamed: str | None
    ) -> _Draft:
        """Never worse than quoting: the quoted evidence when it answers, else the refusal.

        The model declined or its draft was withheld, so the evidence check alone would decide;
        it matches words, and a near miss shares them ("... that outperforms AlphaFold3" next to
        a sentence on AlphaFold3's death rates). One short yes/no question to the model about
        the quoted sentences themselves settles it.
        """
        shown = [
            e for e in run.evidence if e.key in run.context
        ]  # cite only what the answer is checked against
        if answers and ev.answers_question(shown):
            quoted = ev.quoted_answer(shown, one_paper=ev.about_one_paper(run.standalone))
            if self._confirmed(run, asked, quoted):
                return _Draft(quoted, "quoted", withheld, streamed=streamed)
            withheld = withheld or "the quoted evidence does not answer what the question asks"
        elif (
            withheld is None  # the model declined (a withheld draft is not the case)
            and (kind := asked_for(asked)).kind in ("number", "name", "expansion")  # a figure or name
            and (near := ev.nearly_answering(shown, self.settings.answer.paraphrase_coverage, kind.quantity))
        ):
            # A paraphrased question ("steers a big untuned model at decoding time …, and how much
            # of the gap does it close?" for proxy-tuning) shares few of the abstract's words: a
            # sentence giving what it asks for is quoted only on the model's yes.
            quoted = ev.quoted_answer(near)
            if self._confirmed(run, asked, quoted, strict=True):
                return _Draft(quoted, "quoted", withheld, streamed=streamed)
        return _Draft(self._refusal, "abstained", withheld, streamed=streamed)

    def _settled(
        self,
        run: _AskTrace,
        question: str,
        attributed: Attributed,
        gate: RefusalGate | None,
        streamed: str | None,
    ) -> tuple[str, str | None]:
        """A bare yes or no ("No, X does not need retraining [3]") followed by the sentence of the
        cited paper that settles it, quoted: the reader sees what it rests on (and a polarity the
        model got wrong shows). What was streamed gets the quote streamed after it, so the answer
        is not rewritten on screen. Any other answer, and what was streamed, are returned as they are."""
        text = attributed.text
        if needs_translation(question) or not restates(text, question):  # "The paper writes" is English
            return text, streamed
        quote = ev.settling_quote(run.evidence, attributed.kept_keys)
        if not quote:
            return text, streamed
        if gate is not None and gate.opened and streamed is not None:
            gate(" " + quote)
            streamed = f"{streamed.rstrip()} {quote}"
        return f"{text.rstrip()} {quote}", streamed

    def _confirmed(self, run: _AskTrace, question: str, quoted: str, strict: bool = False) -> bool:
        """The model's yes/no on whether ``quoted`` answers ``question`` (a few dozen tokens out
        of the prompt cache's reach, one token back); a failed call leaves the evidence check's
        decision standing (``strict``: there is none, so only a yes confirms)."""
        prompt = prompt_text("evidence_check").format(question=question, evidence=without_keys(quoted))
        mark = time.perf_counter()
        try:
            said = ev.model_says_yes(self.llm, prompt)
            return said is True if strict else said is not False
        finally:
            run.lap("confirm", mark)

    def _context_budget(self, question: str) -> int:
        fixed = count_tokens(self._system) + count_tokens(question) + 64
        return max(256, self.settings.context_tokens - self.settings.llm_max_tokens - fixed)

    def _messages(self, context: str, question: str) -> list:
        from langchain_core.messages import HumanMessage, SystemMessage

        user = prompt_text("answer_user").format(context=context, question=question)
        return [SystemMessage(self._system), HumanMessage(user)]

    def _generate(self, messages: list, on_token: OnToken | None, run: _AskTrace) -> str:
        """Stream one reply; ``first_token`` is measured from when the user asked. A reply that
        falls into a loop is cut where the loop starts and the request closed, which stops the
        server writing it (the checks then judge what came before)."""

        def arrived(piece: str) -> None:
            run.timings.setdefault("first_token", time.perf_counter() - run.started)
            if on_token:
                on_token(piece)

        return read_reply(self.llm.stream(messages), arrived)
