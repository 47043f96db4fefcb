"""Run an eval set: retrieval per mode, then answers per LLM configuration, with the metrics.

An eval file is JSON Lines with ``id``, ``question``, ``kind`` (factoid, multi-paper, summary,
listing, unanswerable, cross-lingual), ``gold`` (paper IDs, each with source and line), ``facts``
and optional ``tags`` (finer labels within a kind, such as ``near-miss``, ``entity`` or
``acronym``, so results can be read per tag without a new kind the metrics would have to learn).
It works on any corpus: point the settings at the collection the gold IDs come from.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.answer.pipeline import AnswerChain
from rag.errors import BadInput, CitelineError
from rag.eval import metrics as m
from rag.index.tokens import count_tokens
from rag.records import AnswerMode, Progress
from rag.retrieval import MODES
from rag.retrieval.retriever import Retriever
from rag.settings import Settings

KINDS = ("factoid", "multi-paper", "summary", "listing", "unanswerable", "cross-lingual")
SPLITS = ("dev", "test")
LISTING_KINDS = ("listing", "multi-paper", "summary")  # questions whose gold is a set of papers


@dataclass(frozen=True)
class EvalItem:
    """One question with its gold papers and the facts a good answer states."""

    id: str
    question: str
    kind: str
    gold: tuple[str, ...]
    facts: tuple[str, ...]
    tags: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        """Every kind but ``unanswerable`` has gold papers."""
        return self.kind != "unanswerable"


def eval_set(split: str = "dev") -> Path:
    """The bundled eval set: ``dev`` (tuned on) or ``test`` (frozen before tuning, report only)."""
    from rag.resources import resource_dir

    if split not in SPLITS:
        raise BadInput(f"unknown eval split {split!r} (use {', '.join(SPLITS)})")
    return resource_dir("eval") / f"icml2026-{split}.jsonl"


def load_eval_set(path: Path) -> list[EvalItem]:
    """Parse an eval JSONL file; a bad line is one ``file:line`` error."""
    items = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CitelineError(f"{path}: cannot read the eval set ({exc})") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict):
                raise TypeError("a line must be a JSON object")
            tags = raw.get("tags", [])
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise TypeError("tags must be a list of strings")
            item = EvalItem(
                id=str(raw["id"]),
                question=str(raw["question"]),
                kind=str(raw["kind"]),
                gold=tuple(str(g["id"] if isinstance(g, dict) else g) for g in raw.get("gold", [])),
                facts=tuple(str(f) for f in raw.get("facts", [])),
                tags=tuple(tags),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise BadInput(f"{path}:{lineno}: not an eval item ({exc.__class__.__name__}: {exc})") from None
        if item.kind not in KINDS:
            raise BadInput(f"{path}:{lineno}: kind must be one of {', '.join(KINDS)}")
        if item.answerable and not item.gold:
            raise BadInput(f"{path}:{lineno}: an answerable question needs gold papers")
        items.append(item)
    if not items:
        raise BadInput(f"{path}: the eval set is empty")
    return items


def make_judge(name: str, settings: Settings, retriever: Retriever):
    """The support judge named on the command line."""
    from rag.eval.judges import EmbeddingJudge, LexicalJudge, LLMJudge

    if name == "lexical":
        return LexicalJudge()
    if name == "embedding":
        return EmbeddingJudge(retriever.embedder)
    if name == "llm":
        from rag.llm.client import make_llm

        handle = make_llm(settings)
        if handle.model is None:
            raise BadInput("the llm judge needs an LLM (set --llm or CITELINE_LLM_BASE_URL)")
        return LLMJudge(handle)
    raise BadInput(f"unknown judge {name!r} (use lexical, embedding or llm)")


def _noop(stage: str, done: int, total: int) -> None:
    pass


def evaluate_retrieval(retriever: Retriever, items: Sequence[EvalItem], mode: str, k: int) -> dict[str, Any]:
    """recall@k (with the floor), recall@10 and MRR (without), and abstention by retrieval alone."""
    answerable = [i for i in items if i.answerable]
    recalls, recalls10, rrs, latencies = [], [], [], []
    for item in answerable:
        started = time.perf_counter()
        ranked = [h.paper.id for h in retriever.search(item.question, k=10, mode=mode, floor=False)]
        latencies.append(time.perf_counter() - started)
        floored = [h.paper.id for h in retriever.search(item.question, k=k, mode=mode)]
        recalls.append(m.recall_at_k(floored, item.gold, k))
        recalls10.append(m.recall_at_k(ranked, item.gold, 10))
        rrs.append(m.reciprocal_rank(ranked, item.gold))
    unanswerable = [i for i in items if not i.answerable]
    empty = [not retriever.search(i.question, k=k, mode=mode) for i in unanswerable]
    return {
        "mode": mode,
        f"recall@{k}": m.mean(recalls),
        "recall@10": m.mean(recalls10),
        "mrr": m.mean(rrs),
        "unanswerable_retrieving_nothing": m.mean([float(e) for e in empty]),
        "latency_median_s": m.percentile(latencies, 0.5),
    }


def evaluate_answers(
    chain: AnswerChain, items: Sequence[EvalItem], judge, mode: str, progress: Progress
) -> dict:
    """Ask every question through ``chain`` and score the answers against gold and context."""
    rows = []
    for n, item in enumerate(items, start=1):
        answer = chain.ask(item.question, mode=mode)
        keyed = answer.context  # what the model saw, after the token budget
        key_text = {k: p.abstract for k, p in keyed.items()}
        key_id = {k: p.id for k, p in keyed.items()}
        context = "\n".join(key_text.values())
        precision, recall = (
            (None, None)
            if answer.abstained
            else m.citation_scores(answer.text, key_text, key_id, item.gold, judge)
        )
        cited = [c.paper.id for c in answer.citations]
        gold_p, gold_r = (None, None) if not item.gold else m.gold_citation_scores(cited, item.gold)
        rows.append(
            {
                "id": item.id,
                "kind": item.kind,
                "tags": list(item.tags),
                "question": item.question,
                "answer": answer.text,
                "abstained": answer.abstained,
                "answer_mode": answer.mode,
                "cited": cited,
                "retrieved": [h.paper.id for h in answer.retrieved],
                "fact_coverage": m.fact_coverage(answer.text, item.facts) if item.facts else None,
                "citation_precision": precision,
                "citation_recall": recall,
                "gold_citation_precision": gold_p,
                "gold_citation_recall": gold_r,
                "faithfulness": None if answer.abstained else m.faithfulness(answer.text, context, judge),
                "latency_s": answer.timings.get("total", 0.0),
                "tokens": answer.prompt_tokens + count_tokens(answer.text),
            }
        )
        progress("answer", n, len(items))
    abst_p, abst_r = m.abstention_scores(
        [r["abstained"] for r in rows], [r["kind"] == "unanswerable" for r in rows]
    )
    latencies = [r["latency_s"] for r in rows]
    answerable = [r for r in rows if r["kind"] != "unanswerable"]
    listing = [r for r in rows if r["kind"] in LISTING_KINDS]
    return {
        "llm": chain.llm.name,
        "judge": judge.name,
        "mode": mode,
        "fact_coverage": m.mean([r["fact_coverage"] for r in rows]),
        "abstention_precision": abst_p,
        "abstention_recall": abst_r,
        "citation_precision": m.mean([r["citation_precision"] for r in rows]),
        "citation_recall": m.mean([r["citation_recall"] for r in rows]),
        "faithfulness": m.mean([r["faithfulness"] for r in rows]),
        "refusal_on_answerable": m.mean([float(r["abstained"]) for r in answerable]),
        "gold_citation_precision": m.mean([r["gold_citation_precision"] for r in answerable]),
        "gold_citation_recall": m.mean([r["gold_citation_recall"] for r in answerable]),
        "listing_precision": m.mean([r["gold_citation_precision"] for r in listing]),
        "listing_recall": m.mean([r["gold_citation_recall"] for r in listing]),
        "quoted_fallbacks": sum(r["answer_mode"] == AnswerMode.QUOTED for r in rows),
        "latency_median_s": m.percentile(latencies, 0.5),
        "latency_p95_s": m.percentile(latencies, 0.95),
        "tokens_mean": m.mean([float(r["tokens"]) for r in rows]),
        "questions": rows,
    }


def run_eval(
    settings: Settings,
    eval_file: Path,
    modes: Sequence[str] = MODES,
    llms: Sequence[str] = ("none",),
    judge_name: str = "lexical",
    limit: int | None = None,
    progress: Progress = _noop,
    chain_factory: Callable[[Settings, Retriever], AnswerChain] | None = None,
) -> dict[str, Any]:
    """Retrieval metrics for every mode; answer metrics for every LLM, with the first mode."""
    from rag.llm.client import make_llm

    for mode in modes:
        if mode not in MODES:
            raise BadInput(f"unknown retrieval mode {mode!r} (use {', '.join(MODES)})")
    items = load_eval_set(eval_file)[:limit]
    retriever = Retriever(settings)
    judge = make_judge(judge_name, settings, retriever)
    started = time.perf_counter()
    retrieval = []
    for n, mode in enumerate(modes, start=1):
        retrieval.append(evaluate_retrieval(retriever, items, mode, settings.top_k))
        progress("retrieval", n, len(modes))
    answers = []
    for llm in llms:
        configured = settings.replace(llm=llm)
        if chain_factory:
            chain = chain_factory(configured, retriever)
        else:
            chain = AnswerChain(configured, retriever, make_llm(configured))
        answers.append(evaluate_answers(chain, items, judge, modes[0], progress))
    return {
        "eval_set": str(eval_file),
        "collection": settings.collection,
        "questions": len(items),
        "kinds": {k: sum(i.kind == k for i in items) for k in KINDS},
        "top_k": settings.top_k,
        "judge": judge.name,
        "retrieval": retrieval,
        "answers": answers,
        "seconds": round(time.perf_counter() - started, 2),
    }
