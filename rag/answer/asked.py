"""What a question asks for, and whether a text names it.

"Which models' embeddings were disentangled with Double-Batch KSVD?" asks for models: an answer
that says "The models' embeddings were disentangled with Double-Batch KSVD" restates the question
and names none. Whether a reply answers is therefore judged on what it adds to the question:

- an **expansion** ("What does TraCeS stand for?", "What are GRMs?") is answered by words whose
  initials spell the acronym ("Trajectory-based Constraint Estimation for Safety");
- a **number** ("How many ...", "What accuracy ...") by a figure the question does not give;
- a **name** ("Which base model was trained?", "On which dataset was X tested?") by a name the
  question lacks (Llama-8B, ImageNet), not by "the base model" or "image datasets";
- an **entity** ("Which tokens ...", "Who ...") by a name or content word the question lacks;
- anything else ("How does X work?") is open: any reply that adds a content word or a name to the
  question may answer it (a yes/no question, any reply at all: "No, X does not need retraining").

Lexical and cheap: it runs on every quoted sentence and every generated answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.text import (
    AUXILIARIES,
    MODALS,
    STOP_WORDS,
    YES_NO,
    acronym_singular,
    canonical_name,
    capitalised_names,
    coined_names,
    has_bound,
    is_field_acronym,
    lexical_terms,
    names_written,
    numbers_in,
    plain_text,
    split_sentences,
    stem_terms,
    without_keys,
)

_EXPANSION = re.compile(
    r"\b(?:what|which)(?:\s+(?:does|do|is|are)|['’]s)\s+(?:the\s+)?(?:acronym\s+|abbreviation\s+|name\s+)?"
    r"[\"'`“]?(?P<acronym>[^\s\"'`”?]+)[\"'`”]?\s+(?:stand\s+for|short\s+for|abbreviate|mean)\b"
    r"|\b(?:expand|spell\s+out|full\s+(?:form|name)\s+of)\s+(?:the\s+)?(?:acronym\s+)?"
    r"[\"'`“]?(?P<acronym2>[^\s\"'`”?]+)",
    re.I,
)
# "What are GRMs in the GenAlign paper?": an acronym asked about is answered by what it stands for
# (when a paper spells it out) or else by what it is.
_WHAT_IS = re.compile(
    r"^\s*(?i:what)(?:\s+(?i:is|are)|['’]s)\s+(?i:the\s+|an?\s+)?([A-Z][\w\-^]*[A-Z][\w\-^]*)"
    r"(?=\s*\?|\s*$|\s+(?i:in)\b)"
)
# What a "what <...> X" question asks to be measured. ``_MEASUREMENTS`` only a figure gives
# ("What success rate / accuracy / speed-up ...?"; not "What learning rate schedule ...?");
# ``_AMOUNTS`` may be given in words too ("What overhead does X add?" "negligible").
_MEASUREMENTS = (
    r"(?:accuracy|auroc|auc|f1|fid|psnr|bleu|speed-?up|latency|percentage|ratio|(?<!learning\s)rate)"
    r"(?!\s+(?:schedules?|schedulers?|functions?|metrics?|decay|warm-?up)\b)"
)
# A score a method gets ("What MT-Bench score does Zephyr-7B obtain?", "What scores does X reach
# on AlpacaEval?"); not a score it computes or uses ("What anomaly score does X compute?").
_SCORE_GOT = (
    r"scores?\s+(?:does|do|did|is|are|was|were)\s+[^?]{0,80}?"
    r"\b(?:achieve|obtain|reach|get|attain|score|report|post)\w*\b"
)
_AMOUNTS = r"(?:score|error|gap|gain|improvement|reduction|overhead|cost|size|rate)"
_WHAT = r"\bwhat(?:['’]s)?\s+"
_SCORE_ASKED = rf"{_WHAT}(?:[\w\-@]+\s+){{0,4}}{_SCORE_GOT}"
_MEASURE_ASKED = re.compile(
    rf"{_WHAT}(?:percentage|fraction|share)\b|{_WHAT}(?:[\w\-@]+\s+){{0,3}}{_MEASUREMENTS}\b|{_SCORE_ASKED}",
    re.I,
)
# "What is the batch size ...", "what FID score ...": the words naming which amount is asked.
_QUANTITY = re.compile(
    rf"{_WHAT}(?:(?:is|are|was|were)\s+)?(?:the\s+|its\s+|their\s+)?(?P<which>(?:[\w\-@]+\s+){{1,3}})"
    rf"(?:{_AMOUNTS}|scores)\b",
    re.I,
)
# Words saying how an amount is taken, not which: "the reported / average / final error".
_HOW = frozenset(
    lexical_terms("reported average overall final relative best mean total typical maximum minimum absolute")
)
_NUMBER_ASKED = re.compile(
    r"\bhow\s+(?:many|much|long|large|fast|big|small|often)\b|\bby\s+how\s+much\b"
    rf"|{_WHAT}(?:percentage|fraction|share|number|amount)\b"
    rf"|{_WHAT}(?:[\w\-@]+\s+){{0,3}}(?:{_MEASUREMENTS}|{_AMOUNTS})\b|{_SCORE_ASKED}",
    re.I,
)
# A figure in words that no digit pattern reads ("threefold", "three times", "an order of magnitude").
FIGURE_WORDS = re.compile(
    r"\b(?:(?:two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred|thousand|\d+(?:\.\d+)?)"
    r"(?:-?fold|\s+times)|orders?\s+of\s+magnitude|twice|thrice|by\s+half|halve[sd]|double[sd]|triple[sd])\b",
    re.IGNORECASE,
)
# "Which models ...", "On which dataset ...", "What is X called?", "What protocol does X exploit?"
# (a noun, then a verb: "What causes X?" and "What kind of model is X?" ask for a description).
_PREPOSITION = r"(?:(?:on|in|for|from|with|by|at|over|across|to|under)\s+)?"
_AUXILIARY = rf"(?:{'|'.join(sorted(AUXILIARIES | MODALS))})"
_ENTITY_ASKED = re.compile(
    rf"^\s*{_PREPOSITION}(?:which|who|whom|whose|name)\b"
    r"|\bwhat\s+(?:is|are|was|were)\s+.{1,80}\s+(?:called|named)\b"
    r"|^\s*what\s+(?!kind|type|sort|does|do|did|is|are|was|were)(?:[\w'’\-]+\s+){1,3}"
    r"(?:does|do|did|is|are|was|were|can|could|has|have)\b",
    re.I,
)
# "Which base model was trained?", "On which datasets was X evaluated?", "What benchmark does X
# use?": a model, dataset or benchmark asked for is answered by its name (Llama-8B, ImageNet,
# MMLU); "tabular, text and image datasets" or "the base model" names none. The noun ends its
# phrase and a verb of the question follows it; the words before it only modify it. Not "which
# papers", "what kind(s) of model", "Which model architectures are used?" (architectures are
# asked for), "Which tokens does the model attend to?" or "What happens to small models?".
_NOT_A_MODIFIER = (
    r"(?!(?:papers?|works?|kinds?|types?|sorts?|class(?:es)?|the|a|an|of|to|in|on|for|by|with)\b)"
)
_NAME_ASKED = re.compile(
    rf"^\s*{_PREPOSITION}(?:which|what)\s+(?:{_NOT_A_MODIFIER}(?!{_AUXILIARY}\b)[\w'’\-]+\s+){{0,3}}?"
    r"(?P<noun>models?|LLMs?|MLLMs?|VLMs?|datasets?|benchmarks?|backbones?|(?:programming\s+)?languages?)\s+"
    rf"{_AUXILIARY}\b",
    re.I,
)
_WHICH_PAPERS = re.compile(rf"\s*{_PREPOSITION}(?:which|what)\s+papers?\b", re.I)
# Words a reply uses to restate a question without adding to it.
_RESTATING = STOP_WORDS | frozenset(
    "propose proposes proposed introduce introduces introduced present presents presented use uses used"
    " using show shows shown approach method model models framework answer question based".split()
)


@dataclass(frozen=True)
class Asked:
    """What a question asks for: ``expansion`` (of ``acronym``), ``number``, ``name`` (a model,
    dataset or benchmark: an entity only a name gives), ``entity`` or ``open``;
    for "how many <things>", ``counted`` is the things' stem ("How many human participants ..." →
    "particip")."""

    kind: str
    acronym: str = ""
    counted: str = ""
    # The things counted as an acronym may grow by the word before them: "how many multimodal
    # LLMs" counts the papers' "MLLMs" ("mllm").
    counted_also: tuple[str, ...] = ()
    described: bool = False  # "What are GRMs?": the expansion, or else what they are, answers
    many: bool = False  # "how many ...?" (things, or "times faster"): only a figure answers
    # "What accuracy / success rate ...?": only a figure in digits answers ("three findings" does not)
    measured: bool = False
    noun: str = ""  # the stem of what a name answers ("benchmark"): a sentence writing it with one leads
    # "What is the batch size ...?": the stems of the words saying which amount ("batch"); a paper
    # that never writes them does not give it (a paper's "10 datasets" is no batch size).
    quantity: tuple[str, ...] = ()


# "How many <things> ...": the things are the plural that ends the first words after it, before a
# verb or function word ("how many residual stream activations were ..." counts activations,
# "how many human participants took part" participants). Irregular plurals count nothing.
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?:of\s+(?:the|its|their)\s+)?((?:[A-Za-z][\w\-]*\s*){1,3})", re.I)


def _counted(text: str) -> tuple[str, tuple[str, ...]]:
    """The stem of what "how many ..." counts in ``text``, or "" (see :data:`_HOW_MANY`), and,
    when it is an acronym after a word, the acronym with that word's initial ("MLLM")."""
    match = _HOW_MANY.search(text)
    if match is None:
        return "", ()
    words, plurals = [], []
    for word in match.group(1).split():
        if word.lower() in STOP_WORDS or word.lower() in AUXILIARIES:
            break
        words.append(word)
        if word.endswith("s") and not word.endswith("ss") and word.lower() != "times":
            plurals.append(word)
    stems = stem_terms(plurals[-1].replace("-", " ")) if plurals else []  # "GPU-hours": hours
    if not stems:
        return "", ()
    last = plurals[-1]
    at = words.index(last)
    grown: tuple[str, ...] = ()
    if at and acronym_singular(last).isupper() and len(acronym_singular(last)) > 1:
        grown = tuple(stem_terms(f"{words[at - 1][0]}{last}"))
    return stems[-1], grown


