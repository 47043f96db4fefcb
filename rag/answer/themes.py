"""Themes: papers grouped by clustering their embeddings, and named by their distinctive phrases.

Used by summaries (:mod:`rag.answer.summarize`, which may ask a model for the names instead) and by
long listing answers (:mod:`rag.answer.listing`), which never call a model. Deterministic: the same
papers give the same groups and names.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from typing import TYPE_CHECKING

from rag.answer.summary import PaperNote
from rag.records import Paper
from rag.text import RESEARCH_FILLER, STOP_WORDS, initials, plain_text, split_sentences, stem_terms

if TYPE_CHECKING:
    from rag.index.embeddings import Embedder

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
_STOP = STOP_WORDS | RESEARCH_FILLER


_CLUSTERED = 400  # papers clustered by Ward at most (0.1 s here); the rest join the nearest group


def _cluster(vectors: list[list[float]], k: int) -> list[int]:
    """Ward's agglomerative clustering of unit vectors into ``k`` groups (Lance-Williams updates
    on one distance matrix, so a few hundred papers take a fraction of a second); deterministic.

    Ward merges whatever raises the within-group spread least, so groups come out of comparable
    size. k-means started from the farthest points (used before) made the outliers the centres:
    on the 30 best papers of the 53 dev subfields the largest group held 68% of them on average,
    and 9 listings had no theme at all; with Ward, 42% and none."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float64)
    if k >= len(x):
        return list(range(len(x)))
    if len(x) > _CLUSTERED:
        # Ward's matrix is n² and its loop n³: a listing of thousands (``--all``) clusters its
        # best papers and puts each other one with the group whose centre is nearest.
        labels = _cluster(vectors[:_CLUSTERED], k)
        best, groups = x[:_CLUSTERED], np.asarray(labels)
        centres = np.stack([best[groups == g].mean(axis=0) for g in range(max(labels) + 1)])
        # by direction: a loose group's mean is short, and would lose every paper to a tight one
        centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-9)
        nearest = (x[_CLUSTERED:] @ centres.T).argmax(axis=1)
        return labels + nearest.tolist()
    n = len(x)
    sq = (x * x).sum(axis=1)
    distance = np.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0.0)
    np.fill_diagonal(distance, np.inf)
    size = np.ones(n)
    labels = np.arange(n)
    alive = np.ones(n, dtype=bool)
    for _ in range(n - k):
        flat = int(np.argmin(distance))
        a, b = sorted(divmod(flat, n))
        others = alive.copy()
        others[[a, b]] = False
        na, nb, nk = size[a], size[b], size[others]
        merged = ((na + nk) * distance[a, others] + (nb + nk) * distance[b, others] - nk * distance[a, b]) / (
            na + nb + nk
        )
        distance[a, others] = distance[others, a] = merged
        distance[b, :] = distance[:, b] = np.inf
        alive[b] = False
        size[a] += nb
        labels[labels == b] = a
    order = {label: j for j, label in enumerate(dict.fromkeys(labels.tolist()))}
    return [order[label] for label in labels.tolist()]


def cluster_notes(
    notes: list[PaperNote], embedder: Embedder, known: dict | None = None
) -> list[list[PaperNote]]:
    """Notes clustered by their papers' embeddings: one group up to five papers, else 2 to 6.

    ``known`` (paper id → vector, from the index's paper table) saves embedding the abstracts again.
    """
    if len(notes) <= 5:
        return [notes] if notes else []
    if known and all(n.paper.id in known for n in notes):
        vectors = [list(known[n.paper.id]) for n in notes]
    else:
        vectors = embedder.embed_documents([n.paper.abstract for n in notes])
    k = max(2, min(6, round(math.sqrt(len(notes) / 2))))
    labels = _cluster(vectors, k)
    groups = [[n for n, label in zip(notes, labels, strict=True) if label == j] for j in range(k)]
    return [g for g in groups if g]


UNNAMED = "Other"  # the theme of papers no over-represented phrase names


def named_groups(
    topic: str, notes: list[PaperNote], embedder: Embedder, vectors: dict | None = None
) -> list[tuple[str, list[PaperNote]]]:
    """(theme name, notes) for papers on ``topic``: clusters named by their distinctive terms.

    Clusters that come out with one name are one theme (a reader cannot tell two "Other" headings
    apart), in the place of the first; a paper alone in its cluster is no theme (its name would be
    two words of its own title: "Correct globally and distributed algorithm"); the papers no
    phrase names ("Other") come last. Empty when no theme has a name. Listing answers and
    summaries group alike."""
    groups = cluster_notes(notes, embedder, vectors)
    if len(groups) < 2:  # one group: no phrase tells it apart from the rest ("Cannot" for two papers)
        return []
    themes: dict[str, list[PaperNote]] = {}
    for group in groups:
        name = term_name(group, notes, topic) if len(group) > 1 else UNNAMED
        themes.setdefault(name, []).extend(group)
    unnamed = themes.pop(UNNAMED, None)
    if not themes:  # nothing tells these papers apart: no themes at all
        return []
    return [*themes.items(), *([(UNNAMED, unnamed)] if unnamed else [])]


