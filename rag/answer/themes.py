"""Themes: papers grouped by clustering their embeddings, and named by their distinctive phrases.

Used by summaries (:mod:`rag.answer.summarize`, which may ask a model for the names instead) and by
long listing answers (:mod:`rag.answer.listing`), which never call a model. Deterministic: the same
papers give the same groups and names.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from rag.answer.summary import PaperNote
from rag.records import Paper
from rag.text import RESEARCH_FILLER, STOP_WORDS, plain_text, split_sentences

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
_STOP = STOP_WORDS | RESEARCH_FILLER


def _cluster(vectors: list[list[float]], k: int) -> list[int]:
    """Deterministic k-means (farthest-point init) on unit vectors; fine for tens of papers."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float32)
    centers = [0]
    while len(centers) < k:
        sims = np.max(x @ x[centers].T, axis=1)
        centers.append(int(np.argmin(sims)))
    c = x[centers]
    labels = np.zeros(len(x), dtype=int)
    for _ in range(20):
        labels = np.argmax(x @ c.T, axis=1)
        for j in range(k):
            members = x[labels == j]
            if len(members):
                center = members.mean(axis=0)
                c[j] = center / max(float(np.linalg.norm(center)), 1e-9)
    return labels.tolist()


def cluster_notes(notes: list[PaperNote], embedder, known: dict | None = None) -> list[list[PaperNote]]:
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


def group_by_theme(
    topic: str, keyed: dict[str, Paper], embedder, vectors: dict | None = None
) -> list[tuple[str, list[str]]]:
    """(theme name, keys) for a listing answer: clusters named by their distinctive terms.

    Clusters that come out with one name are one theme (a reader cannot tell two "Other" headings
    apart), in the place of the first; a paper alone in its cluster is no theme (its name would be
    two words of its own title: "Grammatical and lehman"); the papers no phrase names ("Other")
    come last. None when no theme has a name."""
    notes = [PaperNote(key, paper, "", -n) for n, (key, paper) in enumerate(keyed.items())]
    themes: dict[str, list[str]] = {}
    for group in cluster_notes(notes, embedder, vectors):
        name = term_name(group, notes, topic) if len(group) > 1 else UNNAMED
        themes.setdefault(name, []).extend(n.key for n in group)
    unnamed = themes.pop(UNNAMED, None)
    if not themes:  # nothing tells these papers apart: no themes at all
        return []
    return [*themes.items(), *([(UNNAMED, unnamed)] if unnamed else [])]


def term_name(notes: list[PaperNote], all_notes: list[PaperNote], topic: str) -> str:
    """Name a theme by the phrases most over-represented in it (the no-LLM theme name).

    Two-word phrases from titles and first sentences read as names ("message passing", "node
    classification"); the best one, joined by the best phrase that shares no word with it:
    "Message passing and molecules", never a bag of words such as "Gnns · architectures · input".
    """
    skip = set(_words(topic)) | {w.rstrip("s") for w in _words(topic)}
    surface: dict[str, str] = {}
    inside = Counter(p for n in notes for p in _phrases(_naming_text(n.paper), skip, surface))
    everywhere = Counter(p for n in all_notes for p in _phrases(_naming_text(n.paper), skip, surface))

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
    first = ranked[0]
    second = next((p for p in ranked[1:] if not set(p.split()) & set(first.split())), None)
    titles = [[w.lower() for w in _WORD.findall(plain_text(_naming_text(n.paper)))] for n in notes]
    name = _as_written(first, titles, surface)
    if second:
        name += " and " + _as_written(second, titles, surface)
    return name[:1].upper() + name[1:]


# Words too common to name a theme that still end one as people write it: "large language
# models", not "large language"; "imitation learning", not "imitation".
_TRAILING = frozenset({"learning", "models", "model", "data"})


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
                if following in _TRAILING:
                    after[following] += 1
    name = " ".join(surface.get(w, w) for w in words)
    if after:
        word, count = after.most_common(1)[0]
        if count * 2 >= uses:
            name += f" {word}"
    return name


def _naming_text(paper: Paper) -> str:
    """Titles are noun phrases, the words people name a theme with; an untitled seed entry has its
    first sentence instead."""
    return paper.title or " ".join(split_sentences(paper.abstract)[:1])


def _phrases(text: str, skip: set[str], surface: dict[str, str]) -> set[str]:
    """The content words of ``text`` and its adjacent pairs of content words, lower-cased (words
    with capitals after their first letter, acronyms and names, keep them in ``surface``)."""
    words = _WORD.findall(plain_text(text))
    found: set[str] = set()
    previous = None
    for word in words:
        low = word.lower()
        short = len(low) <= 3 and not word.isupper()
        if short or low in _STOP or low in skip or low.rstrip("s") in skip:
            previous = None
            continue
        if any(c.isupper() for c in word[1:]):  # an acronym or a name: "GNNs", "LoRA", "Weisfeiler-Lehman"
            surface[low] = word
        found.add(low)
        if previous:
            found.add(f"{previous} {low}")
        previous = low
    return found


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(plain_text(text)) if len(w) > 3 and w.lower() not in _STOP]