# "Besides Adam, which optimizers ...?": what is set aside first is not what is asked.
_ASIDE = re.compile(
    r"^\s*(?:besides|apart\s+from|other\s+than|except(?:\s+for)?|aside\s+from|in\s+addition\s+to)\b"
    r"[^,?]{1,80},\s*",
    re.I,
)


def asked_for(question: str) -> Asked:
    """The kind of answer ``question`` asks for (see the module docstring). A question of several
    sentences asks in its last question ("There's a paper on dictionary learning. Which benchmark
    does it evaluate on?" asks for a name; "Which dataset does X use? Answer briefly." too), after
    what it sets aside ("Besides Adam, which optimizers ...?")."""
    text = plain_text(question)
    sentences = split_sentences(text) or [text]
    asking = [s for s in sentences if s.rstrip().endswith("?")] or sentences  # not "Answer briefly."
    text = _ASIDE.sub("", asking[-1])
    if match := _EXPANSION.search(text):
        return Asked("expansion", canonical_name(match.group("acronym") or match.group("acronym2")))
    if (match := _WHAT_IS.search(text)) and acronym_singular(canonical_name(match.group(1))).isupper():
        return Asked("expansion", canonical_name(match.group(1)), described=True)
    if _NUMBER_ASKED.search(text):
        counted, also = _counted(text)
        many = _HOW_MANY.search(text) is not None
        measured = not many and _MEASURE_ASKED.search(text) is not None
        which = _QUANTITY.search(text)
        quantity = tuple(t for t in lexical_terms(which.group("which")) if t not in _HOW) if which else ()
        return Asked(
            "number", counted=counted, counted_also=also, many=many, measured=measured, quantity=quantity
        )
    if match := _NAME_ASKED.search(text):
        return Asked("name", noun=lexical_terms(acronym_singular(match.group("noun")))[-1])  # "LLMs": llm
    if _ENTITY_ASKED.search(text) and not _WHICH_PAPERS.match(text):
        return Asked("entity")
    if YES_NO.match(text) and has_bound(text):  # "Compared against more than five baselines?": "six"
        return Asked("number")
    return Asked("open")