def group_by_theme(
    topic: str, keyed: dict[str, Paper], embedder: Embedder, vectors: dict | None = None
) -> list[tuple[str, list[str]]]:
    """(theme name, keys) for a listing answer (:func:`named_groups`), in the listing's order."""
    notes = [PaperNote(key, paper, "", -n) for n, (key, paper) in enumerate(keyed.items())]
    return [(name, [n.key for n in group]) for name, group in named_groups(topic, notes, embedder, vectors)]


def term_name(notes: list[PaperNote], all_notes: list[PaperNote], topic: str) -> str:
    """Name a theme by the phrases most over-represented in it (the no-LLM theme name).

    Two-word phrases from titles and first sentences read as names ("message passing", "node
    classification"); the best one, joined by the best phrase that shares no word with it:
    "Message passing and molecules", never a bag of words such as "Gnns · architectures · input".
    """
    own = {w.lower() for w in _WORD.findall(plain_text(topic)) if w.lower() not in _STOP}  # "GAN" too
    skip = own | {w.rstrip("s") for w in own} | _initials(topic) | _spelled(topic)
    surface = _surface([_naming_text(n.paper) for n in all_notes])
    inside = Counter(p for n in notes for p in _phrases(_naming_text(n.paper), skip))
    everywhere = Counter(p for n in all_notes for p in _phrases(_naming_text(n.paper), skip))

    def ratio(phrase: str) -> float:
        return (inside[phrase] / len(notes)) / (everywhere[phrase] / len(all_notes))

    def lift(phrase: str) -> float:
        """How over-represented ``phrase`` is in this theme, damped by its count; pairs read better."""
        return ratio(phrase) * math.log1p(inside[phrase]) * (1.5 if " " in phrase else 1.0)

    # Words every listed paper shares ("graph neural networks" in a GNN listing) name no theme.
    distinct = 1.0 if len(notes) == len(all_notes) else 1.3
    shared = [p for p in inside if inside[p] >= min(2, len(notes)) and ratio(p) >= distinct]
    pairs = sorted((p for p in shared if " " in p), key=lambda p: (-lift(p), p))
    ranked = pairs or sorted(shared, key=lambda p: (-lift(p), p))
    if not ranked:
        return UNNAMED

    titles = [[w.lower() for w in _WORD.findall(plain_text(_naming_text(n.paper)))] for n in notes]
    first = ranked[0]
    name = _as_written(first, titles, surface)

    def ends_a_name(written: str) -> bool:  # "Compression and distillation", not "Compression and visual"
        # (a pair ends as a noun often does in -al or -ic: "dense retrieval", "evaluation metric")
        return " " in written or written.lower() in surface or not _NOT_ALONE.search(written.lower())

    def stems(written: str) -> set[str]:  # "Meta-Reinforcement learning" and "reinforcement": one word
        return set(stem_terms(written.replace("-", " "), frozenset(), min_length=1))

    for second in ranked[1:]:
        also = _as_written(second, titles, surface)
        if not stems(also) & stems(name) and ends_a_name(also):
            name += " and " + also
            break
    return name[:1].upper() + name[1:]


# Words too common to name a theme that still end one as people write it: "large language
# models", not "large language"; "imitation learning", not "imitation".
_TRAILING = frozenset({"learning", "models", "model", "data", "networks"})


def _as_written(phrase: str, titles: list[list[str]], surface: dict[str, str]) -> str:
    """``phrase`` (content words, lower-cased) as the theme's titles (their words, lower-cased)
    write it: acronyms in capitals, followed by the common word most of its uses are followed by,
    if any."""
    words = phrase.split()
    uses = 0
    after: Counter[str] = Counter()
    for written in titles:
        for i in range(len(written) - len(words) + 1):
            if written[i : i + len(words)] == words:
                uses += 1
                following = written[i + len(words)] if i + len(words) < len(written) else ""
                if following in _TRAILING or (following and following not in _STOP | _BREAKS):
                    after[following] += 1
    name = " ".join(surface.get(w, w) for w in words)
    if after:
        word, count = after.most_common(1)[0]
        # a common word when most uses go on with it ("large language models"); another word
        # only when nearly all do ("neural tangent kernel", "long short-term memory")
        if count * 2 >= uses and (word in _TRAILING or (count >= 2 and count * 3 >= uses * 2)):
            name += f" {surface.get(word, word)}"
    return name


def _naming_text(paper: Paper) -> str:
    """Titles are noun phrases, the words people name a theme with; an untitled seed entry has its
    first sentence instead."""
    return paper.title or " ".join(split_sentences(paper.abstract)[:1])


