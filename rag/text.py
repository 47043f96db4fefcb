"""Text helpers that every stage shares: sentences, markup, stems, numbers, citation keys, support.

They live once, here, because the answer path and the eval must agree on them: if the grounding
check split sentences or judged support differently from the metric that scores it, the eval
would measure something the product never did.
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator

from rag.errors import BadInput

# --- input ---------------------------------------------------------------------------------

# Longest question, query or topic accepted: far beyond any real question, and short enough that
# the prompt built around it always fits the model's context.
MAX_QUERY_CHARS = 2000


# Soft hyphens and word joiners (a PDF's or a web page's) sit inside a word: dropped. A zero-width
# space is dropped inside a name's capitals ("O\u200bPUS"), else it parts words
# ("diffusion\u200bmodels"). Not the joiners some scripts need (U+200C, U+200D).
_INVISIBLE = dict.fromkeys(map(ord, "\u2060\ufeff\u00ad"))
_ZERO_WIDTH = re.compile("\u200b")


def _zero_width(match: re.Match[str]) -> str:
    """A zero-width space between two capitals is dropped ("O\u200bPUS"), any other a space."""
    text, at = match.string, match.start()
    around = text[at - 1 : at] + text[at + 1 : at + 2]
    return "" if len(around) == 2 and around.isupper() else " "


# What is typed in a compatibility form of what the papers write: full-width letters ("ＯＰＵＳ"),
# ligatures ("ﬁ"), and digits raised after a capital ("C³", "S²IP"), not "O(n²)".
_COMPATIBLE = re.compile(r"[\uff01-\uff5e\ufb00-\ufb06]+|(?<=[A-Z])[⁰¹²³⁴-⁹]+")


def checked_query(text: str, what: str = "question") -> str:
    """``text`` stripped, what :func:`printable` removes made a space (what is searched is what is
    shown: "diffusion\x1b[0m models" is not a query for "diffusion" and "0m models", nor
    "diffusion\u202emodels" one word); with what is typed in another form of what the papers
    write read as they write it ("ＯＰＵＳ" and "O\u200bPUS" are OPUS, "C³" is C3; "O(n²)" is
    kept); an empty, over-long or undecodable one is a one-line error (never a failed model call
    or tokenizer)."""
    if not text.isascii():  # "ＯＰＵＳ", "C³", "ﬁne-tuning" as typed; "O\u200bPUS" pasted from a PDF
        text = _ZERO_WIDTH.sub(_zero_width, text).translate(_INVISIBLE)
        text = _COMPATIBLE.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    text = " ".join(printable(text, " ").split())
    if not text:
        raise BadInput(f"the {what} is empty")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # bytes the terminal passed that are not UTF-8 (surrogate escapes)
            raise BadInput(f"the {what} is not valid UTF-8 text") from None
    if len(text) > MAX_QUERY_CHARS:
        raise BadInput(f"the {what} is {len(text):,} characters long; use at most {MAX_QUERY_CHARS:,}")
    return text


# --- sentences -------------------------------------------------------------------------------

# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and a capital,
# digit, or markup opener; "e.g. x" and "Fig. 3" style abbreviations are rarely followed by capitals.
_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+(?=[A-Z0-9$*\\(\[“])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "Fig.", "Eq.", "cf.", "resp.")


def opens_sentence(before: str) -> bool:
    """Does a word written after ``before`` open a sentence? At the start, or after . ! ? that
    ends no abbreviation ("e.g. Mamba", "vs. Mamba" do not; a colon does not either)."""
    before = before.rstrip().rstrip("\"'“‘([{").rstrip()
    return not before or (before[-1] in ".!?" and not before.endswith(_ABBREVIATIONS))


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


_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:propose|introduce|present|design|develop|describe)", re.I
)
# A sentence in the authors' own voice ("In this paper, we distinguish ...", "Here we show ..."):
# what they did, as against the field's background an abstract opens with.
_OWN_VOICE = re.compile(r"\b(?:we|this (?:paper|work))\b", re.I)


def sentence_role(sentence: str) -> int:
    """What an abstract's sentence does: 0 states a contribution ("We propose ..."), 1 is in the
    authors' voice, 2 is background ("Graph-structured data are ubiquitous.") or results told in
    other words. The sentence that says what a paper does in one line is the first of lowest role."""
    return 0 if _CONTRIBUTION.search(sentence) else 1 if _OWN_VOICE.search(sentence) else 2


# --- markup ----------------------------------------------------------------------------------

_MARKUP = [
    (re.compile(r"\\(?:textbf|textit|textrm|texttt|emph|mathrm|mathbf|bf|it)\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\$([^$]{1,40})\$"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])"), r"\1"),
    (re.compile(r"\\([%$&_#])"), r"\1"),
]


def plain_text(text: str, symbols: bool = False) -> str:
    """Light LaTeX/markdown unwrapped (``$\\textbf{14.94}$%`` → ``14.94%``): models and judges
    compare plain numbers far more reliably than markup.

    ``symbols`` is for people: inline math is typeset as Unicode text as well
    (``$\\gamma = \\|\\boldsymbol{\\mu}\\|$`` → ``γ = ‖μ‖``, ``\\rho`` → ``ρ``). Without it, text
    keeps ``\\gamma``'s word: the lexical index and support judging match "gamma", never "γ",
    and indexes already built must keep tokenizing corpus text the same way.
    """
    if symbols:
        text = _for_people(text)
    for _ in range(2):  # nested markup such as $\textbf{x}$
        for pattern, repl in _MARKUP:
            text = pattern.sub(repl, text)
    if symbols:  # outside math only named symbols: "003_35..." is a file name, not x with subscript
        text = _NAMED_SYMBOL.sub(lambda m: _SYMBOLS[m.group(1)], text)
    return text


def _for_people(text: str) -> str:
    """``text`` for people, in one pass over its math spans: each typeset as Unicode text, and
    :data:`_TEXT_MARKUP` applied between them, never inside one (``$f''(x)$`` keeps its primes);
    a tie right after a span is a space too ("$\alpha$~(the step size)"). A citation the text
    opens with leaves no space in front of it."""
    out, at = [], 0
    for span in _MATH_SPAN.finditer(text):
        out += [
            _text_markup(text[at : span.start()], after_math=at > 0),
            math_text(span.group(1) or span.group(2) or span.group(3) or ""),
        ]
        at = span.end()
    shown = "".join([*out, _text_markup(text[at:], after_math=at > 0)])
    return shown.lstrip(" ") if not text[:1].isspace() else shown


def _text_markup(text: str, after_math: bool = False) -> str:
    """One stretch of text outside math, its LaTeX text markup shown as plain text."""
    if after_math and re.match(r"~(?=[\w(])", text):
        text = " " + text[1:]
    for pattern, repl in _TEXT_MARKUP:
        text = pattern.sub(repl, text)
    return text


# LaTeX text markup that OpenReview abstracts carry outside math, for people only (the index
# keeps tokenizing as it did): "\underline{P}roxy", "{\it modular}", "``what if''", "AdaGCN~(…",
# "P{\L}"; a citation is shown as its key in parentheses (brackets are citeline's own keys) and a
# footnote not at all.
_TEXT_MARKUP: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\\(?:underline|textsc|textsf|textup|textmd|textnormal|mbox|text)\{([^{}]*)\}"), r"\1"),
    # "\textcolor{red}{the arms}", "{\color{red} the arms}", a bare "\color{red}": the arms
    (re.compile(r"\\(?:textcolor|colorbox)\{[^{}]*\}\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\{\\color\{[^{}]*\}\s*([^{}]*)\}"), r"\1"),
    (re.compile(r"\\color\{[^{}]*\}\s*"), ""),
    (re.compile(r"\{\\(?:it|bf|em|sc|tt|rm|sf|sl)\s+([^{}]*)\}"), r"\1"),
    (  # \cite{k}, \citep[p.~3]{a,b}, \citealp{k}, \eqref{e}: "(k)", not "[k]" (brackets are keys)
        re.compile(r"\s*~?\\(?:cite[a-z]*|eqref|ref)(?:\[[^\]]*\])?\{([^{}]*)\}"),
        r" (\1)",
    ),
    (re.compile(r"\s*\\(?:footnote|label)\{[^{}]*\}"), ""),
    (re.compile(r"``((?:(?!'')[^`]){0,300}?)''"), r"“\1”"),  # only a pair: "f''(x)" keeps its primes
    # Ł, ł as a name writes them ("\L{}ojasiewicz", "{\L}ojasiewicz", "\L ojasiewicz"); not "\L_{CE}"
    (re.compile(r"\{\\L\}|\\L(?:\{\}|\s?(?=[a-z]))"), "Ł"),
    (re.compile(r"\{\\l\}|\\l(?:\{\}|\s?(?=[a-z]))"), "ł"),
    # A tie after a word or a stop ("Figure~3", "policy.~(i)"), not "2~3x" (a range), "z~N(0,1)"
    # or "~5%" (about 5%).
    (re.compile(r"(?:(?<=[A-Za-z]{2})|(?<=[).,;:]))~(?=[\w(])"), " "),
]


# Inline math: $...$ on one line (not "$5 and $6"-style prices: no digit right after the closing
# "$", unless the span is a command: "from 17$\rightarrow$30\%"), or \( ... \).
_MATH_SPAN = re.compile(
    r"(?<![\\$])\$(\\[A-Za-z]+)\$"
    r"|(?<![\\$])\$(?!\s)([^$\n]{1,300}?)(?<![\s\\])\$(?!\d)"
    r"|\\\((.{1,300}?)\\\)"
)


def math_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` has inline math (``$...$``, ``\\(...\\)``), as :func:`plain_text` finds it:
    brackets in there ("$[t_0, T]$") are an interval, not a citation."""
    return [m.span() for m in _MATH_SPAN.finditer(text)]


