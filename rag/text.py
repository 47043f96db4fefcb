"""Text helpers that every stage shares: sentences, markup, stems, numbers, citation keys, support.

They live once, here, because the answer path and the eval must agree on them: if the grounding
check split sentences or judged support differently from the metric that scores it, the eval
would measure something the product never did.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable

from rag.errors import BadInput

# --- input ---------------------------------------------------------------------------------

# Longest question, query or topic accepted: far beyond any real question, and short enough that
# the prompt built around it always fits the model's context.
MAX_QUERY_CHARS = 2000


def checked_query(text: str, what: str = "question") -> str:
    """``text`` stripped; an empty or over-long one is a one-line error (never a failed model call)."""
    text = text.strip()
    if not text:
        raise BadInput(f"the {what} is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise BadInput(f"the {what} is {len(text):,} characters long; use at most {MAX_QUERY_CHARS:,}")
    return text


# --- sentences -------------------------------------------------------------------------------

# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and a capital,
# digit, or markup opener; "e.g. x" and "Fig. 3" style abbreviations are rarely followed by capitals.
_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+(?=[A-Z0-9$*\\(\[“])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "Fig.", "Eq.", "cf.", "resp.")


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract or an answer, keeping abbreviations like "e.g." inside."""
    parts = [p.strip() for p in _SENTENCE_BOUNDARY.split(text) if p.strip()]
    merged: list[str] = []
    for part in parts:
        if merged and merged[-1].endswith(_ABBREVIATIONS):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    return merged


# --- markup ----------------------------------------------------------------------------------

_MARKUP = [
    (re.compile(r"\\(?:textbf|textit|textrm|texttt|emph|mathrm|mathbf|bf|it)\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\$([^$]{1,40})\$"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])"), r"\1"),
    (re.compile(r"\\([%$&_#])"), r"\1"),
]


def plain_text(text: str) -> str:
    """Light LaTeX/markdown unwrapped (``$\\textbf{14.94}$%`` → ``14.94%``): models and judges
    compare plain numbers far more reliably than markup."""
    for _ in range(2):  # nested markup such as $\textbf{x}$
        for pattern, repl in _MARKUP:
            text = pattern.sub(repl, text)
    return text


# --- display ---------------------------------------------------------------------------------

# C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the invisible
# bidirectional marks and overrides (U+202E shows what follows reversed).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# What makes Markdown act: escapes, code, emphasis, links and images, HTML, strikethrough. An
# underscore inside a word (a file name) does nothing and stays as it is, readable in the raw file.
_MARKDOWN = re.compile(r"([\\`*\[\]<>!~]|(?<!\w)_|_(?!\w))")


def printable(text: str) -> str:
    """Text that cannot drive a terminal: control characters and bidirectional overrides removed.

    Corpus text is data. An ESC sequence in an abstract would otherwise clear the screen or set the
    window title when shown; ``--json`` keeps the original text.
    """
    return _CONTROLS.sub("", text)


def markdown_literal(text: str) -> str:
    """``text`` as Markdown that shows it literally: no link, image, emphasis or HTML from corpus text."""
    return _MARKDOWN.sub(r"\\\1", printable(text))


def normalized(text: str) -> str:
    """Lower-case words only, for comparing phrasings ("The papers here ..." vs "the papers here")."""
    return re.sub(r"[\W_]+", " ", text).strip().lower()


# --- words -----------------------------------------------------------------------------------