_FUNCTION_WORDS = frozenset("a an and as at by for from in of on or the to via with".split())


def _letters(acronym: str) -> list[str]:
    """The letter sequences an expansion may spell: the capitals and digits ("TraCeS" → "tcs"),
    every letter ("traces"), and a power spelled out ("C^3" → "ccc"); a plural "s" is dropped."""
    core = acronym[:-1] if acronym.endswith("s") and acronym[:-1].isupper() else acronym
    capitals = "".join(c for c in core if c.isupper() or c.isdigit()).lower()
    every = re.sub(r"[^a-z0-9]", "", core.lower())
    powered = re.sub(r"([a-z])(\d)", lambda m: m.group(1) * int(m.group(2)), every)
    return list(dict.fromkeys(x for x in (capitals, every, powered) if len(x) >= 2))


def _abbreviates(words: list[str], letters: str) -> bool:
    """Do ``words`` abbreviate to ``letters``? Each word starts the next letter (a function word
    or the tail of a hyphenated word may be skipped) and may give further letters from inside,
    in order: "Sparse autoencoders" → "sae", "Optimizer-induced Projected Utility Selection" →
    "opus", "3D Gaussian Splatting" → "3dgs"."""
    parts = [(p.lower(), n > 0) for w in words for n, p in enumerate(w.split("-")) if p]

    def match(i: int, j: int) -> bool:
        if i == len(parts):
            return j == len(letters)
        word, tail = parts[i]
        if (tail or word in _FUNCTION_WORDS) and match(i + 1, j):
            return True
        if j == len(letters) or word[0] != letters[j]:
            return False
        k = j + 1
        if match(i + 1, k):
            return True
        for c in word[1:]:  # letters from inside the word, in order
            if k < len(letters) and c == letters[k]:
                k += 1
                if match(i + 1, k):
                    return True
        return False

    return bool(parts) and not parts[0][1] and parts[0][0] not in _FUNCTION_WORDS and match(0, 0)