_GREEK = (
    "alpha α beta β gamma γ delta δ epsilon ε varepsilon ε zeta ζ eta η theta θ vartheta ϑ iota ι"
    " kappa κ lambda λ mu μ nu ν xi ξ pi π varpi ϖ rho ρ varrho ϱ sigma σ varsigma ς tau τ"
    " upsilon υ phi φ varphi φ chi χ psi ψ omega ω Gamma Γ Delta Δ Theta Θ Lambda Λ Xi Ξ Pi Π"
    " Sigma Σ Upsilon Υ Phi Φ Psi Ψ Omega Ω"
)
_SYMBOLS = {
    **dict(zip(_GREEK.split()[::2], _GREEK.split()[1::2], strict=True)),
    "|": "‖", "Vert": "‖", "cdot": "·", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "~",
    "simeq": "≃", "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫", "infty": "∞", "to": "→",
    "rightarrow": "→", "Rightarrow": "⇒", "leftarrow": "←", "gets": "←", "mapsto": "↦",
    "leftrightarrow": "↔", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪",
    "cap": "∩", "forall": "∀", "exists": "∃", "sum": "Σ", "prod": "∏", "int": "∫", "partial": "∂",
    "nabla": "∇", "ell": "ℓ", "star": "⋆", "ast": "*", "circ": "∘", "oplus": "⊕", "otimes": "⊗",
    "top": "⊤", "perp": "⊥", "emptyset": "∅", "varnothing": "∅", "mid": "|", "vert": "|",
    "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋",
    "ldots": "…", "dots": "…", "cdots": "⋯", "sqrt": "√", "neg": "¬", "land": "∧", "lor": "∨",
    "wedge": "∧", "vee": "∨", "dagger": "†", "prime": "′", "%": "%", "$": "$", "&": "&", "#": "#",
    "_": "_", "{": "{", "}": "}", ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ",
    "qquad": " ", "left": "", "right": "", "big": "", "Big": "", "bigl": "", "bigr": "", "Bigl": "",
    "Bigr": "", "displaystyle": "", "limits": "", "intercal": "⊤",
}  # fmt: skip
_DOUBLE_STRUCK = dict(zip("RNZQCEP", "ℝℕℤℚℂ𝔼ℙ", strict=True))
_ACCENTS = {"tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302",
            "bar": "\u0304", "overline": "\u0305", "vec": "\u20d7", "dot": "\u0307"}  # fmt: skip
