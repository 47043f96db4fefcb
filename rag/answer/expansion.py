"""A model names a subfield's vocabulary, once per topic and collection (issue #19).

Topic selection learns a subfield's vocabulary from the collection's own core papers; a topic
written in words no paper uses ("learning policies from reward") has a thin core to learn from.
When a model is configured, one short call asks it for the subfield's terms and method names
("policy gradient", "Q-learning", "actor-critic"); :func:`rag.retrieval.topics.score_papers`
turns the distinctive ones a paper uses into core papers. Replies are cached in the data dir
(``topic-terms.json``) per model, collection and topic, so a topic asked again, or listed and then
summarized, costs no second call. A failing model costs the listing nothing: it is made without.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import CitelineError
from rag.resources import prompt_text

if TYPE_CHECKING:
    from rag.llm.client import LLMHandle
    from rag.settings import Settings

CACHE_FILE = "topic-terms.json"
MAX_CACHED = 2000  # topics kept; the oldest go first
_SPLIT = re.compile(r"[\n,;|•]+")
_LEAD = re.compile(r"^\s*(?:[-*+]|\d+[.)]|[a-z][.)])\s+", re.IGNORECASE)
_ABBREVIATION = re.compile(r"\(([^()]{1,12})\)")


def parse_terms(reply: str, topic: str, limit: int) -> list[str]:
    """The terms of a model's reply: one per line or comma, bullets and numbering dropped, an
    abbreviation in parentheses its own term ("Deep Q-Network (DQN)" → both), the topic itself
    and anything longer than five words (a sentence, not a term) left out; at most ``limit``."""
    own = " ".join(topic.lower().split())
    terms: list[str] = []
    for piece in _SPLIT.split(reply):
        piece = _LEAD.sub("", piece).strip().strip("\"'`.:")
        for term in (_ABBREVIATION.sub("", piece), *_ABBREVIATION.findall(piece)):
            term = " ".join(term.split())
            known = {t.lower() for t in terms} | {own}
            if term and len(term.split()) <= 5 and term.lower() not in known:
                terms.append(term)
    return terms[:limit]


def _cache_path(settings: Settings) -> Path:
    return settings.data_dir / CACHE_FILE


def _load(path: Path) -> dict[str, list[str]]:
    """The cache; unreadable or not ours (not an object of string lists) reads as empty."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(v, list) and all(isinstance(t, str) for t in v)}


def _save(path: Path, cache: dict[str, list[str]]) -> None:
    """Write through a temp file and a rename (never a half-written cache); a full disk or a
    read-only data dir only means the next call asks the model again."""
    items = list(cache.items())[-MAX_CACHED:]
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".topic-terms-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(dict(items), out, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def subfield_terms(llm: LLMHandle, topic: str, settings: Settings, strict: bool = False) -> list[str]:
    """The subfield's terms as the model names them (cached), or [] with no model or on failure
    (``strict``: the failure is raised, for a caller that would call the model again)."""
    if llm.model is None:
        return []
    key = "\n".join([llm.name, settings.collection, " ".join(topic.lower().split())])
    path = _cache_path(settings)
    cache = _load(path)
    if key in cache:
        return cache[key]
    try:
        prompt = prompt_text("topic_terms").format(topic=topic)
        reply = llm.invoke(prompt, max_tokens=settings.topic_model_tokens)
    except CitelineError:
        if strict:
            raise
        return []  # the listing is made from the collection alone, as without a model
    terms = parse_terms(reply, topic, settings.topic_model_terms)
    cache[key] = terms
    _save(path, cache)
    return terms
