"""Evidence first: the few sentences of each retrieved paper that bear on the question.

A 1.5B model reads four whole abstracts slowly and gets lost in them; given the best three
sentences of each paper, numbered under the paper's key, it answers sooner and copies the right
figure more often. The same scored sentences are the quoted answer (``--llm none``, and the
fallback when the model refuses what the evidence answers), and :func:`answers_question` decides
whether the evidence answers at all, which is what a refusal must rest on.

Sentences are scored by dense similarity to the question plus the IDF-weighted share of the
question's terms they contain, where a sentence also "contains" its paper's name (label and
title), so "What does AdaSCALE adjust?" matches a sentence that says "our method adjusts".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rag.answer.asked import (
    FIGURE_WORDS,
    asked_for,
    counts_what_is_asked,
    defined_names,
    expansion_in,
    figures_given,
    names_answer,
)
from rag.answer.context import without_injections
from rag.answer.intent import VENUES
from rag.answer.language import needs_translation
from rag.errors import CitelineError
from rag.index.tokens import count_tokens
from rag.resources import prompt_text
from rag.retrieval.relevance import TermWeights, coverage, name_matches, name_terms, paper_terms
from rag.text import (
    QUESTION_GRAMMAR,
    RESEARCH_FILLER,
    acronym_matches,
    asked_figures,
    coined_names,
    has_name,
    is_field_acronym,
    lexical_terms,
    names_written,
    normalized,
    numbers_in,
    plain_text,
    sentence_role,
    split_sentences,
    stems_of,
    unwritten_variants,
    without_bounds,
)

if TYPE_CHECKING:
    from rag.index.embeddings import Embedder
    from rag.llm.client import LLMHandle
    from rag.records import Paper
    from rag.settings import AnswerSettings

# "Which works deal with 3D Gaussian Splatting?": a question for several papers.
_MANY_PAPERS = re.compile(r"\b(?:papers|works|studies|articles)\b", re.I)
_WHICH_PAPER = re.compile(r"^\s*(?:which|what)\s+(?:papers?|works?|study|studies|article)\b", re.I)
# "Our code is available at https://..." answers nothing, though it may contain the method's name.
_BOILERPLATE = re.compile(
    r"https?://|\b(?:code|project page|implementation)\b.{0,40}\b(?:available|released)\b", re.I
)
# A question about a paper's code or page ("Is the code for X available?", "Where is X's project
# page?"): the boilerplate sentence with the link is its answer, and one without a link or the
# code's mention does not answer it.
_CODE = r"\b(?:code|codebase|implementation)\b(?!\s+(?:generation|completion|synthesis|models?|llms?))"
_AVAILABLE = r"\b(?:available|availability|release[sd]?|public(?:ly)?|find|where|link|download|share[sd]?)\b"
_ASKS_FOR_CODE = re.compile(
    rf"\b(?:github|gitlab|repository|repo|project (?:page|website)|open[- ]sourced?)\b"
    rf"|{_CODE}(?=.*{_AVAILABLE})|{_AVAILABLE}(?=.*{_CODE})",
    re.I,
)
_GIVES_CODE = re.compile(r"https?://|\b(?:code|github|repository|open[- ]source)\b", re.I)
# What a question asks of a paper as a whole ("What is the main idea of RedVisor?"): no words a
# sentence must share ("main", "idea"), but the paper's name and what it is about.
_GIST = re.compile(
    r"\b(?:the\s+)?(?:(?:main|key|core|central|basic|big|primary|principal|overall)\s+)"
    r"(?:ideas?|insights?|contributions?|takeaways?|messages?|novelty|claims?|findings?)\b"
    r"|\bgist\b|\btl;?dr\b",
    re.I,
)
# A paper asked about as a whole by its name: "What is SayTap?", "What does ViNT propose?",
# "What does Q-Transformer do?" (not "What is the accuracy of X?": one word after "is").
_WHAT_IT_IS = re.compile(
    r"^\s*what\s+(?:(?:is|are)\s+(?:the\s+)?(?P<name>[^\s?]+)|(?:does|do|did)\s+(?:the\s+)?(?P<name2>[^\s?]+)"
    r"(?:\s+(?:paper|method|model|framework|approach))?\s+(?:propose|introduce|present|contribute|do))\s*\??\s*$",
    re.I,
)


def _asks_what_a_paper_is(question: str, keyed: dict[str, Paper]) -> bool:
    """``question`` asks what a paper is or does, by the name its title or label gives it ("What
    is SayTap?"); "What is RLHF?" asks for a concept, which no paper here is named by."""
    asked = _WHAT_IT_IS.match(question)
    if asked is None:
        return False
    name = (asked.group("name") or asked.group("name2")).casefold()
    return any(name in re.findall(r"[\w\-]+", _own_name(p).casefold()) for p in keyed.values())


@dataclass
class Sentence:
    """One sentence of a paper, with how well it matches the question."""

    key: str
    position: int  # its index in the abstract
    text: str
    score: float
    coverage: float
    names_answer: bool = True  # it names what the question asks for (rag.answer.asked)


@dataclass
class PaperEvidence:
    """A paper's best sentences for a question, in reading order."""

    key: str
    paper: Paper
    sentences: list[Sentence] = field(default_factory=list)
    support: float = 0.0  # best sentence coverage: how fully this paper answers the question
    missing: tuple[str, ...] = ()  # rare terms or numbers of the question the paper lacks
    # Some sentence names what the question asks for (a figure, a name). It ranks sentences and
    # judges a model's draft; it is not a reason to decline (a paper may give the figure in words
    # or the expansion in a form no pattern reads, and quoting it is still better than refusing),
    # except for a model, dataset or benchmark asked for: no sentence naming one cannot answer.
    typed: bool = True
    constraint: float = 1.0  # for "which paper ...": how much of what it asks one sentence says
    # For "Which LLM / dataset ...?": the terms the paper spells out (asked.defined_names), which
    # name no model or dataset it uses.
    defined: frozenset[str] = frozenset()
    # This paper's evidence answers the question (see :func:`answers_question`): set by
    # :func:`gather` from the support, what is missing and the constraint.
    answers: bool = False
    # More of its best sentences (``context_sentences``, reading order), for the prompt when
    # this paper is the best supported (see :func:`render`).
    more: list[Sentence] = field(default_factory=list)
    # It gives what is asked, as far as words tell: a count of the things counted, a figure in a
    # sentence on the amount asked ("MTEB score"), a name where one is asked for.
    gives: bool = True


def gather(
    question: str,
    keyed: dict[str, Paper],
    embedder: Embedder | None,
    weights: TermWeights,
    per_paper: int | None = 3,
    *,
    tuning: AnswerSettings,
) -> list[PaperEvidence]:
    """Score every sentence of the keyed papers for ``question``; keep the best ``per_paper``
    (None: all of them).

    Without an ``embedder`` sentences are scored by their terms alone: a listing's one line per
    paper over a whole subfield must not embed hundreds of sentences (seconds on 2 cores).

    A sentence naming what the question asks for (a figure for "how many", a name for "which")
    scores ``tuning.typed_bonus`` more, so the quoted answer leads with it rather than with a
    restatement. A paper answers when ``tuning.answer_coverage`` of the question's weighted terms
    occur in its best sentences (with the paper's name), no rare name of the question is missing
    from it, nor a figure that sets the question's setting (:func:`rag.text.asked_figures`: not a
    bound, a year or "the two components"), nor the very variant of a model it names; "how many
    <things>" needs a sentence that counts those things; and, for "Which paper proposes a protein
    structure predictor that beats AlphaFold3?", which names a paper by what it does, when one
    sentence (with the title) says ``tuning.constraint_coverage`` of that, weighted by IDF,
    without research filler and names: sharing the name AlphaFold3 is not enough.
    """
    # "by more than 50%" is not to be shared, nor "the main idea" (of the paper asked about)
    terms = lexical_terms(without_bounds(_GIST.sub(" ", question)))
    # "Does X have to retrain?", "so that one can pick": the words a question is built with are
    # no content a sentence must share to answer it.
    grammar = stems_of(QUESTION_GRAMMAR)
    terms = [t for t in terms if t not in grammar] or terms
    code = bool(_ASKS_FOR_CODE.search(question))
    gist = bool(_GIST.search(question)) or _asks_what_a_paper_is(question, keyed)
    rows: list[tuple[str, int, str]] = []
    for key, paper in keyed.items():
        sentences = split_sentences(paper.abstract)
        content = [s for s in sentences if code or not _BOILERPLATE.search(s)] or sentences
        rows += [(key, n, s) for n, s in enumerate(sentences) if s in content]
    if not rows:
        return []
    if embedder is None:
        vectors: list[list[float]] = [[0.0]] * (len(rows) + 1)
    else:
        vectors = embedder.embed_documents([plain_text(s) for _, _, s in rows] + [question])
    query = vectors[-1]
    by_key: dict[str, list[Sentence]] = {key: [] for key in keyed}
    # A sentence also "contains" its paper's identity: title, label, and any rare name of the
    # question found anywhere in the paper ("what does Adalina minimize?" → "our algorithm ..."),
    # and the words the paper writes in their other form ("SGD", "stochastic gradient descent").
    coined = coined_names(question)
    whole = {key: f"{p.title} {p.label} {p.abstract}" for key, p in keyed.items()}
    spelled = {key: acronym_matches(question, text) for key, text in whole.items()}
    # A coined acronym a retrieved paper writes as its name ("DLA") is that paper's: another
    # paper's words that happen to spell it ("a scalable dictionary learning algorithm") name
    # something else. (A field's acronyms, "SGD" for "stochastic gradient descent", still match.)
    for acronym in coined:
        if acronym.isupper() and not is_field_acronym(acronym):
            owners = {key for key, text in whole.items() if has_name(text, acronym)}
            if owners:
                term = set(lexical_terms(acronym))
                spelled = {key: found if key in owners else found - term for key, found in spelled.items()}
    names = {
        key: set(lexical_terms(f"{p.title} {p.label}"))
        | set(name_matches(question, terms, whole[key], weights))
        | {t for n in coined if has_name(whole[key], n) for t in lexical_terms(n)}
        | spelled[key]
        for key, p in keyed.items()
    }
    constraint = None
    if _WHICH_PAPER.search(question):
        # What the paper does, not what it is named after: filler and names left out.
        named = weights.rare | {t for n in coined for t in lexical_terms(n)}
        filler = stems_of(RESEARCH_FILLER)
        constraint = [t for t in terms if t not in filler and t not in named] or None
    asked = asked_for(question)
    asked_names = coined | {n.rstrip("s") for n in coined}
    held = [set(lexical_terms(text)) | names[key] for key, _, text in rows]
    # A model, dataset or benchmark asked for is not the paper's own defined terms ("3DGS").
    defined = {
        key: defined_names(p.abstract) if asked.kind == "name" else frozenset() for key, p in keyed.items()
    }
    pointing = _pointing_weights(terms, held, weights)
    for (key, n, text), vector, present in zip(rows, vectors, held, strict=False):
        cov = coverage(terms, present, weights)
        similarity = tuning.sentence_similarity * sum(a * b for a, b in zip(vector, query, strict=True))
        typed = names_answer(text, question, asked, defined[key])
        pointed = coverage(terms, present, pointing)
        spells = asked.kind == "expansion" and typed and expansion_in(text, asked.acronym) is not None
        if spells:
            cov = pointed = 1.0  # the sentence that spells the acronym out is the whole answer
        if asked.kind == "entity":  # any new word "names" something; a new name does for sure
            bonus = tuning.typed_bonus if coined_names(text) - asked_names else 0.0
        else:
            bonus = tuning.typed_bonus if typed and asked.kind != "open" else 0.0
        if spells and asked.described:  # "What's PPRL?": any sentence describing it is typed too
            bonus += tuning.typed_bonus
        if typed and asked.noun and asked.noun in present:  # "... the SAEBench benchmark"
            bonus += tuning.typed_bonus / 2
        if gist and (sentence_role(text) == 0 or _GIST.search(text)):  # "we propose", "our key insight"
            bonus += tuning.typed_bonus
        by_key[key].append(Sentence(key, n, text, similarity + pointed + bonus, cov, typed))
    out = []
    asked_numbers = asked_figures(question)
    # Bare numbers are asked through asked_figures, which knows a bound ("more than 50%") from a setting.
    names_asked = {t for t in name_terms(question) if not t.replace(".", "").isdigit()}
    for key, paper in keyed.items():
        ranked = sorted(by_key[key], key=lambda s: -s.score)
        # Names as written, too: the paper's "$C^3$" is the question's "C3" (or "C³").
        present = paper_terms(paper) | spelled[key] | set(lexical_terms(" ".join(names_written(whole[key]))))
        # Only names count as missing: in a small collection ordinary words are rare too.
        specific = (weights.rare | weights.absent) & names_asked
        missing = sorted(t for t in specific if t in terms and t not in present)
        missing += sorted(asked_numbers - numbers_in(plain_text(paper.abstract), spelled=True))
        missing += unwritten_variants(question, f"{paper.title} {paper.abstract}")  # DINOv2-L: S, B only
        # What the quoted answer would say: its two best sentences, with the paper's identity.
        support = coverage(
            terms, names[key].union(*(set(lexical_terms(s.text)) for s in ranked[:2])), weights
        )
        support = max([support, *(s.coverage for s in ranked[:2])])  # a spelled-out acronym: 1
        # Asked what the paper is or does, the background its abstract opens with is no answer.
        told = [s for s in ranked if sentence_role(s.text) < 2] if gist else []
        best = sorted((told or ranked)[:per_paper], key=lambda s: s.position)
        typed = any(s.names_answer for s in ranked)
        met = 1.0
        if constraint is not None:
            title = set(lexical_terms(f"{paper.title} {paper.label}"))
            met = max(
                (coverage(constraint, title | set(lexical_terms(s.text)), weights) for s in ranked),
                default=0.0,
            )
        # "How many participants ...?" is not answered by a paper that counts only other things.
        counts = any(counts_what_is_asked(s.text, asked) for s in ranked)
        # "Which dataset ...?" is answered only by a name (asked.new_names), and "How many times
        # faster ...?" or "What success rate ...?" only by a paper giving some figure ("3.5
        # times", "94.3%", "twice", "tenfold", "an order of magnitude"): sentences on the
        # speed-up with no figure in them do not say how much, nor "three findings" what rate.
        # Other number questions ("How much memory does it save?") may be answered in words
        # ("halves it", "linear in n"), and an expansion in a form no pattern reads: quoting such
        # a sentence is still better than refusing.
        named = typed or asked.kind != "name"
        if (asked.many or asked.measured) and not typed:
            named = any(FIGURE_WORDS.search(s.text) for s in ranked)
        if code:
            named = named and any(_GIVES_CODE.search(s.text) for s in ranked)
        if asked.quantity and not present.intersection(asked.quantity):  # no "batch": no batch size
            named = False
        if asked.measured:  # "What average MTEB score …?": a figure in a sentence on MTEB
            named = named and _on_amount(ranked, asked.quantity)
        gives = counts and named
        answers = (
            support >= tuning.answer_coverage and not missing and met >= tuning.constraint_coverage and gives
        )
        missed = tuple(missing)
        more = sorted(ranked[: max(per_paper or 0, tuning.context_sentences)], key=lambda s: s.position)
        out.append(
            PaperEvidence(key, paper, best, support, missed, typed, met, defined[key], answers, more, gives)
        )
    return out


def _pointing_weights(terms: list[str], held: list[set[str]], weights: TermWeights) -> TermWeights:
    """The question's term weights scaled by how few of the evidence sentences hold each term:
    from 1 (one sentence) down to log 2 / log (1 + n) (all n of them).

    A question often describes its paper before asking ("In the rubric-based reward framework
    for multimodal LLMs, what technique cuts compute?"). The describing words are in many
    sentences, or in the paper's name, which every sentence of it holds; the words of what is
    asked are in the one or two sentences that answer. Ranking by the words that point to few
    sentences puts the answering sentence first instead of the introduction. The sentences of
    all retrieved papers are counted together, so that scores stay comparable across papers.
    """
    full = math.log(1 + len(held))
    scaled = {}
    for term in terms:
        count = sum(term in h for h in held)
        share = math.log(1 + len(held) / count) / full if count else 1.0
        scaled[term] = weights.weights.get(term, 1.0) * share
    return replace(weights, weights=scaled)


def names_what_is_asked(text: str, question: str, evidence: list[PaperEvidence]) -> bool:
    """Does a reply name what ``question`` asks for, as the evidence gives it? A restatement of
    the question does not; an acronym's expansion must be one the papers spell out ("DLMs stands
    for Deep Learning Models" is not, when the paper says "diffusion language models (DLMs)"); and
    "how many <things>" is answered by a figure a paper gives in a sentence counting those things
    ("5 clients" is not, from a paper whose only 5 is "five datasets")."""
    asked = asked_for(question)
    if asked.kind == "number" and asked.counted and not needs_translation(question):
        given = figures_given(text, question)
        sentences = (s for e in evidence for s in split_sentences(e.paper.abstract))
        counting = (s for s in sentences if counts_what_is_asked(s, asked))
        return bool(given) and any(given & figures_given(s, question) for s in counting)
    if asked.kind == "expansion" and not needs_translation(question):
        given = {
            normalized(found)
            for e in evidence
            for s in split_sentences(e.paper.abstract)
            if (found := expansion_in(s, asked.acronym))
        }
        if given:
            return any(g in normalized(text) for g in given)
    if asked.kind == "name":  # "GaussTrace uses 3D Gaussian Splatting" names no LLM
        # Defined by a paper, and written by none without defining it (one paper's "SAM" may be
        # another's model by name).
        defined = frozenset().union(*(e.defined for e in evidence))
        undefined = frozenset().union(*(coined_names(e.paper.abstract) - e.defined for e in evidence))
        return needs_translation(question) or names_answer(text, question, asked, defined - undefined)
    return needs_translation(question) or names_answer(text, question, asked)


def nearly_answering(
    evidence: list[PaperEvidence], floor: float, quantity: tuple[str, ...] = ()
) -> list[PaperEvidence]:
    """The best-supported paper that may answer a paraphrased question though its words fall short
    of :func:`answers_question`: ``floor`` of the question's weighted terms (and of what a "which
    paper" question asks), nothing rare or numeric missing, and a sentence naming what is asked,
    on the amount asked (``quantity``: "What learning rate …?" is not given by a sentence on
    FPR@95). Only a model's yes can make it an answer ([] when there is none)."""

    near = [
        e for e in evidence
        if e.typed and e.gives and not e.missing and e.support >= floor and e.constraint >= floor
        and _on_amount(e.more or e.sentences, quantity)
    ]  # fmt: skip
    return [max(near, key=lambda e: e.support)] if near else []


def _on_amount(sentences: list[Sentence], quantity: tuple[str, ...]) -> bool:
    """Some sentence names what is asked and writes the amount asked about ("MTEB" of "What MTEB
    score …?"), not "4 popular LLMs" elsewhere in the abstract; true when no amount is named."""
    return not quantity or any(
        s.names_answer and set(lexical_terms(s.text)) & set(quantity) for s in sentences
    )


def answers_question(evidence: list[PaperEvidence]) -> bool:
    """Some paper's evidence answers the question: a refusal is right only when none does."""
    return any(e.answers for e in evidence)


def focus(evidence: list[PaperEvidence], share: float = 0.5) -> list[PaperEvidence]:
    """The papers worth the model's time: those at least ``share`` as well supported as the best.

    Every paper in the prompt costs prefill time on a CPU and is one more place for a small model
    to get lost; a paper that shares little with the question next to one that answers it is noise.
    """
    best = max((e.support for e in evidence), default=0.0)
    return [e for e in evidence if e.support >= best * share] or evidence


def render(evidence: list[PaperEvidence], budget_tokens: int) -> tuple[str, dict[str, Paper]]:
    """The numbered evidence block for the prompt, and the keys that fit in ``budget_tokens``.

    The best-supported paper is given with more of its sentences (:attr:`PaperEvidence.more`):
    the one most likely to hold the answer often holds it in a sentence sharing few of the
    question's words ("What kind of content does the reduced-vocabulary watermark target?" is
    answered by "… robust watermarking of synthetic audio"), and a small model that is not shown
    the fact names whatever the sentences it was shown suggest ("multimedia")."""
    template = prompt_text("context_entry")
    blocks: list[str] = []
    used: dict[str, Paper] = {}
    total = 0
    first = max(evidence, key=lambda e: e.support, default=None)
    for item in evidence:
        sentences = item.more if item is first and item.more else item.sentences
        lines = "\n".join(
            f"{n}. {plain_text(without_injections(s.text))}" for n, s in enumerate(sentences, start=1)
        )
        block = template.format(key=item.key, label=item.paper.display, text=lines).strip()
        cost = count_tokens(block) + 2
        if blocks and total + cost > budget_tokens:
            break
        blocks.append(block)
        used[item.key] = item.paper
        total += cost
    return "\n\n".join(blocks) + "\n", used


# A sentence that opens with a pronoun ("It is trained on ...") reads only after the one naming
# what "it" is: it is not moved before it.
_PRONOUN_LED = re.compile(r"\s*(?:it|its|they|their|this|these|those|such|he|she)\b", re.I)


def quoted_answer(evidence: list[PaperEvidence], max_sentences: int = 2, one_paper: bool = True) -> str:
    """The best-scoring sentences, verbatim, each followed by its paper's key.

    With ``one_paper``, the best sentences of the best-supported answering paper only (the first
    retrieved of equals): a question about one paper ("What does SAE stand for in the feature
    death paper?") is not answered half from a neighbour that writes the same words. Without it
    (a question for several papers, or not in English, whose support counts untranslated words),
    the best sentences of all answering papers (see :func:`about_one_paper`). Within a paper, a
    sentence naming what the question asks for comes first, then reading order. Grounded by
    construction: it says nothing the papers do not.
    """
    answering = [e for e in evidence if e.answers] or evidence
    if one_paper and answering:
        answering = [max(answering, key=lambda e: e.support)]
    pool = [s for e in answering for s in e.sentences]
    chosen = sorted(pool, key=lambda s: -s.score)[:max_sentences]
    order = {e.key: n for n, e in enumerate(evidence)}
    # The sentence naming what is asked ("... 3K videos from 9 generators") before one that only
    # sets the scene ("The growing capability of video generation ..."); else reading order.
    chosen.sort(
        key=lambda s: (order[s.key], not (s.names_answer and not _PRONOUN_LED.match(s.text)), s.position)
    )
    return " ".join(cite(s.text, s.key) for s in chosen)


def settling_quote(evidence: list[PaperEvidence], keys: list[str]) -> str:
    """The best sentences for the question of the first paper in ``keys`` (an answer's cited
    keys, in order), quoted with its key: what a bare yes or no rests on (see
    :func:`rag.answer.asked.restates`); "" when none of those papers has a sentence. The best
    two, in reading order, when the second scores at least three quarters of the first: the best often names
    the paper's subject ("we introduce ProtoSAC, … a prototype-based actor"), the next the
    predicate asked about ("it matches the performance of the original SAC")."""
    for key in keys:
        paper = next((e for e in evidence if e.key == key and e.sentences), None)
        if paper is None:
            continue
        ranked = sorted(paper.sentences, key=lambda s: (-s.score, s.position))
        best = ranked[0].score
        chosen = ranked[:1] + [s for s in ranked[1:2] if best > 0 and s.score >= 0.75 * best]
        quotes = " and ".join(
            f"“{s.text.rstrip().rstrip('.').rstrip()}”" for s in sorted(chosen, key=lambda s: s.position)
        )
        return f"The paper writes: {quotes} [{key}]."
    return ""


def lacking_names(question: str, evidence: list[PaperEvidence], keys: list[str]) -> str:
    """A rare name ``question`` writes that no paper cited (``keys``) writes, as the question
    writes it ("StarCraft" for "How does MAIL perform on StarCraft II?"), or "": a draft citing
    only such papers answers about something nearby. A venue or an author named is metadata, not
    abstract text; figures and a model's variant are judged elsewhere (grounding)."""
    cited = [e for e in evidence if e.key in keys]
    if not cited:
        return ""
    meta = {v.casefold() for v in VENUES} | {
        t for e in cited for t in lexical_terms(" ".join(e.paper.authors))
    }  # "in the ICML 2026 paper", "the Smith et al. paper"
    names = [{m for m in e.missing if m.isalpha() and m not in meta} for e in cited]  # "70b": a figure
    common = set.intersection(*names)
    if not common:
        return ""
    stem = sorted(common)[0]
    written = next((w for w in re.findall(r"[\w'’-]+", question) if stem in lexical_terms(w)), stem)
    return f"“{written}”"


def authors_answer(question: str, evidence: list[PaperEvidence]) -> str:
    """Who wrote the paper the question names, from the list's author field: "“AdaSCALE” is by
    A, B and C [k]." (the first six and a count when there are more). The paper is one whose
    title or label holds a name the question writes ("Who wrote AdaSCALE?"), or, for a question
    naming none ("Who wrote the paper on feature death?"), one whose evidence answers it; ""
    when there is none. A list without authors says so, cited, rather than quoting an abstract
    that never names its authors."""
    names = {n.casefold() for n in coined_names(question)}
    if names:
        named = [e for e in evidence if names & {n.casefold() for n in coined_names(_own_name(e.paper))}]
    else:
        named = [e for e in evidence if e.answers]
    if not named:
        return ""
    item = max(named, key=lambda e: e.support)
    authors = list(item.paper.authors)
    if not authors:
        return f"The paper list records no authors for “{item.paper.display}” [{item.key}]."
    shown = authors[:6]
    names = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else shown[0]
    if len(authors) > len(shown):
        names = f"{', '.join(shown)} and {len(authors) - len(shown)} more"
    return f"“{item.paper.display}” is by {names} [{item.key}]."


def _own_name(paper: Paper) -> str:
    """What a paper is called: its title and label."""
    return f"{paper.title} {paper.label}"


def about_one_paper(question: str) -> bool:
    """``question`` asks about one paper, as far as its words tell: it is in English (translated,
    or as asked; untranslated, its support counts words the papers cannot share) and does not ask
    for papers or works in the plural."""
    return not needs_translation(question) and not _MANY_PAPERS.search(question)


def cite(sentence: str, key: str) -> str:
    """Put the key inside the sentence, before its final stop, as the answer prompt asks too."""
    body = sentence.rstrip()
    stop = body[-1] if body[-1:] in ".!?" else "."
    return f"{body.rstrip('.!?').rstrip()} [{key}]{stop}"


def model_says_yes(llm: LLMHandle, prompt: str) -> bool | None:
    """The model's one-word yes/no to ``prompt`` (a reply of a few tokens at most: every one costs
    ~85 ms on 2 cores), or None when the call fails or the reply is neither ("Perhaps"), so the
    caller's own decision stands. Used wherever a lexical decision is close enough to need a
    second opinion: the answer path's check of quoted evidence and ``citeline check``'s
    borderline claims."""
    try:
        reply = normalized(llm.invoke(prompt, max_tokens=3))
    except CitelineError:
        return None
    return True if reply.startswith("yes") else False if reply.startswith("no") else None