_SUPERSCRIPT = dict(
    zip("0123456789+-=()abcdefghijklmnoprstuvwxyzT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀ", strict=True)
)
_SUBSCRIPT = dict(zip("0123456789+-=()aeoxhklmnpstijruv", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ", strict=True))
_BRACED = r"\{((?:[^{}]|\{[^{}]*\})*)\}"  # one level of nesting: \frac{a_{i}}{b}
_TOKEN = r"(\\[A-Za-z]+|[A-Za-z0-9])"  # an unbraced argument: "\frac 12", "\mathcal O"
_ARGUMENT = r"\s*(?:" + _BRACED + "|" + _TOKEN + ")"  # two groups: braced, unbraced
_FRAC = re.compile(r"\\(?:[dt]?frac|nicefrac)" + _ARGUMENT + _ARGUMENT)
_SQRT = re.compile(r"\\sqrt(?![A-Za-z])\s*(?:\[([^\[\]]{1,4})\])?" + _ARGUMENT)  # \sqrt[3]{x}: ³√x
_COLORED = re.compile(r"\\(?:textcolor|colorbox)\s*\{[^{}]*\}|\\color\s*\{[^{}]*\}")
# A font around its argument, braced or not ("\mathcal{O}", "\mathcal O", "\boldsymbol\phi": TeX
# takes one token), and the old switches that take none ("{\cal O}").
_FONT = re.compile(
    r"\\(?:boldsymbol|mathbf|mathrm|mathit|mathsf|mathtt|bm|text|textrm|textbf|textit|texttt|textsc"
    r"|textsf|textup|textnormal|emph|operatorname|mathcal|mathscr|mathfrak|mathnormal)(?![A-Za-z])"
    + _ARGUMENT
    + r"|\\(?:cal|bf|rm|it|sf|tt)(?![A-Za-z])\s*"
)
_BLACKBOARD = re.compile(r"\\mathbb\s*\{?([A-Za-z])\}?")
_ACCENT = re.compile(
    r"\\(" + "|".join(_ACCENTS) + r")(?![A-Za-z])\s*(?:\{(\\[A-Za-z]+|[^{}]{1,3})\}|" + _TOKEN + ")"
)
# "d\log(n)" is d times log n: an operator's name keeps a space from what comes before it.
_OPERATOR = re.compile(
    r"(?<=[\w)}\]|])\\(log|ln|exp|min|max|sup|inf|lim|arg|det|sin|cos|tan|sgn|tr|Pr|var|Var)(?![A-Za-z])"
)
_ENDS_IN_COMMAND = re.compile(r"\\[A-Za-z]+$")
# \{ and \} (a set's braces, shown) while the grouping braces are taken out: private-use
# characters, removed from the input first, so corpus text can never be read as one.
_OPEN, _CLOSE = "\ue000", "\ue001"
_SCRIPT = re.compile(r"([\^_])\s*(?:" + _BRACED + r"|(\\[A-Za-z]+|[A-Za-z0-9+\-]))")
_COMMAND = re.compile(r"\\([A-Za-z]+|[|%$&#_{},;:! ])")
_NAMED_SYMBOL = re.compile(
    r"\\(" + "|".join(sorted((k for k in _SYMBOLS if k.isalpha()), key=len, reverse=True)) + r")(?![A-Za-z])"
)


def _script(match: re.Match) -> str:
    """``^{2}`` → ``²``, ``_t`` → ``ₜ``; a script Unicode cannot write stays readable: ``^(1/2)``."""
    mark, body = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    table = _SUPERSCRIPT if mark == "^" else _SUBSCRIPT
    body = _typeset(body)
    if body and all(c in table for c in body):
        return "".join(table[c] for c in body)
    return f"{mark}{body}" if len(body) == 1 or body.isalnum() else f"{mark}({body})"


def math_text(math: str) -> str:
    """LaTeX math as plain Unicode text: ``\\|\\boldsymbol{\\mu}\\|/\\sigma^2`` → ``‖μ‖/σ²``.

    Only what reads unambiguously is rewritten; an unknown command loses its backslash (``\\foo``
    → ``foo``) rather than reaching the terminal as markup.
    """
    math = math.replace(_OPEN, "").replace(_CLOSE, "")
    # "\\|" and "\\alpha": a backslash doubled by a bad escape in the source, not a line break.
    math = re.sub(r"(?<!\\)\\{2,}(?=[A-Za-z|{}])", lambda m: "\\", math)
    math = math.replace("\\{", _OPEN).replace("\\}", _CLOSE)
    return _typeset(math).replace(_OPEN, "{").replace(_CLOSE, "}")


def _typeset(math: str) -> str:
    """:func:`math_text`'s work, set braces still held as ``_OPEN``/``_CLOSE``: a script or a
    fraction's part is typeset by this too, and its set braces must outlive the outer pass's
    removal of grouping braces (``\\mathbb{I}_{\\{y = k\\}}``)."""
    math = _COLORED.sub("", math)  # "\textcolor{red}{x}": x
    for _ in range(3):  # nesting: \frac{\boldsymbol{x}}{2}
        math = _FONT.sub(_font, math)
        math = _FRAC.sub(lambda m: f"{_grouped(_either(m, 1))}/{_grouped(_either(m, 3))}", math)
        math = _SQRT.sub(lambda m: f"{_root_index(m.group(1))}√{_radicand(_either(m, 2))}", math)
    math = _BLACKBOARD.sub(lambda m: _DOUBLE_STRUCK.get(m.group(1), m.group(1)), math)
    math = _ACCENT.sub(lambda m: (m.group(2) or m.group(3)) + _ACCENTS[m.group(1)], math)
    math = _OPERATOR.sub(r" \\\1", math)
    math = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), math)
    math = _SCRIPT.sub(_script, math)
    math = re.sub(r"(?<!\\)[{}]", "", math)
    return unicodedata.normalize("NFC", re.sub(r"(?<=√) (?=\S)", "", math))  # O + tilde → Õ


def _either(match: re.Match, group: int) -> str:
    """A braced argument (``group``) or an unbraced one (the next group)."""
    found = match.group(group)
    return found if found is not None else match.group(group + 1)


def _font(match: re.Match) -> str:
    r"""A font command's argument without the font ("\mathcal{O}" → "O"), kept apart from a
    command just before it ("\tilde\mathcal{O}" → "\tilde{O}", "\tilde\cal O" → "\tilde O",
    not the unknown "\tildeO")."""
    argument = _either(match, 1) or ""
    if not _ENDS_IN_COMMAND.search(match.string, max(0, match.start() - 40), match.start()):
        return argument
    return f"{{{argument}}}" if argument else " "


def _root_index(index: str | None) -> str:
    """A root's index as a raised figure before √ ("³√"), or in brackets when Unicode has none."""
    if not index:
        return ""
    index = _typeset(index).strip()
    return "".join(_SUPERSCRIPT[c] for c in index) if all(c in _SUPERSCRIPT for c in index) else f"[{index}]"


def _radicand(part: str) -> str:
    """What a square root covers: bracketed unless one symbol or a number (√2, √n, √(mn),
    √(m+n)): "√m+n" reads as √m plus n."""
    part = _typeset(part).strip()
    return part if len(part) == 1 or part.isdigit() else f"({part})"


def _grouped(part: str) -> str:
    """A fraction's numerator or denominator, bracketed when it is more than one symbol."""
    part = _typeset(part).strip()
    return f"({part})" if re.search(r"[\s+\-*/·×=]", part) else part


# --- display ---------------------------------------------------------------------------------

