"""Query latency (median, p95): `search`, and retrieval inside `ask`, on an existing index.

    python bench/query_latency.py                                   # default data dir and collection
    python bench/query_latency.py --data-dir D --collection icml2024 [--chroma-url URL]
    python bench/query_latency.py --data-dir D --collection 'f-*' --name 88-collections

Runs the 88 questions of the bundled eval set in one process with the models loaded (what `chat`
and repeated `ask` calls pay per question): `search` as the CLI calls it (top 10) in each
retrieval mode, then `ask --llm none`, whose timings give the retrieval step (question rewrite
checks, hybrid search, relevance floor) and the whole answer. Also times opening the index
(store, BM25 load) and one cold `citeline search` in a new process. Writes
bench/results/query-<name>-<store>.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import percentile, report

from rag.answer.pipeline import AnswerChain
from rag.eval.harness import load_eval_set
from rag.index.ingest import ensure_index
from rag.llm.client import make_llm
from rag.resources import resource_dir
from rag.retrieval.retriever import MODES, Retriever
from rag.settings import load_settings


def _summary(prefix: str, seconds: list[float]) -> dict[str, float]:
    return {
        f"{prefix}_median_ms": round(1000 * statistics.median(seconds), 1),
        f"{prefix}_p95_ms": round(1000 * percentile(seconds, 0.95), 1),
    }


def _cold_search(settings, query: str) -> float:
    env = {
        **os.environ,
        "CITELINE_DATA_DIR": str(settings.data_dir),
        "CITELINE_COLLECTION": settings.collection,
    }
    if settings.chroma_url:
        env["CITELINE_CHROMA_URL"] = settings.chroma_url
    started = time.perf_counter()
    subprocess.run(["citeline", "search", query, "--json"], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--collection")
    parser.add_argument("--chroma-url")
    parser.add_argument("--name")
    args = parser.parse_args(argv)
    settings = load_settings().replace(
        data_dir=args.data_dir, collection=args.collection, chroma_url=args.chroma_url, llm="none"
    )
    questions = [i.question for i in load_eval_set(resource_dir("eval") / "icml2026-dev.jsonl")]

    started = time.perf_counter()
    ensure_index(settings)  # the bundled corpus, when the default collection is empty
    retriever = Retriever(settings)
    open_seconds = time.perf_counter() - started
    retriever.search(questions[0])  # warm-up: model load and first query
    figures = {
        "collections": len(retriever.collections),
        "chunks": retriever.count(),
        "store": "server" if settings.chroma_url else "embedded",
        "queries": len(questions),
        "open_index_ms": round(1000 * open_seconds, 1),
    }
    for mode in MODES:
        latencies = []
        for question in questions:
            began = time.perf_counter()
            retriever.search(question, k=10, mode=mode)
            latencies.append(time.perf_counter() - began)
        figures |= _summary(f"search_{mode}", latencies)

    chain = AnswerChain(settings, retriever, make_llm(settings))
    answers = [chain.ask(question).timings for question in questions]
    figures |= _summary("ask_retrieval", [t["retrieve"] for t in answers])
    figures |= _summary("ask_llm_none_total", [t["total"] for t in answers])
    figures["cold_search_process_s"] = round(
        statistics.median(_cold_search(settings, questions[0]) for _ in range(3)), 2
    )
    name = args.name or settings.collection
    report(f"query-{name}-{figures['store']}", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