# Function and question words: no evidence of what a text is about.
STOP_WORDS = frozenset(
    "a an the of and or to in on for with by from at as is are was were be been does do did that this"
    " these those it its which who whom what how why when where than then also can could such into over"
    " under both each more most much many about between their our we they there any some paper papers"
    " work works study studies kind kinds type types acronym stand name named called".split()
)
# Words every abstract uses: no evidence of a topic either (topic selection, theme names).
RESEARCH_FILLER = frozenset(
    "via is using based new method methods approach propose proposed model models learning existing"
    " experiments results show while however across address remains without within through only often"
    " well data performance framework novel".split()
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")


@functools.cache
def stemmer():
    """English Snowball stemmer (PyStemmer), shared by BM25, support judging and topic selection."""
    try:
        import Stemmer

        return Stemmer.Stemmer("english")
    except ImportError:  # optional: plain tokens still work, recall on word forms is lower
        return None


def stem_terms(text: str, stopwords: frozenset[str] = STOP_WORDS, min_length: int = 2) -> list[str]:
    """Lower-cased, stemmed words of ``text`` minus ``stopwords``: the unit of lexical overlap."""
    words = [w.lower() for w in _WORD.findall(text) if len(w) >= min_length and w.lower() not in stopwords]
    stem = stemmer()
    return stem.stemWords(words) if stem else words


_LEXICAL_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # bm25s's own token pattern
_SCRIPT_CHANGE = re.compile(r"(?<=[^\x00-\u024f\s])(?=[\x00-\u024f])|(?<=[\x00-\u024f])(?=[^\x00-\u024f\s])")


@functools.cache
def _index_stopwords() -> frozenset[str]:
    """Words BM25 never indexes, plus ours: a query term from this set has no document frequency."""
    try:
        from bm25s.stopwords import STOPWORDS_EN

        return STOP_WORDS | frozenset(STOPWORDS_EN)
    except ImportError:
        return STOP_WORDS


def lexical_sequence(text: str) -> list[str]:
    """Stemmed content terms exactly as the BM25 index tokenizes text (so their document
    frequencies can be looked up), minus stop words, in order: phrases stay adjacent."""
    stop = _index_stopwords()
    text = _SCRIPT_CHANGE.sub(" ", plain_text(text))  # "AdaSCALE在近OOD上" is three words, not one
    words = [w for w in (m.lower() for m in _LEXICAL_TOKEN.findall(text)) if w not in stop]
    stem = stemmer()
    return stem.stemWords(words) if stem else words


def lexical_terms(text: str) -> list[str]:
    """:func:`lexical_sequence` with repeats dropped (order of first use kept)."""
    return list(dict.fromkeys(lexical_sequence(text)))


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers_in(text: str) -> set[str]:
    """Every number in ``text`` (thousands separators dropped): the facts small models invent."""
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


# --- citation keys ---------------------------------------------------------------------------

# One bracket group as a citation: "[000-02]", "[S1, S2]", "[000-02][003-01]" (two groups).
KEY_GROUP = re.compile(r"\[([^\[\]\n]{1,80})\]")
_KEY_SPLIT = re.compile(r"[,;]\s*|\s+and\s+|\s+")


def split_keys(group: str) -> list[str]:
    """The keys inside one bracket group: ``"000-02, 003-01"`` → ``["000-02", "003-01"]``."""
    return [k.strip() for k in _KEY_SPLIT.split(group) if k.strip()]


def keys_in(text: str) -> list[str]:
    """Every key cited in ``text``, in order, repeats included."""
    return [k for group in KEY_GROUP.findall(text) for k in split_keys(group)]


def without_keys(text: str) -> str:
    """``text`` with its bracket groups removed (what a claim says, without where it comes from)."""
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"\s?" + KEY_GROUP.pattern, "", text)).strip()


_ANSWER_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=\])\s+(?=[A-Z])|\n+")


def cited_sentences(answer: str) -> list[tuple[str, list[str]]]:
    """(sentence without keys, the keys cited in it) for each sentence of an answer.

    Keys that open a piece ("... 14.94%. [000-02] Next ...") belong to the sentence before. A
    line that ends in a colon and cites nothing ("4 papers on watermarking:") is a heading of
    what follows, not a claim, and is left out.
    """
    out: list[tuple[str, list[str]]] = []
    for raw in _ANSWER_SENTENCE.split(answer.strip()):
        raw = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", raw)  # list bullets are not content
        leading = re.match(r"^((?:\s*\[[^\[\]]+\])+)", raw)
        if leading and out:
            out[-1][1].extend(keys_in(leading.group(1)))
            raw = raw[leading.end() :]
        sentence = KEY_GROUP.sub("", raw).strip()
        if sentence.endswith(":") and not keys_in(raw):
            continue
        if sentence.strip(" .。:"):
            out.append((sentence, keys_in(raw)))
    return out


# --- support ---------------------------------------------------------------------------------


def supports(claim: str, evidence: str, threshold: float = 0.6) -> bool:
    """Does ``evidence`` support ``claim``, lexically? Most of the claim's content words (stemmed)
    occur in the evidence and every number in the claim does: a cheap stand-in for entailment
    that is strict about numbers, where small models most often go wrong."""
    claim, evidence = plain_text(claim), plain_text(evidence)
    words = set(stem_terms(claim, STOP_WORDS, min_length=3))
    if not words or not numbers_in(claim) <= numbers_in(evidence):
        return False
    return len(words & set(stem_terms(evidence, STOP_WORDS, min_length=3))) / len(words) >= threshold


_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9]{0,8}?[A-Z0-9])(s?)\s*\)")
_WORDS_BEFORE = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


def acronyms_in(texts: Iterable[str]) -> dict[str, tuple[str, int]]:
    """Acronyms the texts define, lower-cased, with their most common expansion and its count:
    "graph neural networks (GNNs)" → {"gnn": ("graph neural networks", 1)}. An expansion is the
    shortest run of words before the parenthesis whose initials (hyphenated parts too:
    "multi-agent" gives m, a) spell the acronym's capitals."""
    counts: dict[str, Counter] = {}
    for text in texts:
        for match in _ACRONYM.finditer(text):
            letters = [c.lower() for c in match.group(1) if c.isupper() or c.isdigit()]
            if not 2 <= len(letters) <= 6:
                continue
            before = text[max(0, match.start() - 120) : match.start()]
            words = _WORDS_BEFORE.findall(before)[-(len(letters) + 3) :]
            for start in range(len(words) - 1, -1, -1):
                initials = [p[0].lower() for w in words[start:] for p in w.split("-") if p]
                if initials == letters:
                    expansion = " ".join(words[start:]).lower()
                    counts.setdefault(match.group(1).lower(), Counter())[expansion] += 1
                    break
                if len(initials) > len(letters):
                    break
    return {acronym: found.most_common(1)[0] for acronym, found in counts.items()}
