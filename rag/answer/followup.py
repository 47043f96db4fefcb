"""Follow-ups without a model: resolve "and on which benchmark?" against the conversation, or refuse.

With a model, a follow-up is rewritten into a standalone question (the ``condense`` prompt).
Without one, the fragment alone would retrieve whatever papers mention "benchmark" and answer
about something else. So a follow-up that leans on the conversation (it starts with "and",
"what about", ..., refers back with "it", "they", "this method", ..., or has at most two words of
its own) is resolved by rule: it is asked together with the last question that stood on its own,
and only about the papers the previous answer cited. If those papers do not answer it, the answer
is a refusal that says how to ask instead, never an answer about other papers; so is a follow-up
whose own words ("what about watermarking?") none of those papers mentions. Asked first, with no
conversation, such a continuation naming only a topic asks about the topic (:func:`topic_alone`);
any other fragment is refused with how to ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.records import Paper, Turn
from rag.retrieval.relevance import name_terms
from rag.text import lexical_terms, stem_terms

# Openings that continue the previous question rather than start a new one.
_CONTINUES = re.compile(
    r"^\s*(?:and|also|but|or|so|then|what about|how about|what else|same for|what of)\b", re.I
)
# Words that point back at what the conversation named (not a bare "that"/"this": "papers that
# show ..." starts a new question as often as not).
_REFERS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|the same|(?:this|that|these|those|the) (?:method|approach|paper|model"
    r"|framework|algorithm|technique|work|authors|study|system|result|results|one|ones)s?)\b",
    re.I,
)
# What one asks *about* a paper already named: a question made only of these (and question words)
# names no topic ("how many architectures?", "which benchmark?").
_ATTRIBUTES = frozenset(
    stem_terms(
        "benchmark benchmarks dataset datasets architecture architectures metric metrics baseline baselines"
        " result results score scores accuracy gain gains improvement improvements margin task tasks setting"
        " settings experiment experiments evaluation evaluated evaluate limitation limitations author authors"
        " code year venue number size parameters speed cost backbone domain domains language languages"
        " modality compare compared comparison beat beats outperform outperforms better worse many much"
        " exactly precisely percent percentage value values figure numbers use uses used",
        stopwords=frozenset(),
    )
)
# A continuation ("and ...", "what about ...") with at most this many topic words of its own is a
# follow-up; one with more asks something new.
_FRAGMENT_WORDS = 2


# "and on which benchmark?": the kind of thing the follow-up asks for, and the words a sentence
# naming one uses ("evaluated on the MMLU benchmark", "three datasets"). A quote of the earlier
# answer that names none of them does not answer it.
_WHICH = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?P<kind>[a-z]+)\b", re.I)
_KINDS = {
    **dict.fromkeys(("benchmark", "dataset", "corpus", "testbed"), "benchmark dataset corpus testbed"),
    **dict.fromkeys(("metric", "measure"), "metric accuracy score"),
    **dict.fromkeys(("baseline",), "baseline outperform"),
    **dict.fromkeys(("architecture", "backbone"), "architecture backbone transformer"),
}


@dataclass(frozen=True)
class FollowUp:
    """A follow-up resolved without a model: what to ask, and about which papers only."""

    standalone: str  # the earlier question with the follow-up, for retrieval, evidence and the log
    papers: tuple[str, ...]  # ids of the papers the previous answer cited (empty: retrieve as usual)
    refusal: str  # what to say when those papers do not answer it
    own_terms: tuple[str, ...] = ()  # the follow-up's topic words the earlier question lacks ("watermark")
    kind_words: tuple[str, ...] = ()  # stems naming what "which benchmark?" asks for (see _KINDS)

    def answered_by(self, text: str) -> bool:
        """Whether ``text`` names the kind of thing the follow-up asks for (true when it asks for
        no kind in particular): "and on which benchmark?" is not answered by the earlier quote on
        what the framework exploits, nor by one that mentions "training data"."""
        if not self.kind_words:
            return True
        written = lexical_terms(text)  # a word of the text that starts like a kind word: not "data"
        return any(w.startswith(word) for word in self.kind_words for w in written)

    def about(self, paper: Paper) -> bool:
        """Whether ``paper`` mentions every word the follow-up adds: "what about watermarking?"
        after a question on OOD detection is not answered from the OOD paper."""
        present = set(lexical_terms(f"{paper.title} {paper.label} {paper.abstract}"))
        return all(term in present for term in self.own_terms)


def _topical(question: str) -> list[str]:
    """The words of ``question`` that name a topic, not what one asks about a paper."""
    return [t for t in lexical_terms(question) if t not in _ATTRIBUTES]


def leans_on_conversation(question: str) -> bool:
    """Whether ``question`` needs the conversation to be understood (see the module docstring)."""
    topical = _topical(question)
    if _REFERS_BACK.search(question) or not topical:
        return True
    return bool(_CONTINUES.search(question)) and len(topical) <= _FRAGMENT_WORDS


def is_fragment(question: str) -> bool:
    """Whether ``question`` cannot stand alone: it names no topic ("and on which benchmark?"),
    or points back or continues with at most ``_FRAGMENT_WORDS`` words of its own ("does it
    need retraining?"). Without a conversation it has no subject to be answered about. A full
    question that also says "it" is not one: it has words enough ("Does it help to prune LLMs
    for speed?") or names what "it" is before it ("What is AdaSCALE and what does it beat?",
    "So what is OPUS?"); "Does it work with GPT-4?" names something, but not what "it" is."""
    topical = _topical(question)
    back = _REFERS_BACK.search(question)
    if name_terms(question[: back.start()] if back else question):
        return False
    leans = back or _CONTINUES.search(question)
    return not topical or (bool(leans) and len(topical) <= _FRAGMENT_WORDS)


# The words of a question that asks something rather than names a topic.
_ASKING = frozenset(
    "which what how why when where who whom whose do does did is are was were can could should would"
    " will has have had".split()
)


def topic_alone(question: str) -> str:
    """The topic of a continuation that names only a topic ("what about watermarking?", "And
    fairness?", "how about diffusion models?"): asked first, with no conversation to continue,
    it asks about the topic, so it is answered as "Which papers are about it?" would be. "" for
    anything else: a question ("and on which benchmark?"), a pointer back ("what about its
    limits?"), or a continuation with no topic words."""
    opening = _CONTINUES.match(question)
    if not opening or _REFERS_BACK.search(question):
        return ""
    rest = question[opening.end() :].strip(" ,;:?.!")
    words = {w.lower() for w in re.findall(r"[\w'’-]+", rest)}
    if not rest or words & _ASKING or not _topical(rest):
        return ""
    return rest


# Said for a fragment asked with no conversation to read it with.
NO_CONVERSATION = (
    "This question leans on an earlier one, and there is none to read it with; ask it as a full "
    "question, naming the paper or topic."
)


def resolve(question: str, history: Sequence[Turn]) -> FollowUp | None:
    """``question`` joined to the conversation when it leans on it; None when it stands alone."""
    if not history or not leans_on_conversation(question):
        return None
    anchor = next(
        (t.question for t in reversed(history) if not leans_on_conversation(t.question)), history[0].question
    )
    papers = history[-1].papers
    cited = ", ".join(papers)
    refusal = (
        f"The papers cited before ({cited}) do not answer this follow-up"
        if papers
        else "This follow-up cannot be resolved against the conversation"
    ) + " (without a model it is read with the earlier question); ask it as a full question."
    asked_before = set(lexical_terms(anchor)) | _ATTRIBUTES
    own = tuple(t for t in lexical_terms(question) if t not in asked_before)
    which = _WHICH.search(question)
    kind = _KINDS.get(which.group("kind").lower().removesuffix("s")) if which else None
    kinds = tuple(stem_terms(kind, stopwords=frozenset())) if kind else ()
    return FollowUp(f"{anchor.rstrip()} {question.strip()}", papers, refusal, own, kinds)
