"""Query latency of retrieval (median, p95) per mode, on the index in CITELINE_DATA_DIR.

    python bench/query_latency.py                    # the default collection (bundled corpus)
    CITELINE_COLLECTION=icml2024 python bench/query_latency.py

Runs the questions of the bundled eval set through `search` for each mode, in one process with the
models loaded (what `chat` and `ask` pay per question), and writes bench/results/query-<name>.json.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report

from rag.eval_harness import load_eval_set
from rag.resources import resource_dir
from rag.retrieval import MODES, Retriever
from rag.settings import load_settings


def main() -> None:
    settings = load_settings()
    retriever = Retriever(settings)
    questions = [i.question for i in load_eval_set(resource_dir("eval") / "icml2026.jsonl")]
    retriever.search(questions[0])  # warm-up: model load and first query
    figures = {
        "collection": settings.collection,
        "chunks": retriever.count(),
        "queries": len(questions),
    }
    for mode in MODES:
        latencies = []
        for question in questions:
            started = time.perf_counter()
            retriever.search(question, mode=mode)
            latencies.append(time.perf_counter() - started)
        latencies.sort()
        figures[f"{mode}_median_ms"] = round(1000 * statistics.median(latencies), 1)
        figures[f"{mode}_p95_ms"] = round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1)
    report(f"query-{settings.collection}", figures)


if __name__ == "__main__":
    main()