_WORDS = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


def expansion_in(sentence: str, acronym: str) -> str | None:
    """The expansion of ``acronym`` that ``sentence`` gives, or None: "multi-armed bandits (MABs)",
    "TraCeS (Trajectory-based Constraint Estimation for Safety)", or "SOPE, a Scenario-aware and
    zerO-click Privacy Exfiltration framework" (capitals spelling it)."""
    text = re.sub(r"[*`_]", "", plain_text(sentence)).translate(_SCRIPTS)
    name = re.escape(canonical_name(acronym).rstrip("s") if acronym[:-1].isupper() else acronym)
    spellings = _letters(acronym)
    for match in re.finditer(rf"(?<![\w^]){name}s?(?![\w^])", text):
        opened = text[: match.start()].rstrip().endswith("(")
        if opened or re.match(r"\s*\)", text[match.end() :]):  # "multi-armed bandits (MABs)"
            before = _WORDS.findall(text[max(0, match.start() - 160) : match.start()])
            # A coined name may be cut from its first words only: "Adaptive Categorical
            # Discretization (AdaCat)" spells "adacat" before its last word.
            every = re.sub(r"[^a-z0-9]", "", acronym.lower())  # all its letters, not only the capitals
            coined = [every] if re.search(r"[a-z]", acronym) and len(every) >= 5 else []
            for start in range(len(before) - 1, max(-1, len(before) - 12), -1):
                if any(_abbreviates(before[start:], letters) for letters in spellings) or any(
                    len(before) - start > 2 and _abbreviates(before[start:-1], letters) for letters in coined
                ):
                    return " ".join(before[start:])
        after = text[match.end() : match.end() + 200]
        if inner := re.match(r"\s*\(([^()]{3,120})\)", after):  # "TraCeS (Trajectory-based ...)"
            words = _WORDS.findall(inner.group(1))
            if 2 <= len(words) <= 10 and any(_abbreviates(words, letters) for letters in spellings):
                return inner.group(1).strip()
        # "SOPE, a Scenario-aware and zerO-click Privacy Exfiltration framework": capitals spell it
        if described := re.match(r"\s*,\s*(?:a|an|the)\s+((?:[\w\-]+\s+){1,10}[\w\-]+)", after):
            capitals = iter(c.lower() for c in described.group(1) if c.isupper() or c.isdigit())
            letters = spellings[0]
            if len(letters) >= 3 and all(c in capitals for c in letters):
                return described.group(1).strip()
    return None