# C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the invisible
# bidirectional marks and overrides (U+202E shows what follows reversed).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# A whole escape sequence, not only its ESC: "[31mRED[0m" or "]0;PWNED" left behind is noise in
# an abstract shown as text. CSI (ESC [ or 0x9b … final byte), OSC/DCS/APC/PM strings (ESC ] …
# BEL or ESC \\), and the two-byte ESC sequences.
_ESCAPE_SEQUENCE = re.compile(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
    "|(?:\x1b[\\]P^_X]|[\x90\x9d\x9e\x9f])[^\x07\x1b\x9c]{0,512}(?:\x07|\x1b\\\\|\x9c)"
    "|\x1b[ -/]*[0-~]"
)  # a string sequence only when it ends: a lone 0x9d (mojibake of "”") must not eat the text after it
# What makes Markdown act: escapes, code, emphasis, links and images, HTML, strikethrough. An
# underscore inside a word (a file name) does nothing and stays as it is, readable in the raw file.
_MARKDOWN = re.compile(r"([\\`*\[\]<>!~]|(?<!\w)_|_(?!\w))")


def printable(text: str, instead: str = "") -> str:
    """Text that cannot drive a terminal: escape sequences, control characters and bidirectional
    overrides removed (or each made ``instead``).

    Corpus text is data. An ESC sequence in an abstract would otherwise clear the screen or set the
    window title when shown; ``--json`` keeps the original text.
    """
    return _CONTROLS.sub(instead, _ESCAPE_SEQUENCE.sub(instead, text))


def markdown_literal(text: str) -> str:
    """``text`` as Markdown that shows it literally: no link, image, emphasis or HTML from corpus text."""
    return _MARKDOWN.sub(r"\\\1", printable(text))


def papers_count(n: int, more: bool = False) -> str:
    """ "1 paper", "3 papers", "1 more paper": the counts listings and summaries announce."""
    return f"{n}{' more' if more else ''} paper{'' if n == 1 else 's'}"


def share_vocabulary(n: int) -> str:
    """ "and 1 more that shares some of its vocabulary": the count of a listing's papers beyond
    the likely ones (rag/retrieval/topics.py likely_first), verb in agreement."""
    return f"{n} more that {'shares' if n == 1 else 'share'} some of its vocabulary"


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
# A digit raised after a letter, as markup or Unicode writes it: "$C^3$", "C^{3}", "S²IP".
_RAISED_DIGITS = re.compile(r"(?<=[A-Za-z])(?:\^(?:\{(\d{1,3})\}|(\d{1,3}))|([⁰¹²³⁴⁵⁶⁷⁸⁹]+))")


def indexed_text(text: str) -> str:
    """``text`` with digits raised after a letter written on the line, as a question types them:
    "$C^3$" and "C³" index as "C3". Split at the caret, "C^3" gave BM25 no token at all (one
    letter, one digit), so "Does C3 need training data?" could not find the paper by its name."""
    return _RAISED_DIGITS.sub(lambda m: next(g for g in m.groups() if g).translate(_SCRIPT_DIGITS), text)


_SCRIPT_CHANGE = re.compile(r"(?<=[^\x00-\u024f\s])(?=[\x00-\u024f])|(?<=[\x00-\u024f])(?=[^\x00-\u024f\s])")


def bm25s_module():
    """``import bm25s`` without SciPy, the one way citeline imports it.

    bm25s 0.3 imports ``scipy.sparse`` when it can (~0.09 s, two thirds of its import) only to
    offer a SciPy backend for building an index; its default NumPy backend builds the same matrix
    (the same scores and document ids, checked on ICLR 2024), and loading and querying never need
    SciPy. So SciPy is kept out while bm25s is first imported: every query command starts that
    much sooner. A bm25s that cannot be imported without SciPy is imported as it is."""
    import sys

    if "bm25s" not in sys.modules and "scipy.sparse" not in sys.modules:
        sys.modules["scipy.sparse"] = None  # type: ignore[assignment]  # its import fails: bm25s goes without
        try:
            import bm25s

            return bm25s
        except ImportError:
            sys.modules.pop("bm25s", None)  # half-imported: import it again below, with SciPy
        finally:
            if sys.modules.get("scipy.sparse", 0) is None:
                del sys.modules["scipy.sparse"]
    import bm25s

    return bm25s


@functools.cache
def _index_stopwords() -> frozenset[str]:
    """Words BM25 never indexes, plus ours: a query term from this set has no document frequency."""
    try:
        return STOP_WORDS | frozenset(bm25s_module().stopwords.STOPWORDS_EN)
    except ImportError:
        return STOP_WORDS


@functools.lru_cache(maxsize=16)
def stems_of(words: frozenset[str]) -> frozenset[str]:
    """The stems of a word list (:data:`STOP_WORDS`, :data:`RESEARCH_FILLER`), for comparing it
    with stemmed text ("performance" is "perform" there). Cached: the lists are constants."""
    return frozenset(stem_terms(" ".join(sorted(words)), frozenset()))


def _content_words(text: str) -> list[str]:
    """The words BM25 indexes, lower-cased, minus stop words, in order."""
    stop = _index_stopwords()
    # "AdaSCALE在近OOD上" is three words, not one
    text = _SCRIPT_CHANGE.sub(" ", plain_text(indexed_text(text)))
    return [w for w in (m.lower() for m in _LEXICAL_TOKEN.findall(text)) if w not in stop]


def lexical_sequence(text: str) -> list[str]:
    """Stemmed content terms exactly as the BM25 index tokenizes text (so their document
    frequencies can be looked up), minus stop words, in order: phrases stay adjacent."""
    words = _content_words(text)
    stem = stemmer()
    return stem.stemWords(words) if stem else words


# The stems a hyphen joins onto a name to say how a thing is built ("LLM-based agents",
# "data-driven control", "LLM-powered tools"): the phrase reads through them.
_CONNECTORS = frozenset(("base", "driven", "power"))


def has_phrase(phrase: list[str], sequence: list[str]) -> bool:
    """``phrase`` (two terms or more) occurs in ``sequence`` as a run: "reward model" in "process
    reward models", not in "reward distributions of the model"; "LLM agents" in "LLM-based
    agents" too (a connector between its terms is read through, unless the phrase has it: "base
    model" is not "model")."""
    n = len(phrase)
    if n < 2:
        return False
    if _CONNECTORS.isdisjoint(sequence) or not _CONNECTORS.isdisjoint(phrase):
        return any(sequence[i : i + n] == phrase for i in range(len(sequence) - n + 1))
    read = [t for t in sequence if t not in _CONNECTORS]
    return any(read[i : i + n] == phrase for i in range(len(read) - n + 1))


def lexical_words(text: str) -> list[tuple[str, str]]:
    """(word, stem) for each term of :func:`lexical_sequence`: a phrase found by its stems
    ("imit learn") is shown to a reader as it was written ("imitation learning")."""
    words = _content_words(text)
    stem = stemmer()
    return list(zip(words, stem.stemWords(words) if stem else words, strict=True))


