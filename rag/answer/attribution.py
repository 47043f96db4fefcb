"""After generation, attribute every answer sentence to the paper whose evidence supports it.

Small models write the right fact under the wrong key: a key from the prompt's example, a key
of a neighbouring paper, or none at all. Rather than show that answer without a source (or ask
the model again), each sentence is checked against every paper in the context:

- ``cited``: a key it carries names a paper that supports it (other keys it carries are dropped);
- ``reattributed``: it carries no valid supporting key, but one paper supports it: that key now;
- ``unsupported``: no paper supports it; it is dropped from the answer.

An answer in another language than the abstracts cannot be compared word by word; there a
sentence is backed by a paper that holds all of its numbers and names, and an unsupported
sentence is kept but marked (``unsupported``) rather than dropped.

Support is :func:`rag.text.supports` at a slightly lower bar than the eval's judge (a model
paraphrases), and never without every number of the sentence present in the paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag.answer.citations import is_citation
from rag.answer.evidence import cite
from rag.text import KEY_GROUP, cited_sentences, numbers_in, plain_text, stem_terms, supports

if TYPE_CHECKING:
    from rag.records import Paper
    from rag.settings import AnswerSettings


@dataclass
class SentenceSource:
    """One answer sentence and where it was found to come from."""

    sentence: str
    keys: list[str]
    status: str  # cited | reattributed | unsupported
    given: list[str] = field(default_factory=list)  # the keys the model wrote

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for ``ask --json``."""
        return {"sentence": self.sentence, "keys": self.keys, "status": self.status}


@dataclass
class Attributed:
    """The answer rebuilt from its supported sentences, and what happened to each sentence."""

    text: str
    sentences: list[SentenceSource] = field(default_factory=list)

    @property
    def kept_keys(self) -> list[str]:
        """The keys of the kept sentences, in order, each once."""
        return list(dict.fromkeys(k for s in self.sentences if s.status != "unsupported" for k in s.keys))

    def cited(self, context: dict) -> list[Paper]:
        """The papers the rebuilt answer rests on: the keys of its kept sentences, in order."""
        return [context[k] for k in self.kept_keys if k in context]

    def invalid(self, context: dict) -> list[str]:
        """Keys the model wrote that name no paper in the context (replaced or removed)."""
        return list(dict.fromkeys(k for s in self.sentences for k in s.given if k not in context))

    @property
    def changed(self) -> bool:
        """Some sentence was re-attributed or dropped: the user should see the checked text."""
        return any(s.status != "cited" for s in self.sentences)


def _overlap(sentence: str, paper_text: str) -> float:
    words = set(stem_terms(sentence, min_length=3))
    return len(words & set(stem_terms(paper_text, min_length=3))) / len(words) if words else 0.0


_STRONG_NAME = re.compile(r"\b\w*(?:[a-z][A-Z]|\d)\w*(?:-\w+)*")


def _backs_foreign(sentence: str, paper_text: str) -> bool:
    """Without shared words: the sentence's names (inner capitals or digits: PlugGuard, 20M,
    DB-KSVD) and numbers all occur in the paper, and it has at least one of them."""
    names = {n.lower() for n in _STRONG_NAME.findall(sentence) if not n.isdigit()}
    lowered = paper_text.lower()
    numbers = numbers_in(sentence)
    written = numbers_in(paper_text, spelled=True)
    return bool(names or numbers) and numbers <= written and all(n in lowered for n in names)


def attribute(
    answer: str, context: dict[str, Paper], english: bool = True, *, tuning: AnswerSettings
) -> Attributed:
    """Check each sentence of ``answer`` against the papers in ``context`` (key → paper): a paper
    supports a sentence when it holds ``tuning.attribution_threshold`` of its content words."""
    texts = {k: plain_text(f"{p.title} {p.label} {p.abstract}") for k, p in context.items()}
    result = Attributed(text="")
    kept: list[str] = []
    # Ordinary brackets ("in [0, 1]") are text, not citations: keep them through the rebuild.
    protected = KEY_GROUP.sub(
        lambda m: m.group(0) if is_citation(m.group(1), context) else f"\u27e6{m.group(1)}\u27e7", answer
    )
    for sentence, keys in cited_sentences(protected):
        sentence = sentence.replace("\u27e6", "[").replace("\u27e7", "]")
        if english and not stem_terms(sentence, min_length=3):
            continue  # "Here are the papers:" says nothing that needs a source
        if english:
            backing = [k for k in texts if supports(sentence, texts[k], tuning.attribution_threshold)]
        else:
            backing = [k for k in texts if k in keys or _backs_foreign(sentence, texts[k])]
        valid = [k for k in dict.fromkeys(keys) if k in backing]
        if valid:
            status, chosen = "cited", valid
        elif backing:
            best = max(backing, key=lambda k: _overlap(sentence, texts[k]))
            status, chosen = "reattributed", [best]
        else:
            result.sentences.append(SentenceSource(sentence, list(keys), "unsupported", list(keys)))
            if not english:
                kept.append(sentence)
            continue
        result.sentences.append(SentenceSource(sentence, chosen, status, list(keys)))
        kept.append(cite(sentence, chosen[0]) if len(chosen) == 1 else _cite_all(sentence, chosen))
    result.text = " ".join(kept)
    return result


def _cite_all(sentence: str, keys: list[str]) -> str:
    body = sentence.rstrip()
    stop = body[-1] if body[-1:] in ".!?。" else "."
    return f"{body.rstrip('.!?。').rstrip()} {''.join(f'[{k}]' for k in keys)}{stop}"