# Words titles use around what a paper is about, which name no theme alone ("Deep and dynamic",
# "Against adversarial learning", "Neural networks"): a pair with one of them may ("Deep generative
# models", "Graph neural networks"), a pair of two may not ("neural network", "machine learning").
_TITLE_FILLER = frozenset(
    "deep fast faster better efficient effective improved improving"
    " improve simple general generalized large scale scalable understanding rethinking"
    " revisiting learned learn neural network networks machine dynamic multiple unified universal"
    " principled provable provably practical accurate adaptive high low less"
    " analysis empirical theoretical training trained task tasks problem problems".split()
)
# Title words that end a phrase as a stop word does ("Attacks against", "Towards robust").
_BREAKS = frozenset("towards toward against beyond".split())  # (what, how, …: stop words)
# Adverbs and most adjectives ("fully", "visual", "active") end no name ("Compression and visual"),
# though they may begin one ("Pessimistic offline"); nouns ending so are rare.
_NOT_ALONE = re.compile(r"(?:ly|ic|al|ive|ous|able|ible)$")
# A shouted title ("GAN TRAINING WITH ...") writes no acronyms: its capitals name nothing.
_SHOUTED = 0.6


def _name_like(word: str) -> bool:
    """An acronym or a name as titles write one: "GNNs", "LoRA", "mRNA", "DB-KSVD", "t-SNE". Not a
    title-cased compound ("Few-Shot", "Sample-Efficient"), a play on one word ("geneRative"), nor
    a word spelling out its paper's acronym ("LAnguage MOdeling" for LAMOL)."""
    if "-" in word:  # "U-Net": a capital letter alone in front of a short part names it too
        parts = [part for part in word.split("-") if part]
        lettered = len(parts) == 2 and len(parts[0]) == 1 and parts[0].isupper() and len(parts[1]) <= 4
        return any(_name_like(part) for part in parts) or lettered
    capitals = sum(c.isupper() for c in word)
    if not any(c.isupper() for c in word[1:]) or not (word[0].isupper() or capitals >= 2):
        return False
    # Two or three capitals, then a word: "LAnguage", "COMmonsense"; not "BERTScore", "MLPMixer".
    lead = len(word) - len(word.lstrip(string.ascii_uppercase))
    return not (lead == capitals and lead in (2, 3) and len(word) - lead >= 4)


def _surface(texts: list[str]) -> dict[str, str]:
    """Lower-cased word → the form it names something in, where most of the titles that use it
    write it so: one title's "LAnguage" does not rename "language". A title in capitals has no
    say ("STABLE GAN TRAINING" writes no acronym, nor a lower-case word)."""
    forms: dict[str, Counter[str]] = {}
    for text in texts:
        words = _WORD.findall(plain_text(text))
        if sum(w.isupper() for w in words) >= _SHOUTED * len(words) > 1:
            continue
        for word in words:
            low = word.lower()
            forms.setdefault(low, Counter())[word if _name_like(word) else low] += 1
    # A tie goes to the ordinary word: one "E-Commerce" against one "e-commerce" names nothing.
    written = {low: max(seen, key=lambda form: (seen[form], form == low)) for low, seen in forms.items()}
    return {low: form for low, form in written.items() if form != low}


def _spelled(topic: str) -> set[str]:
    """The words of what the topic's field acronyms spell out: a "GNN" listing's theme is not named
    "Graph neural networks"."""
    from rag.retrieval.topics import GLOSSARY

    spelled = (GLOSSARY.get(w.rstrip("s"), "") for w in _WORD.findall(topic.lower()))
    return {w for text in spelled for w in _words(text)}


def _phrases(text: str, skip: set[str]) -> set[str]:
    """The content words of ``text`` and its adjacent pairs of content words, lower-cased. A
    title-filler word (:data:`_TITLE_FILLER`) is no phrase alone, nor are two of them together."""
    words = _WORD.findall(plain_text(text))
    found: set[str] = set()
    previous = None
    for word in words:
        low = word.lower()
        short = len(low) <= 3 and not word.isupper()
        if short or low in _STOP or low in _BREAKS or low in skip or low.rstrip("s") in skip:
            previous = None
            continue
        filler = low in _TITLE_FILLER
        if not filler:
            found.add(low)
        if previous and not (filler and previous in _TITLE_FILLER):
            found.add(f"{previous} {low}")
        previous = low
    return found


def _initials(topic: str) -> set[str]:
    """The acronyms the topic may be written with, lower-case, singular and plural: the topic's
    own name, in any form, names none of its themes. The initials of every run of two words or
    more of each of its parts, hyphenated words read part by part, with and without function
    words ("gan" for "generative adversarial networks", "lstm" for "long short-term memory",
    "ood" for "out-of-distribution detection", "moe" for "mixture of experts"), and the field's
    acronyms (:data:`rag.retrieval.topics.GLOSSARY`) of what it spells out."""
    from rag.retrieval.topics import GLOSSARY

    low = topic.lower()
    found = {acronym for acronym, spelled in GLOSSARY.items() if spelled.rstrip("s") in low}
    for part in re.split(r"\s*(?:,|\band\b|\bor\b|\(|\))\s*", low):
        words = [p for w in _WORD.findall(part) for p in w.split("-") if p]
        for run in (words, [w for w in words if w not in STOP_WORDS]):
            for start in range(len(run)):
                for end in range(start + 2, min(len(run), start + 6) + 1):  # an acronym of 6 letters at most
                    letters = initials(run[start:end])
                    found |= {letters, letters + "s"}
    return found


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(plain_text(text)) if len(w) > 3 and w.lower() not in _STOP]