_SCRIPTS = str.maketrans({"^": "", "{": "", "}": "", "$": ""})


# Words that give an amount without being a count rag.text reads as digits ("six" is read as 6).
_AMOUNT_WORDS = re.compile(
    r"\b(?:one|dozens?|thirty|forty|fifty|hundreds?|thousands?|millions?|billions?|trillions?|half"
    r"|double|twice|triple|several)\b",
    re.I,
)


# "(1) ..., (2) ...", "(ii)": a list's markers, not figures it gives.
_MARKER = re.compile(r"\((?:\d{1,2}|[ivx]{1,4})\)", re.I)


def _figures(text: str, spelled: bool = True) -> set[str]:
    """The numbers of ``text``, in digits or (``spelled``) in words ("four" as 4, "one
    billion"); not the markers of a list ("three findings: (1) ...; (2) ..." gives only 3)."""
    text = _MARKER.sub(" ", text)
    if not spelled:
        return numbers_in(text)
    return numbers_in(text, spelled=True) | {w.lower() for w in _AMOUNT_WORDS.findall(text)}


def new_terms(text: str, question: str) -> set[str]:
    """Content terms of ``text`` that ``question`` does not have: what a reply adds."""
    asked = set(stem_terms(question, _RESTATING, min_length=2)) | set(lexical_terms(question))
    return {t for t in stem_terms(text, _RESTATING, min_length=2) if t not in asked}


def counts_what_is_asked(sentence: str, asked: Asked) -> bool:
    """Could ``sentence`` give a count of what a "how many <things>" question counts: does it name
    the things and hold a figure, in digits or words ("3K videos", "one billion residual stream
    activations")? A sentence on the paper's three components does not say how many human
    participants took part. True when the question counts nothing in particular."""
    if not asked.counted:
        return True
    text = plain_text(sentence)
    written = stem_terms(text.replace("-", " "))  # "7B-parameter"
    return any(c in written for c in (asked.counted, *asked.counted_also)) and bool(_figures(text))


def names_answer(
    text: str, question: str, asked: Asked | None = None, defined: frozenset[str] = frozenset()
) -> bool:
    """Does ``text`` name what ``question`` asks for (not merely restate the question)? A model,
    dataset or benchmark asked for is not named by what its paper ``defined`` (see
    :func:`defined_names`)."""
    asked = asked or asked_for(question)
    body = plain_text(without_keys(text))
    if asked.kind == "expansion":
        return expansion_in(body, asked.acronym) is not None or (asked.described and _adds(body, question))
    if asked.kind == "number" and asked.measured:  # "three times faster", not "three findings"
        measures = measures_of(body)
        return bool(figures_given(measures, question, spelled=False) or FIGURE_WORDS.search(measures))
    if asked.kind == "number":
        return bool(figures_given(body, question))
    if asked.kind == "name":  # "Which model is larger, FooNet or BarNet?" is answered by picking one
        return any(n not in defined for n in new_names(body, question)) or bool(_OPTIONS.search(question))
    if _CHOICE.search(question) or (asked.kind != "entity" and YES_NO.match(plain_text(question))):
        return True  # "A or B?" is answered by picking one; "No, X does not need retraining"
    # Any other question is answered only by something it does not say itself: "AdaSCALE adjusts
    # dynamically based on a sample's estimated OODness" answers neither "What does AdaSCALE
    # adjust dynamically ...?" nor "How does AdaSCALE ...?".
    return _adds(body, question)


