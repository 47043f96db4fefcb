"""Every paper on a topic: "Which papers work on X?", ``summarize X``.

Papers on a subfield mostly use the subfield's vocabulary, not its name: an interpretability paper
talks about probing, attributions and circuits; a drug-discovery paper about molecules, ligands and
binding. Keeping only papers that repeat the topic's words (the old rule) found under half of a
conference's subfield. So selection learns the subfield from the collection at query time:

1. **Core**: the papers that are confidently on the topic: its words as a phrase (a one-word
   topic's word when it is in at most a tenth of the papers, or ten), a rare topic term, or most of its
   IDF-weighted terms with a dense match well above the collection's own level (robust z-score).
   Acronyms are spelled out first, as the collection defines them ("(RL)") or, when it defines
   one rarely, as the field writes it (:data:`GLOSSARY`). In a conference, a core too small to
   learn from (under ``topic_core_least`` papers: few papers write "deep learning theory") is
   topped up with the topic's strongest dense matches (as near it as the median paper naming
   it, so a niche topic is not padded). In a short list (the bundled 57), a core under
   ``topic_min_core_small`` is listed with the dense matches nearer the topic than every paper
   naming it and near one of them ("embed watermarks": one of four watermarking papers says it
   so). A rare word of the topic makes a core paper there only with more of the topic in it
   (see :func:`score_papers`). A topic no paper names has no
   core, and nothing is selected (a listing then abstains), unless a paper is a strong dense match
   on its own.
2. **Neighbourhood**: every paper of the collection (the paper table, one unit vector per paper)
   is scored by its dense similarity to the topic, its mean similarity to its nearest core papers
   (a subfield has several modes — GANs, VAEs, flows — so neighbours, not a centroid), its
   coverage of the topic's terms, a phrase match, and its use of the core's vocabulary (the
   words and word pairs most over-represented in the core) and, in a conference, its position
   along the direction separating the core from the collection (:func:`core_direction`, a linear
   discriminant learned at query time). Similarities are z-scored against
   the collection, so the weights mean the same in a 57-paper list and a 3,000-paper conference.
   With a model configured, the terms it names for the subfield (``expansions``) add core papers
   too: those using a term whose papers are, at the median, clearly near the topic.
3. **Where to stop** comes from the topic's own scores: every paper scoring above Tukey's lower
   fence of the core's scores (1.5 interquartile ranges below its first quartile) is on the topic.
   A tight subfield stops early, a broad one late; no fixed count. In a conference (300 papers or
   more), a paper scoring at least ``topic_floor_share`` of the core's first quartile is on the
   topic even where the fence is higher (scores are sums of robust z-scores, 0 for the typical
   paper: a tight core's fence stopped just under it, before papers matching the topic nearly as
   well), and three guards keep a
   diluted core from taking the whole collection: a paper that names the topic must also be
   nearer to it than the median paper to be core, so must a selected paper, and no topic takes
   more than a quarter of the papers.

The numbers (the weights, thresholds and fence above) are settings (``topic_*``,
:class:`rag.settings.TopicSettings`, passed down as ``tuning``); they were chosen on the subfield
benchmark's dev conferences (ICLR 2018/2020/2022, ``eval/subfields-dev.jsonl``); the test
conferences (ICLR 2017/2021/2023) are report-only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from rag.text import STOP_WORDS, acronym_singular, acronyms_in, coined_names, has_phrase, lexical_sequence

if TYPE_CHECKING:
    import numpy as np

    from rag.index.embeddings import Embedder
    from rag.records import Hit
    from rag.settings import TopicSettings


@dataclass
class TopicSelection:
    """The papers on a topic, best first, and how the selection was made."""

    hits: list[Hit]
    core: int = 0  # papers confidently on the topic, from which its vocabulary was learned
    candidates: int = 0  # papers judged (the collection, after venue/year filters)
    vectors: dict = field(default_factory=dict)  # paper id → unit vector, for grouping into themes
    likely: int | None = None  # the first this many hits are likely on the topic (None: all of them)

    @property
    def total(self) -> int:
        """How many papers the topic holds."""
        return len(self.hits)


def since_recent(selection: TopicSelection) -> tuple[TopicSelection, str]:
    """The selection's papers from the two latest years its papers span, in the same order (how
    many of them are likely counted again), and a note saying which years ("from 2022–2023, the
    latest here"). Unchanged, and no note, when they span two years or fewer (one conference);
    when no paper has a year, it says so. The years are the selection's own, so a venue or a
    filter that leaves older papers keeps their latest ones."""
    years = sorted({int(hit.paper.year) for hit in selection.hits if hit.paper.year})
    if len(years) <= 2:
        return selection, "" if years or not selection.hits else "no paper here records a year"
    first, latest = years[-2], years[-1]
    kept = [(i, hit) for i, hit in enumerate(selection.hits) if int(hit.paper.year or 0) >= first]
    likely = None if selection.likely is None else sum(i < selection.likely for i, _ in kept)
    recent = replace(selection, hits=[hit for _, hit in kept], likely=likely)
    return recent, f"from {first}–{latest}, the latest here"


# A one-word part ending like a noun is a topic of its own: "pruning, quantization and lottery
# tickets" is not about "pruning tickets". Modifiers (distributed, federated, deep) borrow the head.
_NOUN = re.compile(r"(?:ing|tion|sion|ment|ness|ity|ics)$", re.I)


# A parenthesis with more of the phrase after it: "worst-case (robust) optimization" (the word
# before it, the aside, and the head after it, up to the next separator).
_INNER_ASIDE = re.compile(
    r"(?:(?P<before>[\w-]+)\s*|^\s*)\((?P<inner>[^(),;]*)\)\s+(?!(?:and|or)\b)"
    r"(?P<head>[^(),;]+?)(?=\s*(?:[,;(]|\band\b|\bor\b|$))"
)
# An aside that only gives examples or says it again ("(e.g. DDPM)", "(i.e. …)") modifies nothing.
# (Nor one of function words only: "learning (in) games".)
_EXAMPLES = re.compile(r"^(?:e\.?g|i\.?e|cf|such as|like|see)\b", re.I)


def topic_parts(topic: str) -> list[str]:
    """The topic and its alternatives: "pruning and quantization" → also "pruning", "quantization";
    "distributed or federated learning" → also "distributed learning" (a one-word part borrows the
    last part's head noun), "federated learning"; "model compression (pruning)" → also "model
    compression", "pruning". A paper on either part can be a core paper; the whole topic's meaning
    still ranks them.

    A parenthesis inside the phrase is an aside of it, not a part of its own: an acronym the
    words before it spell is left out ("graph neural networks (GNNs) for molecules" is one part),
    a word or two is another modifier of the same head ("worst-case (robust) optimization" → also
    "worst-case optimization", "robust optimization"; alone, "optimization" was a part, and
    listed most of a conference), and in front, an optional one ("(robust) RL": "robust RL", "RL")."""
    defined = acronyms_in([topic])

    def aside(match: re.Match[str]) -> str:
        before, inner, head = match.group("before"), match.group("inner").strip(), match.group("head")
        words = inner.split()
        if _EXAMPLES.match(inner):  # "(e.g. DDPM)": left out
            return f"{before or ''} {head}"
        if not any(w.lower() not in STOP_WORDS for w in words):  # "learning (in) games": read through
            return f"{before or ''} {inner} {head}"
        if before is None or before.lower() in ("and", "or"):  # "(robust) RL": optional
            front = f"{before} " if before else ""
            return f"{front}{inner} {head} or {head}" if len(words) <= 2 else match.group(0)
        if acronym_singular(inner).lower() in defined:
            return f"{before} {head}"
        if 0 < len(inner.split()) <= 2:
            return f"{before} {head} or {inner} {head}"
        return match.group(0)

    text = re.sub(r"[()\[\]]", " , ", _INNER_ASIDE.sub(aside, topic))
    parts = [p.strip() for p in re.split(r"\s*(?:,|;|/|\band\b|\bor\b|&)\s*", text) if p.strip()]
    head = parts[-1].split()[1:] if len(parts) > 1 else []
    parts = [
        f"{p} {' '.join(head)}" if len(p.split()) == 1 and head and not _NOUN.search(p) else p for p in parts
    ]
    whole = " ".join(topic.split())
    return list(dict.fromkeys([whole, *parts]))


def _robust_z(values: np.ndarray) -> np.ndarray:
    import numpy as np

    median = float(np.median(values))
    spread = float(np.median(np.abs(values - median))) * 1.4826
    if spread < 1e-6:  # most papers score alike (a small list): the standard deviation, then none
        spread = float(np.std(values)) or 1.0
    return (values - median) / spread


def _with_pairs(terms: list[str]) -> set[str]:
    """A paper's stemmed words and adjacent word pairs ("graph neural", "neural network")."""
    return set(terms) | {f"{a} {b}" for a, b in pairwise(terms)}


def _uses_any(
    expansions: Sequence[list[str]],
    terms: list[list[str]],
    term_sets: list[set],
    z_topic: np.ndarray,
    tuning: TopicSettings,
) -> np.ndarray:
    """Papers using one of the distinctive ``expansions`` (as a phrase). A small model's terms are
    often off the subfield ("batch normalization" for continual learning), so a term counts only
    when the papers using it are, at the median, clearly near the topic (``topic_expansion_z``); a term in
    more than a tenth of the papers, or in fewer than two, is ignored: too general, or a guess."""
    import numpy as np

    n = len(terms)
    common = max(2.0, 0.1 * n)
    found = np.zeros(n, dtype=bool)
    for phrase in expansions:
        if not phrase:
            continue
        has = np.array([all(t in present for t in phrase) for present in term_sets])
        if len(phrase) > 1:
            has &= np.array([bool(h) and has_phrase(phrase, terms[i]) for i, h in enumerate(has)])
        if 2 <= has.sum() <= common and float(np.median(z_topic[has])) > tuning.expansion_z:
            found |= has
    return found


def core_vocabulary(
    core: np.ndarray, terms: list[list[str]], tuning: TopicSettings
) -> tuple[np.ndarray, list[str]]:
    """(score per paper, the terms) of the subfield's vocabulary, learned from its core papers.

    The words and word pairs most over-represented in the core relative to the collection
    (share in core × log of the ratio: "probing", "saliency map", "attribution" for
    interpretability) score every paper by the IDF of those it uses. This is how a paper that
    never names the topic but speaks its language is found.
    """
    import math
    from collections import Counter

    import numpy as np

    members = np.flatnonzero(core)
    n, m = len(terms), len(members)
    in_core: Counter[str] = Counter()
    for i in members:
        in_core.update(_with_pairs(terms[i]))
    least = max(3, tuning.vocabulary_share * m)
    wanted = {t: c for t, c in in_core.items() if c >= least}
    if not wanted:
        return np.zeros(n), []
    paper_sets = [_with_pairs(t) for t in terms]
    df = dict.fromkeys(wanted, 0)
    for present in paper_sets:
        for t in present & wanted.keys():
            df[t] += 1
    ranked = []
    for t, c in wanted.items():
        share, base = c / m, df[t] / n
        if share >= 2 * base:
            ranked.append((share * math.log(share / base), t))
    chosen = [t for _, t in sorted(ranked, reverse=True)[: tuning.vocabulary]]
    idf = {t: math.log(n / df[t]) for t in chosen}
    score = np.array([sum(idf[t] for t in chosen if t in present) for present in paper_sets])
    return score, chosen


def core_direction(vectors: np.ndarray, core: np.ndarray, tuning: TopicSettings) -> np.ndarray:
    """Each paper's position along the direction that separates the core from the collection.

    Fisher's linear discriminant, learned at query time with the core as its positives: the
    collection's covariance, with ``topic_direction_shrinkage`` times its mean variance added to
    the diagonal (ridge), solved against the core's mean minus the collection's. At the default
    (10) the ridge dominates and the direction is close to the plain difference of the means,
    with the dimensions in which every paper varies widely somewhat discounted. Nearness to single
    core papers (the neighbours) finds a subfield's modes; this finds what its papers share
    against the conference as a whole, the dimensions in which "continual learning" papers differ
    from the rest, whatever their words. On the dev conferences it moved the recall/precision
    frontier by about 0.01 at every stop tried, a little more than the plain difference did
    (README, "Nineteenth session"). Only in a conference: a short list's covariance (57 papers in
    384 dimensions) is mostly noise.
    """
    import numpy as np

    x = np.asarray(vectors, dtype=np.float32)  # no float64 copy of a 37,000-paper table
    mean = x.mean(axis=0, dtype=np.float64)
    covariance = (x.T @ x).astype(np.float64) / len(x) - np.outer(mean, mean)
    dims = covariance.shape[0]
    # (a little shrinkage always: a conference of 300 papers has a singular covariance in 384 dimensions)
    shrink = max(tuning.direction_shrinkage, 1e-3) * max(float(np.trace(covariance)) / dims, 1e-12)
    direction = np.linalg.solve(
        covariance + shrink * np.eye(dims), x[core].mean(axis=0, dtype=np.float64) - mean
    )
    return x @ direction.astype(np.float32)


def score_papers(
    parts_vectors: np.ndarray,
    parts_terms: list[list[str]],
    vectors: np.ndarray,
    terms: list[list[str]],
    expansions: Sequence[list[str]] = (),
    *,
    tuning: TopicSettings,
    names: frozenset[str] = frozenset(),
) -> tuple[np.ndarray, np.ndarray, dict]:
    """(score per paper, core mask, details) for a topic over one table of papers.

    ``parts_vectors`` are the unit embeddings of :func:`topic_parts`, ``parts_terms`` their stemmed
    terms; ``vectors`` and ``terms`` are the papers' (unit mean vector, stemmed title+abstract).
    ``expansions`` are stemmed terms a model named for the subfield: a paper using one (a term in
    at most a tenth of the papers: "saliency map", not "neural network", whose papers are at the
    median clearly near the topic) that is itself nearer the topic than the median paper is core.
    ``names`` are the stemmed terms of what the topic writes as a name (AutoML, LoRA): rare, they
    name it wherever they stand in it.
    """
    import math

    import numpy as np

    n = len(terms)
    small = n < tuning.small_list  # a short list (the bundled 57): the conference guards are off
    similarity = (vectors @ parts_vectors.T).max(axis=1)
    term_sets = [set(t) for t in terms]
    df: dict[str, int] = {}
    for wanted in {t for part in parts_terms for t in part}:
        df[wanted] = sum(wanted in s for s in term_sets)
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    coverage = np.zeros(n)
    phrase = np.zeros(n, dtype=bool)
    written: list[list[str]] = []  # parts some paper writes every word of (in a short list: all)
    for part in parts_terms:
        if not part:
            continue
        unique = list(dict.fromkeys(part))
        total = sum(idf[t] for t in unique)
        whole = small
        for i, present in enumerate(term_sets):
            share = sum(idf[t] for t in unique if t in present) / total if total else 0.0
            if share > coverage[i]:
                coverage[i] = share
            if share > 0.999:
                whole = True
                # One word is a phrase only when it is distinctive: "robustness" or "learning",
                # in over a tenth of a conference's papers, must also match in meaning (below).
                one_word = len(unique) == 1
                if (one_word and df[unique[0]] <= max(0.1 * n, 10)) or (
                    not one_word and has_phrase(part, terms[i])
                ):
                    phrase[i] = True
        if whole:
            written.append(part)
    z_topic = _robust_z(similarity)
    # A rare term of the topic ("bandit" in a few papers, a method's name) found in a paper that
    # is nearer the topic than most is a name match, as in the ask-time relevance decision. In a
    # conference, only a name the topic writes (AutoML) or a term of a part some paper writes
    # whole: "dark matter" at ICLR 2018 (no paper writes "dark") is not named by the four papers
    # writing "no matter how", nor at ICLR 2022 by a paper on "dark" data and nine writing
    # "matter". (A short list writes few words at all: there a topic's extra word, "X schemes", is
    # no sign.)
    limit = max(2, tuning.rare_share * n)
    rare = [t for t, d in df.items() if 0 < d <= limit and (t in names or any(t in part for part in written))]
    named = np.array([any(t in present for t in rare) for present in term_sets]) & (z_topic > 0)
    if small:
        # In a short list, a word two papers write is rare without naming anything ("medical",
        # "concepts"): such a match is core only with much of the topic's weighted terms, or a
        # strong dense match ("segment tumours in medical images" is not a fairness paper's
        # topic for its one "medical").
        named &= (coverage >= tuning.small_name_coverage) | (z_topic >= tuning.core_least_z)
    # A topic's words in a paper less similar to the topic than the collection's median paper are
    # a passing mention ("interpretable" in a paper on something else), not the paper's subject.
    # (In a short list the median is no yardstick: there every paper naming the topic counts.)
    meant = np.ones(n, dtype=bool) if small else z_topic > 0
    core = ((phrase | named) & meant) | ((coverage >= tuning.core_coverage) & (z_topic > tuning.core_z))
    if not small:
        # In a short list, the terms a model names add papers the topic's own words and meaning
        # did not: a few more core papers take the fence's stop past most of the list
        # ("recurrent or state-space alternatives to Transformers": 127 of COLM 2024's 299).
        core |= _uses_any(expansions, terms, term_sets, z_topic, tuning) & (z_topic > 0)
    joined = np.zeros(n, dtype=bool)
    if core.any() and core.sum() < (tuning.min_core_small if small else tuning.core_least):
        # Too few papers name the topic to learn its subfield from ("deep learning theory" is
        # written "generalization bounds", "over-parameterized networks"): the strongest dense
        # matches join them, so the vocabulary and the stop have a core to come from.
        # Only papers as near the topic as the typical paper naming it (their median): a niche
        # topic ("symbolic regression", two papers) is not padded with papers on something nearby.
        # Papers naming it are the core and those holding most of its weighted terms (nearer it
        # than the median paper): with the core alone, one core paper set the bar at its own match
        # ("deep learning theory" at ICLR 2022: one core paper, 52 with its words, 2 selected).
        naming = core | ((coverage >= tuning.core_coverage) & meant)
        # In a short list, nearer it than every paper naming it: a median of two or three is no yardstick.
        typical = np.max if small else np.median
        bar = max(tuning.core_least_z, float(typical(z_topic[naming])))
        strong = (z_topic > bar) & ~core
        if small:
            # ... and near its papers: "conformal prediction" is nearer to papers predicting other
            # things than to the two papers on it, which no other paper is near.
            nearest = (vectors @ vectors[np.flatnonzero(core)].T).max(axis=1)
            strong &= _robust_z(nearest) > tuning.small_join_z
        strong = np.flatnonzero(strong)
        room = max(0, tuning.core_least - int(core.sum()))
        joining = strong[np.argsort(-z_topic[strong], kind="stable")][:room]
        if small:
            # In a short list they are listed but learn nothing: a core of five or more would take
            # the fence's stop, which in a list of 57 reaches half of it.
            joined[joining] = True
        else:
            core = core.copy()
            core[joining] = True
    if small and not core.any():
        # No paper names it as a phrase or a rare word, yet some write every word of it with a
        # dense match near it: "out-of-distribution detection" (written "out-of-distribution
        # (OOD) detection"), "interpretability" (in 14 of 57 papers: no name). Those are listed,
        # and only those: as the core, they took the fence's stop to most of the list ("reward
        # models": 47 of 57). One word says less than several: it needs the nearer match.
        several = all(len(set(part)) > 1 for part in parts_terms if part)
        bar = tuning.small_every_z if several else tuning.core_least_z
        every = np.flatnonzero((coverage > 0.999) & (z_topic >= bar))
        if len(every):
            core = np.zeros(n, dtype=bool)
            core[every[np.argmax(z_topic[every])]] = True  # one core paper: nothing learned from it
            joined[every] = True
            joined &= ~core
    if not core.any():
        # No paper names it: the strong dense matches, those clearly above this collection's
        # typical paper when some are. In a list of language-model papers, a sixth are within 0.5
        # cosine of any topic ending in "language models" ("machine unlearning in language
        # models": 51 of COLM 2024's 299, where three are on unlearning); in a reading list all
        # on the topic, none stands out, and every strong match is its core.
        strong = similarity >= tuning.strong_similarity
        standing_out = strong & (z_topic >= tuning.core_z)
        core = standing_out if standing_out.any() else strong
    if not core.any():
        return np.full(n, -np.inf), core, {"similarity": similarity}
    members = np.flatnonzero(core)
    near = vectors @ vectors[members].T
    near[members, np.arange(len(members))] = -np.inf  # a core paper is not its own neighbour
    k = min(tuning.neighbours, len(members))
    top = np.sort(near, axis=1)[:, -k:]
    top[~np.isfinite(top)] = 0.0
    neighbours = top.mean(axis=1)
    score = (
        tuning.weight_topic * z_topic
        + tuning.weight_neighbours * _robust_z(neighbours)
        + tuning.weight_coverage * coverage
        + tuning.weight_phrase * phrase
    )
    vocabulary: list[str] = []
    if len(members) >= tuning.min_core:
        uses, vocabulary = core_vocabulary(core, terms, tuning)
        score = score + tuning.weight_vocabulary * _robust_z(uses)
        if not small and tuning.weight_direction:
            score = score + tuning.weight_direction * _robust_z(core_direction(vectors, core, tuning))
    details = {"similarity": similarity, "z": z_topic, "vocabulary": vocabulary, "joined": joined}
    return score, core, details


def selected(
    score: np.ndarray,
    core: np.ndarray,
    z_topic: np.ndarray | None = None,
    joined: np.ndarray | None = None,
    *,
    tuning: TopicSettings,
) -> np.ndarray:
    """Indices on the topic, best first: every core paper, and every paper scoring at least
    Tukey's lower fence of the core's scores (or, in a conference, at least ``topic_floor_share``
    of its first quartile when that is lower) that, in a conference, has ``z_topic`` >
    ``topic_near_z`` (by default: nearer the topic than the collection's median paper). A core
    too small to learn from is the selection, with the strong dense matches that ``joined`` it."""
    import numpy as np

    if not core.any():
        return np.zeros(0, dtype=int)
    small = len(score) < tuning.small_list  # a short list: the conference guards are off
    if core.sum() < (tuning.min_core_small if small else tuning.min_core):  # too few to learn from
        members = np.flatnonzero(core if joined is None else core | joined)
        return members[np.argsort(-score[members], kind="stable")]
    inside = score[core]
    low, high = np.percentile(inside, [25, 75])
    # Tukey's lower fence of the core's own scores: a paper scoring within the core's usual
    # spread is on the topic. (The weakest core paper is no stop: it may name the topic in passing,
    # and a tight core would stop before the papers that only speak the subfield's language.)
    floor = low - tuning.fence * (high - low)
    if not small:
        # Scores are sums of robust z-scores (0 for the collection's typical paper), so a share of
        # the core's first quartile (``topic_floor_share``) is still far above it. A tight core
        # (nine "program synthesis" papers at ICLR 2018 scoring 13.5-27) has a fence just under it
        # (12.3), which stopped before papers matching the topic nearly as well (10-12, dense z 4-5).
        floor = min(floor, tuning.floor_share * low)
    near = np.ones(len(score), dtype=bool) if z_topic is None or small else z_topic > tuning.near_z
    chosen = np.flatnonzero(((score >= floor) & near) | core)
    ranked = chosen[np.argsort(-score[chosen], kind="stable")]
    # A subfield is a part of a conference, not most of it: when the stop would take more than
    # ``topic_max_share`` of the papers, the core was diluted by passing mentions; keep the best of them.
    if small:
        return ranked
    return ranked[: max(int(core.sum()), int(tuning.max_share * len(score)))]


def likely_first(
    order: np.ndarray, score: np.ndarray, core: np.ndarray, *, tuning: TopicSettings
) -> tuple[np.ndarray, int]:
    """``order`` with the papers likely on the topic first, and how many they are.

    The stop is set for recall: in a conference it lists, on average, six times as many papers
    as the authors' keywords tag. A blind judged sample of what it lists beyond them (dev,
    eval/subfields-judged.jsonl) found the last three quarters of a long listing almost all off
    the subfield, so its length was no answer to "how many papers are on X?" (several times the
    judged count). A subfield is a small part of a conference: a core paper, or one scoring at
    or above ``topic_likely_percentile`` of the collection, is likely on it; the rest stay
    listed after them, as papers that share some of its vocabulary (figures: README, "Subfield
    listings, fifth round"). A short list and a small core are not split.
    """
    import numpy as np

    if len(score) < tuning.small_list or core.sum() < tuning.min_core or not len(order):
        return order, len(order)
    bar = np.percentile(score, tuning.likely_percentile)
    likely = core[order] | (score[order] >= bar)
    return np.concatenate([order[likely], order[~likely]]), int(likely.sum())


@dataclass(frozen=True)
class Ranking:
    """Topic selection over one table of papers: indices on the topic (best first) and their scores."""

    order: np.ndarray
    score: np.ndarray
    similarity: np.ndarray
    core: int
    likely: int | None = None  # the first this many of ``order`` are likely on the topic (None: all)


# Acronyms of ML subfields as the field writes them, for a topic written with one that the
# collection defines rarely or not at all: ICLR 2018 defines "GNN" once, as "gated neural networks",
# while its graph papers never define it. A collection's own definition wins when two papers or
# more give it.
GLOSSARY = {
    "ai": "artificial intelligence", "asr": "automatic speech recognition",
    "automl": "automated machine learning", "bo": "bayesian optimization",
    "cnn": "convolutional neural networks", "dl": "deep learning",
    "drl": "deep reinforcement learning", "fl": "federated learning",
    "gan": "generative adversarial networks", "gcn": "graph convolutional networks",
    "gnn": "graph neural networks", "gp": "gaussian processes", "hpo": "hyperparameter optimization",
    "irl": "inverse reinforcement learning", "kd": "knowledge distillation",
    "llm": "large language models", "lm": "language models", "lstm": "long short-term memory",
    "marl": "multi-agent reinforcement learning", "mbrl": "model-based reinforcement learning",
    "ml": "machine learning", "nas": "neural architecture search",
    "nerf": "neural radiance fields", "nlp": "natural language processing",
    "nmt": "neural machine translation", "ntk": "neural tangent kernel", "ood": "out-of-distribution",
    "ot": "optimal transport", "qa": "question answering", "rl": "reinforcement learning",
    "rlhf": "reinforcement learning from human feedback", "rnn": "recurrent neural networks",
    "sgd": "stochastic gradient descent", "ssl": "self-supervised learning",
    "vae": "variational autoencoders", "vit": "vision transformers", "vlm": "vision-language models",
    "vqa": "visual question answering",
}  # fmt: skip


def expand_acronyms(parts: list[str], acronyms: dict[str, tuple[str, int]]) -> list[str]:
    """Each part with its acronyms spelled out, as another part: "deep RL" → also "deep
    reinforcement learning", "GNNs" → also "graph neural networks". The collection's own
    definition (``acronyms``: key → (expansion, papers defining it)) when two papers or more give
    it, else :data:`GLOSSARY`'s, else the one paper's."""

    def spelled(word: str) -> str:
        key = acronym_singular(word).lower()
        if not word[:1].isupper() or not (key in acronyms or key in GLOSSARY):
            return word
        own, count = acronyms.get(key, ("", 0))
        return own if count >= 2 or key not in GLOSSARY else GLOSSARY[key]

    expanded = []
    for part in parts:
        words = part.split()
        written = [spelled(w) for w in words]
        if written != words:
            expanded.append(" ".join(written))
    return list(dict.fromkeys([*parts, *expanded]))


def rank_topic(
    embedder: Embedder,
    topic: str,
    vectors: np.ndarray,
    terms: list[list[str]],
    acronyms: dict[str, tuple[str, int]] | None = None,
    expansions: Sequence[str] = (),
    *,
    tuning: TopicSettings,
) -> Ranking:
    """Select the papers (rows of ``vectors``/``terms``) on ``topic``; see the module docstring.

    ``acronyms`` are those the collection defines (``RL`` → reinforcement learning): a topic
    written with them also matches the papers that spell them out. ``expansions`` are the
    subfield's terms as a model named them (see :func:`score_papers`); ``tuning`` is
    ``settings.topics``.
    """
    import numpy as np

    if not len(terms):
        empty = np.zeros(0)
        return Ranking(np.zeros(0, dtype=int), empty, empty, 0)
    parts = expand_acronyms(topic_parts(topic), acronyms or {})
    part_vectors = np.asarray([embedder.embed_query(p) for p in parts], dtype=np.float32)
    part_vectors /= np.maximum(np.linalg.norm(part_vectors, axis=1, keepdims=True), 1e-9)
    extra = [lexical_sequence(e) for e in expansions]
    parts_terms = [lexical_sequence(p) for p in parts]
    names = frozenset(t for name in coined_names(topic) for t in lexical_sequence(name))
    score, core, details = score_papers(
        part_vectors, parts_terms, vectors, terms, extra, tuning=tuning, names=names
    )
    order = selected(score, core, details.get("z"), details.get("joined"), tuning=tuning)
    order, likely = likely_first(order, score, core, tuning=tuning)
    return Ranking(order, score, details["similarity"], int(core.sum()), likely)