def stem_written(term: str, written: set[str]) -> bool:
    """``term`` (a stem) or a word sharing its start is among ``written`` stems ("embed" is
    stemmed "emb", "embedding" "embed"; "detector" and "detect")."""
    return term in written or any(w.startswith(term) or term.startswith(w) for w in written if len(w) >= 4)


def word_written(word: str, written: set[str]) -> bool:
    """``word`` (a capitalised word: "Transformers", "Markov") is among ``written`` stems in some
    form ("transformer", "Markovian"): :func:`stem_written` of its stem."""
    return stem_written(next(iter(stem_terms(word, frozenset())), word.lower()), written)


def lexical_terms(text: str) -> list[str]:
    """:func:`lexical_sequence` with repeats dropped (order of first use kept)."""
    return list(dict.fromkeys(lexical_sequence(text)))


# --- names ---------------------------------------------------------------------------------
# A token's shape can say it is a name before any stemmer sees it: "TraCeS" stems to "trace", a
# common word, but its inner capitals make it a coined name, and so do digits or symbols inside
# (DB-KSVD, C^3, S²IP, GPT-5) and all capitals (SOPE). Such names match as names: whole, with
# their case, never through the English word their letters happen to spell.

NAME_PATTERN = r"[^\W_](?:[\w^'’+\-]*[^\W_])?"  # one token as a name is written: DB-KSVD, C^3, GPT-4o
_NAME_TOKEN = re.compile(NAME_PATTERN)
_SCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉", "01234567890123456789")


_POSSESSIVE = re.compile(r"['’]s$")


def canonical_name(token: str) -> str:
    """A name as written in any markup: ``$C^3$``, ``C^{3}`` and ``C³`` are all ``C3``; and in
    the possessive, the name: a draft's "GCG's suffix" names the paper's "GCG"."""
    bare = re.sub(r"[\\${}^*`]", "", token.translate(_SCRIPT_DIGITS))
    return _POSSESSIVE.sub("", bare).strip("'’-+")


def acronym_singular(name: str) -> str:
    """An acronym's plural is the acronym: "LLMs" is "LLM", "SAEs" is "SAE"; other names unchanged."""
    return name[:-1] if len(name) > 2 and name.endswith("s") and name[:-1].isupper() else name


def is_coined(token: str) -> bool:
    """Shaped like a coined name: a capital after a lower-case letter or inside (TraCeS, AdaSCALE,
    PlugGuard), letters with digits (GPT-5, d2, 3DGS, S²IP), a symbol inside (C^3), or all capitals
    (SOPE, MMLU). The plural of an acronym (LLMs, SAEs) is the acronym, not a new name."""
    core = acronym_singular(token)
    letters = [c for c in core if c.isalpha()]
    if not letters:
        return False
    upper_inside = any(c.isupper() for c in core[1:])
    return (
        (upper_inside and any(c.islower() for c in core) and core is token)
        or (any(c.isdigit() for c in token.translate(_SCRIPT_DIGITS)) and len(token) >= 2)
        or "^" in token
        or (len(letters) >= 2 and core.isupper())
    )


def coined_names(text: str) -> set[str]:
    """The coined names of ``text`` (see :func:`is_coined`), in canonical form with their case."""
    return {canonical_name(t) for t in _NAME_TOKEN.findall(plain_text(text)) if is_coined(t)} - {""}


# A capitalised word inside a sentence: a model, method, dataset or person's name ("Mistral",
# "Monte Carlo", "Gaussian"), though not shaped like a coined one.
# Not after what starts a sentence or a clause of its own (". ", "; ", "— ", "i.e., ", an opening
# quote or bracket), nor an author: "Wang et al.", "Lei and Ying", "Smith (2024)".
_PROPER = re.compile(
    r"\b[A-Z][a-z]{2,}\b"
    r"(?!\s+(?:et\s+al|and\s+colleagues|and\s+[A-Z][a-z]+)|\s*\((?:19|20)\d\d|'s\b|’s\b)"
)
# What ends just before a word that starts a sentence or a clause of its own.
_CLAUSE_START = re.compile(r"(?:^|[.:;!?—–(\[\"“‘']|e\.g\.,|i\.e\.,)\s*$")
_AUTHOR_BEFORE = re.compile(r"\b[A-Z][a-z]+\s+(?:and|&)\s+$")
# Capitalised words that name a part of a document or a date, never a model, method or dataset.
STRUCTURE_WORDS = frozenset(
    "table tables figure figures fig appendix section sections equation equations eq experiment"
    " experiments abstract summary introduction conclusion conclusions chapter page step steps"
    " january february march april may june july august september october november december"
    " monday tuesday wednesday thursday friday saturday sunday".split()
)
_LONG_WORD = re.compile(r"\b[A-Za-z]{4,}\b")


def proper_names(text: str) -> list[str]:
    """The capitalised words inside ``text`` (one sentence; not its first word, nor the first of
    a clause set off by a semicolon or a dash), none in a text written in title case ("Methods to
    Detect When a Network Is Wrong"), where capitals name nothing, nor an author's name."""
    words = _LONG_WORD.findall(text)
    if sum(w[0].isupper() for w in words) * 2 >= len(words):
        return []
    body = text.lstrip(" \t\"“‘'([*_-•")
    # Clause starts and authors are looked for only just before the word: over the whole text
    # before it, a long draft took quadratic time (an 848 KB one, 106 s).
    return list(
        dict.fromkeys(
            m.group(0)
            for m in _PROPER.finditer(body)
            if m.start() > 0
            and m.group(0).lower() not in STRUCTURE_WORDS
            and not _CLAUSE_START.search(body, max(0, m.start() - 12), m.start())
            and not _AUTHOR_BEFORE.search(body, max(0, m.start() - 80), m.start())
        )
    )


_NOT_NAMES = STOP_WORDS | STRUCTURE_WORDS  # capitalised, these still name nothing
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#+)\s+", re.MULTILINE)


def line_sentences(text: str) -> list[str]:
    """The sentences of ``text`` read line by line, list markers and heading marks dropped: a
    reply's bullet items ("- Higher accuracy") and headings each start a sentence of their own."""
    return [s for line in _LIST_MARK.sub("", text).splitlines() for s in split_sentences(line)]


def capitalised_names(text: str) -> list[str]:
    """The capitalised words of ``text`` that name something, for deciding whether a reply names
    what was asked (where missing a name means declining, so none of :func:`proper_names`'
    guards that drop real names): each line and sentence read on its own (a bullet list's items
    too), every capitalised word inside a sentence ("fine-tunes Mistral and Gemma", "The judge is
    Llama"), none that starts a sentence or clause ("Experiments show" names nothing); not stop
    words, nor :data:`STRUCTURE_WORDS` ("Table", "Figure", months)."""
    found = [
        match.group(0)
        for sentence in line_sentences(text)
        for match in re.finditer(r"\b[A-Z][a-z]{2,}\b", sentence)
        if match.group(0).lower() not in _NOT_NAMES and not _CLAUSE_START.search(sentence[: match.start()])
    ]
    return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=4096)