# Acronyms of the field, not of one model or dataset: "AI alignment" names no base model, nor
# "on GPUs" or "through an API" a benchmark.
_SIZE = re.compile(r"\d+(?:\.\d+)?[KMBT]")  # "a 7B base model" gives a size, not a name


def new_names(text: str, question: str) -> list[str]:
    """The names ``text`` gives that ``question`` does not (its citation keys left out): coined
    ones (Llama-8B, MMLU) and capitalised words (Gemma, Pythia; see
    :func:`rag.text.capitalised_names`). Not a name the question writes as a whole word in any
    case ("Pile" is new to a question on a "compiled" corpus), a size ("7B"), an acronym of the
    field (AI, LLMs), an acronym that only adds a letter to one the question writes ("MLLMs" for
    its "LLMs"; "ImageNet-C" for its "ImageNet" is new), nor one the text spells out in the
    question's words ("conformal prediction (CP)")."""
    body = without_keys(text)
    asked = {n.lower() for n in names_written(question)} | set(re.findall(r"[a-z0-9]+", question.lower()))
    given = [acronym_singular(n) for n in coined_names(question)]
    found = [*sorted(coined_names(body)), *capitalised_names(body)]
    spelled_out = _spelled_acronyms(body, given)
    return [
        n
        for n in dict.fromkeys(found)
        if n.lower() not in asked
        and n not in spelled_out
        and not _SIZE.fullmatch(n)
        and not is_field_acronym(n)
        and not any(_adds_a_letter(acronym_singular(n), g) for g in given)
        and not ((spelled := expansion_in(body, n)) and " ".join(spelled.lower().split()) in question.lower())
    ]


# A run of capitalised words ("Large Language Model", "Chain-of-Thought Reasoning").
_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:-[A-Za-z]+)*(?:\s+[A-Z][a-z]+(?:-[A-Za-z]+)*)+s?\b")


def _spelled_acronyms(text: str, acronyms: list[str]) -> set[str]:
    """The capitalised words of ``text`` that only spell out an acronym: one the text spells out
    itself ("uses a Large Language Model (LLM)", see :func:`expansion_in`) or one the question
    writes (``acronyms``: "Using Large Language Models, ..." for "Which LLM does GaussTrace
    use?"). "builds on the Graph Attention Network" names a model though its initials spell GAN."""
    words = {
        w
        for name in coined_names(text)
        if (spelled := expansion_in(text, name))
        for w in _named_words(spelled)
    }
    letters = [spelling for acronym in acronyms for spelling in _letters(acronym)]
    for match in _CAPITALISED_RUN.finditer(text):
        run = match.group(0).split()
        for start in range(len(run) - 1):  # "Using Large Language Models": its last three
            if any(_abbreviates(run[start:], spelling) for spelling in letters):
                words.update(run[start:])
                break
    return words


def _named_words(spelled: str) -> list[str]:
    """The words of an expansion written with a capital or a digit ("3D Gaussian Splatting")."""
    return [w for w in re.findall(r"[\w\-]+", spelled) if w.lower() != w]


def defined_names(text: str) -> frozenset[str]:
    """The acronyms ``text`` spells out, with the capitalised words spelling them: "3D Gaussian
    Splatting (3DGS)" defines 3DGS, Gaussian and Splatting. A paper defines the techniques and
    terms it works with; the models, datasets and benchmarks it uses it names (Qwen-2.5-Coder-7B,
    ImageNet, SAEBench), so a defined name answers no "Which LLM / dataset does X use?"."""
    found: set[str] = set()
    sentences = split_sentences(text)
    for name in coined_names(text):
        for sentence in sentences:
            if name in sentence and (spelled := expansion_in(sentence, name)):
                # "the Massive Multitask Language Understanding (MMLU) benchmark": a benchmark or
                # dataset by name. (A model spelled out is mostly a class: "Multimodal Large
                # Language Models (MLLMs)", "Generative Reward Models (GRMs)".)
                after = sentence[sentence.find(name) + len(name) :][:30]
                if _NAMED_THING.search(f"{spelled} {after}"):
                    break
                found.add(name)
                found.update(_named_words(spelled))  # 3D, Gaussian, Splatting
                break
    return frozenset(found)


