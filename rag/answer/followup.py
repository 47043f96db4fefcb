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
from rag.text import AUXILIARIES, MODALS, coined_names, lexical_terms, stem_terms

# Openings that continue the previous question rather than start a new one.
_CONTINUES = re.compile(
    r"^\s*(?:and|also|but|or|so|then|what about|how about|what else|same for|what of)\b", re.I
)
# Words that point back at what the conversation named (not a bare "that"/"this": "papers that
# show ..." starts a new question as often as not).
# "the authors of AdaSCALE" names what it is about: no pointer back.
_REFERS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|the same|(?:this|that|these|those|the) (?:method|approach|paper|model"
    r"|framework|algorithm|technique|work|authors|study|system|result|results|one|ones)s?"
    r"(?!\s+(?:of|behind|from|in)\s+(?!it\b|them\b|this\b|that\b)))\b",
    re.I,
)
# "the second one", "the first paper": one paper of a list the conversation gave, by its place.
# Not "the first paper to propose X" or "the last method that …": a question of its own.
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_NTH = re.compile(
    rf"\b(?:the\s+)?(?P<nth>{'|'.join(_ORDINALS)}|last|1st|2nd|3rd|[4-9]th|10th)"
    r"\s+(?:one|paper|work|method|approach|study|article|entry)\b"
    r"(?!\s+(?:to|that|which|who|ever|in|on|of|for|with)\b)",
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
    switched: str = ""  # the question asked of a new subject it names ("What about ActHook?"), if any
    # A question pointing back ("What AUC does it reach?") asks in words of its own ("reach"):
    # half of them are enough; a continuation's words ("what about watermarking?") all count.
    own_share: float = 1.0
    # "the third one" after a listing of two: nothing to ask about (``refusal`` says so).
    unlisted: bool = False

    def answered_by(self, text: str) -> bool:
        """Whether ``text`` names the kind of thing the follow-up asks for (true when it asks for
        no kind in particular): "and on which benchmark?" is not answered by the earlier quote on
        what the framework exploits, nor by one that mentions "training data"."""
        if not self.kind_words:
            return True
        written = lexical_terms(text)  # a word of the text that starts like a kind word: not "data"
        return any(w.startswith(word) for word in self.kind_words for w in written)

    def about(self, paper: Paper) -> bool:
        """Whether ``paper`` mentions the words the follow-up adds (``own_share`` of them): "what
        about watermarking?" or "Does it also work for watermarking?" after a question on OOD
        detection is not answered from the OOD paper."""
        present = set(lexical_terms(f"{paper.title} {paper.label} {paper.abstract}"))
        held = sum(term in present for term in self.own_terms)
        return held >= self.own_share * len(self.own_terms)


def _topical(question: str) -> list[str]:
    """The words of ``question`` that name a topic, not what one asks about a paper."""
    return [t for t in lexical_terms(question) if t not in _ATTRIBUTES]


def leans_on_conversation(question: str) -> bool:
    """Whether ``question`` needs the conversation to be understood (see the module docstring)."""
    topical = _topical(question)
    if _REFERS_BACK.search(question) or _NTH.search(question) or not topical:
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
    back = _REFERS_BACK.search(question) or _NTH.search(question)
    if name_terms(question[: back.start()] if back else question):
        return False
    leans = back or _CONTINUES.search(question)
    return not topical or (bool(leans) and len(topical) <= _FRAGMENT_WORDS)


# The words of a question that asks something rather than names a topic.
_ASKING = AUXILIARIES | MODALS | frozenset("which what how why when where who whom whose".split())


def topic_alone(question: str) -> str:
    """The topic of a continuation that names only a topic ("what about watermarking?", "And
    fairness?", "how about diffusion models?"): asked first, with no conversation to continue,
    it asks about the topic, so it is answered as "Which papers are about it?" would be. "" for
    anything else: a question ("and on which benchmark?"), a pointer back ("what about its
    limits?"), or a continuation with no topic words."""
    rest = _continued(question)
    words = {w.lower() for w in re.findall(r"[\w'’-]+", rest)}
    if not rest or words & _ASKING or not _topical(rest):
        return ""
    return rest


# Said for a question with no word in it at all ("🔥🔥🔥?"), conversation or not.
NO_WORDS = "The question has no words to look for; ask it in words, naming the paper or topic."


# Said for a fragment asked with no conversation to read it with.
NO_CONVERSATION = (
    "This question leans on an earlier one, and there is none to read it with; ask it as a full "
    "question, naming the paper or topic."
)


def _nth(match: re.Match[str], count: int) -> int:
    """The index an ordinal ("second", "2nd", "last") names in a list of ``count``."""
    word = match.group("nth").lower()
    if word == "last":
        return count - 1
    digits = re.match(r"\d+", word)
    return (int(digits.group(0)) if digits else _ORDINALS.index(word) + 1) - 1


def resolve(question: str, history: Sequence[Turn]) -> FollowUp | None:
    """``question`` joined to the conversation when it leans on it; None when it stands alone.

    "the second one" is the second paper of the latest answer that cited several (a listing),
    asked about as "it". A continuation naming something new ("What about ActHook?" after "What
    is AdaSCALE?") carries the question it asks of the new subject (:attr:`FollowUp.switched`),
    asked as a question of its own when the papers cited before do not mention it."""
    if not history or not leans_on_conversation(question):
        return None
    anchor = next(
        (t.question for t in reversed(history) if not leans_on_conversation(t.question)), history[0].question
    )
    papers = history[-1].papers
    unlisted = ""
    if nth := _NTH.search(question):
        listed = next((t.papers for t in reversed(history) if len(t.papers) > 1), papers)
        at = _nth(nth, len(listed))
        papers = (listed[at],) if 0 <= at < len(listed) else ()
        if not papers:
            count = f"{len(listed)} paper{'s' if len(listed) != 1 else ''}" if listed else "no papers"
            unlisted = (
                f"The latest list named {count}, so there is no {nth.group('nth').lower()} one; "
                "name the paper, or ask it as a full question."
            )
        question = f"{question[: nth.start()]}it{question[nth.end() :]}"
    cited = ", ".join(papers)
    refusal = (
        unlisted
        or (
            f"The papers cited before ({cited}) do not answer this follow-up"
            if papers
            else "This follow-up cannot be resolved against the conversation"
        )
        + " (without a model it is read with the earlier question); ask it as a full question."
    )
    asked_before = set(lexical_terms(anchor)) | _ATTRIBUTES
    own = tuple(t for t in lexical_terms(question) if t not in asked_before)
    share = 0.5 if _REFERS_BACK.search(question) else 1.0
    which = _WHICH.search(question)
    kind = _KINDS.get(which.group("kind").lower().removesuffix("s")) if which else None
    kinds = tuple(stem_terms(kind, stopwords=frozenset())) if kind else ()
    standalone = f"{anchor.rstrip()} {question.strip()}"
    switched = _switched(anchor, question)
    return FollowUp(standalone, papers, refusal, own, kinds, switched, share, bool(unlisted))


def _continued(question: str) -> str:
    """What a continuation adds after its opening ("what about" + "ActHook"), or "" when
    ``question`` is no continuation or points back ("what about its limits?")."""
    opening = _CONTINUES.match(question)
    if not opening or _REFERS_BACK.search(question) or _NTH.search(question):
        return ""
    return question[opening.end() :].strip(" ,;:?.!")


def _switched(anchor: str, question: str) -> str:
    """The anchor's question asked of the name a continuation gives instead ("What is AdaSCALE?"
    + "What about ActHook?" → "What is ActHook?"), or the names alone when the anchor has no one
    name to swap; "" unless the continuation is only new names ("And on ImageNet?" narrows the
    question, it does not change its subject)."""
    rest = _continued(question)
    new = sorted(coined_names(rest) - coined_names(anchor))
    words = [w for w in re.findall(r"[^\s,]+", rest) if w.lower() not in ("the", "and", "or")]
    if not new or not all(w in new for w in words):
        return ""
    before = sorted(coined_names(anchor))
    if len(before) == 1:
        return anchor.replace(before[0], " and ".join(new))
    return " and ".join(new)