def names_written(text: str) -> frozenset[str]:
    """Every token of ``text`` as a name would be written (canonical, case kept), with the parts
    of hyphenated ones: a question's "TopK" is in a paper that writes "dead-by-TopK".

    Cached: relevance asks it of the same abstracts once per name of the question and again per
    paper judged (0.36 of a 0.8 s ``ask --llm none`` went here before)."""
    found: set[str] = set()
    for token in _NAME_TOKEN.findall(plain_text(text)):
        found.add(canonical_name(token))
        found.update(canonical_name(p) for p in token.split("-"))
    return frozenset(found - {""})


# Lower-case words hyphened onto the end of a name that say how it is used, not which one it is:
# "-trained", "-based", "-style", "-level". Counted over the corpora's abstracts and TL;DRs, the other
# tails are the name's own: a size or variant ("BERT-base", "Llama-2-chat"), or a term
# ("Q-learning", "NP-hard", "KL-divergence", "L2-norm"), so they stay.
_MODIFIED = re.compile(
    r"(?:-(?:[a-z]{2,}ed|driven|like|style|type|aware|specific|friendly|free|only|level|scale|wise"
    r"|agnostic|centric))+$"
)


def has_name(text: str, name: str) -> bool:
    """``text`` writes ``name`` with its case (canonical forms compared; see :func:`names_written`),
    or the name a word saying how it is used is hyphened onto: "RLHF-trained", "GPT-4-based" and
    "LoRA-tuned" name RLHF, GPT-4 and LoRA. A word in front stays part of the name ("x-LSTM" is
    no LSTM), and so does a size, variant or term after it ("BERT-base", "Q-learning")."""
    written = names_written(text)
    return name in written or _unmodified(name) in written


@functools.lru_cache(maxsize=1024)
def _unmodified(name: str) -> str:
    """``name`` without the words :data:`_MODIFIED` drops; cached, as :func:`has_name` is asked
    of every paper judged for the same few names."""
    return _MODIFIED.sub("", name)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# Counts a paper may write in words ("six domains", "three commercial agents"). Not "one": it is a
# pronoun far more often than a count ("one of the", "the one that").
_SPELLED = {word: str(n) for n, word in enumerate(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
    " seventeen eighteen nineteen twenty".split(), start=2)}  # fmt: skip
_SPELLED_WORD = re.compile(rf"\b(?:{'|'.join(_SPELLED)})\b", re.I)


def _number(written: str) -> str:
    """One number as digits: thousands separators dropped ("27,216"), a decimal comma read as a
    point ("14,94", as German and French write 14.94)."""
    if _THOUSANDS.fullmatch(written):
        return written.replace(",", "")
    return written.replace(",", ".")


def numbers_in(text: str, spelled: bool = False) -> set[str]:
    """Every number in ``text`` as digits: the facts small models invent. With ``spelled``, also
    the counts it writes in words ("six" → "6"): for the side that is checked against ("across its
    6 domains" is in a paper that says "six domains"), never for the claim (a reply's "the two
    papers" is not a figure to find)."""
    found = {_number(n) for n in _NUMBER.findall(text)}
    if spelled:
        found |= {_SPELLED[w.lower()] for w in _SPELLED_WORD.findall(text)}
        found |= _scaled(found, text)
    return found


_SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*([kKM])\b")
_SCALES = {"k": 1_000, "K": 1_000, "M": 1_000_000}