_NAMED_THING = re.compile(r"\b(?:benchmarks?|datasets?|corpus|corpora|challenges?|suites?)\b", re.I)


def _adds_a_letter(name: str, acronym: str) -> bool:
    """``name`` is ``acronym`` with one capital in front ("MLLM" and "LLM")."""
    return name.isupper() and acronym.isupper() and len(name) == len(acronym) + 1 and name.endswith(acronym)


# "... strictly worse generalization: Byzantine failures or data poisoning?"
_CHOICE = re.compile(r"\bor\b", re.I)
# Options offered after a colon or comma ("Which model is larger: A or B?"), not "datasets or benchmarks".
_OPTIONS = re.compile(r"[:,][^?]*\bor\b", re.I)


# The words that only say yes or no: a reply made of the question and these adds nothing to it.
_POLARITY = frozenset("yes no not nor neither cannot never can won".split())
_NOT = re.compile(r"n['’]t\b", re.I)  # "doesn't" as "does not"


def restates(text: str, question: str) -> bool:
    """Is ``text`` a bare yes or no to the yes/no ``question``: the question's own words and its
    polarity, nothing more ("No, Neural Honeytrace does not have to retrain the protected model")?
    True, maybe, but it shows nothing a reader can check, and the model may have the polarity
    wrong: the sentence that settles it is quoted after it (rag.answer.pipeline)."""
    if not YES_NO.match(plain_text(question)):
        return False
    body = _NOT.sub(
        " not", re.sub(r"\b(can|won)['’]t\b", r"\1 not", plain_text(without_keys(text)), flags=re.I)
    )
    return not _adds(body, question, ignored=_POLARITY)


def _adds(body: str, question: str, ignored: frozenset[str] = frozenset()) -> bool:
    """``body`` says something ``question`` does not: a content word (not one of ``ignored``), a
    name (in any case: the question's "adascale" is the reply's "AdaSCALE") or a figure."""
    if new_terms(body, question) - ignored:
        return True
    asked = question.lower()
    return any(n.lower() not in asked for n in coined_names(body)) or bool(figures_given(body, question))


# What gives no measurement: a figure inside a name or a size ("Llama2-Chat-70B", "pass@1",
# "7B", "miniF2F"), a date ("May 24, 2024", "2023"), a list's marker ("1)", "(ii)"). A figure with
# its unit is one ("94.3%", "3.5x", "2-fold", "12pp").
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_NOT_A_MEASURE = re.compile(
    r"(?<![\w.])(?!\d+(?:\.\d+)?(?:x|×|pp|-?fold|-?points?)(?![\w@+-]|\.\d))"
    r"(?=[\w@+.-]*[A-Za-z])(?=[\w@+.-]*\d)[\w@+.-]+"
    rf"|\b{_MONTH}\.?\s+\d{{1,2}}\b(?=,?\s+(?:19|20)\d{{2}}\b)"
    r"|\b(?:19|20)\d{2}\b(?!\.\d|%)"
)
# A list's marker without its opening bracket: "three steps: 1) enabling …, 2) masked …"
_OPEN_MARKER = re.compile(r"(?<![\w.(])\d{1,2}\)(?=\s+[A-Za-z])")


def measures_of(text: str) -> str:
    """``text`` without the figures that measure nothing (see :data:`_NOT_A_MEASURE`): what a
    "What MT-Bench score …?" reply must hold a figure in, past "surpassed Llama2-Chat-70B". A
    bracket closing after a figure is a marker only outside brackets: "(score 8)" gives 8."""
    text = _NOT_A_MEASURE.sub(" ", _MARKER.sub(" ", text))
    kept, at = [], 0
    for m in _OPEN_MARKER.finditer(text):
        if text.count("(", 0, m.start()) <= text.count(")", 0, m.start()):  # outside brackets
            kept.append(text[at : m.start()])
            at = m.end()
    return " ".join([*kept, text[at:]])


def figures_given(text: str, question: str, spelled: bool = True) -> set[str]:
    """The figures of ``text`` (in digits or, with ``spelled``, words: "five" is 5) that
    ``question`` does not give."""
    return _figures(plain_text(without_keys(text)), spelled) - _figures(plain_text(question))