def _scaled(found: set[str], text: str) -> set[str]:
    """The other way to write each round figure: "100K" as 100000, "100,000" as 100 (of 100K)."""
    out = set()
    for digits, scale in _SCALED.findall(text):
        value = float(digits) * _SCALES[scale]
        if value.is_integer():
            out.add(str(int(value)))
    for number in found:
        if number.isdigit() and int(number) >= 1000:
            for factor in (1_000, 1_000_000):
                if int(number) % factor == 0:
                    out.add(str(int(number) // factor))
    return out


# A figure of a question that does not constrain its answer: a year ("the ICML 2026 paper"), an
# order ("the 2nd stage"), a bound the answer is compared with ("by more than 20%", "at least
# 10%", "about 1000 images"), a figure a yes/no question puts to the paper ("Does it reach 90%
# accuracy?"), or the size of the reply itself ("3 papers", "in 2 sentences").
_BOUND_BEFORE = re.compile(
    r"(?:\b(?:(?:more|less|fewer|greater|higher|lower|better|worse|larger|smaller|faster|slower)\s+than"
    r"|at\s+(?:least|most)|up\s+to|exceed\w*|by|about|around|approximately|roughly|nearly|almost"
    r"|within|than)|[<>≤≥~≈]=?|=>|=<)\s*[-$]?\s*$",
    re.I,
)
# "over 70%", "above 90 in ...", "on over 10 benchmarks" and, in a yes/no question, "trained in
# under 10 hours?" are bounds; "What AUC does it reach over 5 agent domains?" sets a count.
_OVER = re.compile(
    r"(?P<preposition>\b(?:on|in|against|with|for|from|to|across|at|of|by)\s+)?"
    r"\b(?P<word>over|under|above|below|beyond)\s*[-$]?\s*$",
    re.I,
)
_SHARE = r"%|x\b|×|times\b|percent\b|points\b|pp\b"  # a share or a factor, not a count of things
_SHARE_AFTER = re.compile(rf"\s*(?:{_SHARE})", re.I)
_UNIT_AFTER = re.compile(rf"\s*(?:{_SHARE})?", re.I)
_NOT_COUNTED = re.compile(
    rf"\s*(?:{_SHARE}|[?.!,;)]|$|(?:in|on|for|at|with|when|while|and|or|of|than|across|compared|to)\b)",
    re.I,
)
# A figure that is part of a name or a compound ("than 3DGS", "by 4-bit quantization"): no bound.
_GLUED_AFTER = re.compile(r"(?![xX×kKMB]\b)[A-Za-z]|-[A-Za-z]")
# The second figure of a range after a bound ("by 30-50%", "between 10 and 20").
_RANGE_BEFORE = re.compile(r"\d\s*(?:-|–|to|and)\s*$")
# The field's own acronyms name no particular method, model or benchmark (a question's "LLMs",
# a draft's "SGD"): never a name to look for in a paper.
FIELD_ACRONYMS = frozenset(
    "AI ML DL RL RLHF SFT ICL CoT NLP CV LM LLM MLLM VLM NN DNN CNN RNN GNN GAN VAE SSL QA OOD SGD"
    " GPU CPU TPU API".split()
)
# The verbs a yes/no question starts with; as words, they assert nothing of their own.
AUXILIARIES = frozenset("is are was were does do did can could has have had will would".split())
MODALS = frozenset("should shall may might must".split())
# Words a question is built with rather than about (auxiliaries, modals, particles, light verbs,
# in the forms the stemmer folds: "gets", "makes", not "taken"): a paper's sentence answers "Does
# X have to retrain?" or "so that one can pick" without "have" or "so" in it. Not "use" or
# "order": "tool use", "second-order".
QUESTION_GRAMMAR = AUXILIARIES | MODALS | frozenset("so up them instead get take make give".split())


def is_field_acronym(name: str) -> bool:
    """``name`` is one of the field's acronyms, in the plural or before a hyphen too ("LLMs",
    "CoTs", "LLM-based")."""
    head = name.split("-")[0]
    return head in FIELD_ACRONYMS or (head.endswith("s") and head[:-1] in FIELD_ACRONYMS)


# A yes/no question ("Does it reach 90%?"): its figures are put to the paper, not settings.
YES_NO = re.compile(rf"^\s*(?:{'|'.join(sorted(AUXILIARIES))})\b", re.I)
_ORDINAL_AFTER = re.compile(r"(?:st|nd|rd|th)\b")
# "the two components", "which two models", "what 3 datasets": a count that describes the answer
# (the paper may list them without the number), not a setting it is asked about.
_DESCRIBING_BEFORE = re.compile(r"\b(?:the|which|what|its|their|these|those|both)\s+$", re.I)
_REPLY_SIZE_AFTER = re.compile(
    r"\s*(?:papers?|works?|studies|articles?|sentences?|words?|bullets?|bullet\s+points|examples?"
    r"|items?|references?|citations?|paragraphs?|lines?)\b",
    re.I,
)
YEAR = re.compile(r"(?:19|20)\d\d")  # a year (a venue's, a question's): not a setting
# "2048 tokens" is no year ("the 2024 paper", "in 2024 is" are).
_PLURAL_AFTER = re.compile(r"\s+(?!(?:is|was|has|does|this|its|as)\b)[A-Za-z]+[^\Ws]s\b", re.I)
_FIGURE = re.compile(rf"{_NUMBER.pattern}|{_SPELLED_WORD.pattern}", re.I)


def _question_figures(text: str) -> Iterator[tuple[re.Match[str], str, str, int]]:
    """Each figure of ``text`` (plain; in digits or words) as digits, with its part in the
    question: ``setting`` (the answer must be about it: "from 20 generators", "at 4-bit"),
    ``bound`` (the answer is compared with it), or ``other`` (a year, an order, the reply's size,
    a count describing the answer such as "the two components", or a count in words, which
    questions write loosely: "between two distributions"); and where its words start."""
    yes_no = bool(YES_NO.match(text))
    previous_bound = False
    for match in _FIGURE.finditer(text):
        before, after = text[max(0, match.start() - 40) : match.start()], text[match.end() :]
        offset = match.start() - len(before)
        spelled = match.group().lower() in _SPELLED
        number = _SPELLED[match.group().lower()] if spelled else _number(match.group())
        bound_start = None
        if not _GLUED_AFTER.match(after):
            if found := _BOUND_BEFORE.search(before):
                bound_start = offset + found.start()
            elif (over := _OVER.search(before)) and (
                over.group("preposition") or yes_no or _NOT_COUNTED.match(after)
            ):
                bound_start = offset + over.start("word")
            elif previous_bound and (joined := _RANGE_BEFORE.search(before)):
                bound_start = offset + joined.start() + 1
            elif yes_no and not spelled and _SHARE_AFTER.match(after):
                bound_start = match.start()  # "Does it reach 90% accuracy?": put to the paper
        previous_bound = bound_start is not None
        if bound_start is not None:
            yield match, number, "bound", bound_start
        elif (
            spelled
            or _ORDINAL_AFTER.match(after)
            or _REPLY_SIZE_AFTER.match(after)
            or (_DESCRIBING_BEFORE.search(before) and after[:1].isspace())
            or (YEAR.fullmatch(number) and not _PLURAL_AFTER.match(after) and not after.startswith("%"))
        ):
            yield match, number, "other", match.start()
        else:
            yield match, number, "setting", match.start()


# A hyphenated name whose last part is a size or version (DINOv2-L, Llama-3-8B, ImageNet-1k,
# GPT-4o, T5-XXL) and whose stem is a name: a digit, an inner capital or all capitals (not
# "Multi-Agent", "Non-IID", "LLM-based", "Chain-of-Thought").
_VARIANT_NAME = re.compile(r"(?<![\w\-])[A-Za-z][\w.]*(?:-[\w.]+)+")
_VERSION_PART = re.compile(r"[A-Za-z]{0,2}\d[\w.]*|X{0,2}[SMLBH]|XL|mini|tiny|small|base|large|huge", re.I)


def _variants(text: str) -> dict[str, tuple[str, str]]:
    """The variant names in ``text``: the name → (its stem, the whole), both folded."""
    found = {}
    for name in _VARIANT_NAME.findall(text):
        name = name.rstrip(".")
        stem, _, last = name.rpartition("-")
        named = (
            any(c.isdigit() for c in stem)
            or any(c.isupper() for c in stem[1:])
            or (len(stem) > 1 and stem.isupper())
        )
        if stem and named and _VERSION_PART.fullmatch(last):
            found[name] = (_folded(stem), _folded(name))
    return found


def _folded(name: str) -> str:
    return re.sub(r"[\s\-_]", "", name.casefold())


def unwritten_variants(question: str, text: str) -> list[str]:
    """The variants ``question`` names that ``text`` writes only a sibling of: "DINOv2-L" asked
    where the text has DINOv2-S and DINOv2-B, "Llama-3-8B" where it has Llama-3-70B, "GPT-4o"
    where it has GPT-4. The sibling's figures then describe another model or setting. A name the
    text writes in any spelling ("ResNet50" for "ResNet-50"; also with a suffix, "Qwen2.5-7B-
    Instruct" for "Qwen2.5-7B") or none of whose siblings it writes is not one."""
    plain = plain_text(text)
    folded_text = _folded(plain)
    written = _variants(plain)
    out = []
    for name, (stem, whole) in _variants(plain_text(question)).items():
        if whole in folded_text:
            continue
        if any(other_stem == stem and other != whole for other_stem, other in written.values()):
            out.append(name)
    return out


def asked_figures(question: str) -> set[str]:
    """The figures of ``question`` that its answer must be about, as digits: a paper that writes
    none of them (in digits or words) does not answer it. "How many videos from 20 generators ..."
    asks about 20 generators; "by more than 50%?", "the ICML 2026 paper", "the 2nd stage", "name
    3 papers", "what two components" and "Does it reach 90% accuracy?" do not make 50, 2026, 2,
    3 or 90 a condition on the paper."""
    figures = _question_figures(plain_text(question))
    return {number for _, number, part, _ in figures if part == "setting"}


def has_bound(question: str) -> bool:
    """Does ``question`` compare its answer with a figure ("by more than 50%?", "at least 10",
    "Does it reach 90%?")? Then it is answered by the figure itself, not by a yes that repeats it."""
    return any(part == "bound" for _, _, part, _ in _question_figures(plain_text(question)))


def without_bounds(question: str) -> str:
    """``question`` without the bounds its answer is compared with: "Does SVGT reduce harmful
    scores by more than 50%?" asks about SVGT reducing harmful scores, and a paper that says
    "by over 70%" covers all of it (the words "more than 50%" are not what it must share)."""
    text = plain_text(question)
    cuts = [
        (start, _UNIT_AFTER.match(text, match.end()).end())
        for match, _, part, start in _question_figures(text)
        if part == "bound"
    ]
    for start, end in reversed(cuts):
        text = text[:start] + " " + text[end:]
    return " ".join(text.split())


# --- model output -----------------------------------------------------------------------------

# A small model sometimes falls into a loop ("0.0000000…", "[000-02] [000-02] …", a sentence again
# and again) and writes it to the answer's length limit: ~85 ms a token on 2 cores, 30 s of
# nothing. A unit of up to 32 characters repeated at least three times over LOOP_CHARS characters
# is a loop: prose, figures and lists of keys never repeat one verbatim that long. A rule of a
# Markdown table or a horizontal line (only ``-|:=_*`` and spaces) is not one; blank lines are.
LOOP_CHARS = 64
_LOOP = re.compile(r"(.{1,32}?)\1{2,}$", re.S)
_RULE = re.compile(r"[-|:=_* ]*")


def loop_start(text: str) -> int | None:
    """Where a loop at the end of ``text`` begins (its first unit kept), or None if none does."""
    tail_start = max(0, len(text) - 3 * LOOP_CHARS)
    match = _LOOP.search(text, tail_start)
    if match is None or match.end() - match.start() < LOOP_CHARS or _RULE.fullmatch(match.group(1)):
        return None
    return match.start() + len(match.group(1))


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
    if not words or not numbers_in(claim) <= numbers_in(evidence, spelled=True):
        return False
    return len(words & set(stem_terms(evidence, STOP_WORDS, min_length=3))) / len(words) >= threshold


_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9]{0,8}?[A-Z0-9])(s?)\s*\)")
_WORDS_BEFORE = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


_CAPITALS = re.compile(r"\b([A-Z][A-Z0-9]{2,5})s?\b")  # SFT, SGD, ASGD, MLLMs: 3-6 letters


# Words the field writes closed that its acronyms read as two: "multilayer perceptron" is an MLP,
# "variational autoencoder" a VAE, "generative pretrained transformer" a GPT.
_CLOSED_COMPOUNDS = {
    "multilayer": "ml", "autoencoder": "ae", "autoencoders": "ae", "autoregressive": "ar",
    "hyperparameter": "hp", "hyperparameters": "hp", "pretrained": "pt", "pretraining": "pt",
}  # fmt: skip


def initials(words: list[str]) -> str:
    """First letters of ``words`` and of each hyphenated part: "supervised fine-tuning" → "sft";
    both of a closed compound's ("multilayer perceptrons" → "mlp")."""
    return "".join(_CLOSED_COMPOUNDS.get(p, p[0]) for w in words for p in w.lower().split("-") if p)


def _spells(words: list[str], acronyms: set[str]) -> bool:
    """``words`` are a run of content words (one hyphenated word is a run of its parts:
    "out-of-distribution") whose initials are one of ``acronyms``. A function word gives no
    letter: "the shortest path" is no TSP, "a simple regularizer" no ASR."""
    if len(words) == 1 and "-" not in words[0]:
        return False
    return not any(w.lower() in STOP_WORDS for w in words) and initials(words) in acronyms


def acronym_matches(question: str, text: str) -> set[str]:
    """The question's terms that ``text`` writes in the other form: an acronym of three letters or
    more whose letters start consecutive content words of the text ("SGD" for "stochastic
    gradient descent"), or content words of the question whose initials are an acronym the text
    writes ("supervised fine-tuning" for "SFT"). A paper and a question often name one thing in
    its two forms."""
    found: set[str] = set()
    written_as = {m.group(1).lower(): m.group(0) for m in _CAPITALS.finditer(question)}  # "mlp": "MLPs"
    # Most texts have no run of words starting with the letters: one regex search says so (loosely:
    # a closed compound gives two letters, "multilayer perceptron"; _spells decides).
    asked = {a for a in written_as if re.search(r"\b" + r"\w*[\s-]*".join(a), text, re.I)}
    if asked:  # the question's acronym, spelled out by the text
        for run in _runs(text):
            if _spells(run, asked):  # the acronym as the question writes it: "MLPs" too
                found.update(lexical_terms(written_as[initials(run)]))
    written = {m.group(1).lower() for m in _CAPITALS.finditer(text)}
    if written:  # the question's words, an acronym the text writes
        found.update(
            t
            for run in _runs(plain_text(question))
            if _spells(run, written)
            for t in lexical_terms(" ".join(run))
        )
    return found


def _runs(text: str, longest: int = 6) -> Iterator[list[str]]:
    """Every run of one to ``longest`` consecutive words of ``text`` (hyphenated words whole)."""
    words = _WORDS_BEFORE.findall(text)
    for start in range(len(words)):
        for end in range(start + 1, min(start + longest, len(words)) + 1):
            yield words[start:end]


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
                spelled = list(initials(words[start:]))
                if spelled == letters:
                    expansion = " ".join(words[start:]).lower()
                    counts.setdefault(match.group(1).lower(), Counter())[expansion] += 1
                    break
                if len(spelled) > len(letters):
                    break
    return {acronym: found.most_common(1)[0] for acronym, found in counts.items()}


# --- spelling --------------------------------------------------------------------------------


def one_edit(word: str) -> list[str]:
    """Every word one letter away from ``word``: two swapped, one added, dropped or changed, in
    that order, the likelier typos first ("contrastve" is "contrastive" before "contraste")."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return [
        *(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1),
        *(a + c + b for a, b in splits for c in string.ascii_lowercase),
        *(a + b[1:] for a, b in splits if b),
        *(a + c + b[1:] for a, b in splits if b for c in string.ascii_lowercase if c != b[0]),
    ]


def is_english_word(word: str) -> bool:
    """``word`` is in pyspellchecker's English word list (160k words, read in ~0.2 s, once)."""
    return bool(_english_words().known([word]))


@functools.cache
def _english_words():
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1)
