"""Latency of ``ask`` over ten seed questions: time to first token and total, median and p95.

    python bench/ask_latency.py --llm local     # the embedded model (starts its server once)
    python bench/ask_latency.py --llm none      # the extractive answerer, same questions

Uses the index in CITELINE_DATA_DIR (the bundled corpus is ingested if it is missing). Prints one
line per question and the summary, and writes bench/results/ask-<llm>.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import percentile

from rag import Library
from rag.settings import load_settings

QUESTIONS = [
    "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?",
    "What accuracy does GPT-5 reach on MMLU?",
    "What does the sandbagging detection framework exploit?",
    "How does VideoVeritas detect generated videos?",
    "What problem does feature death cause in sparse autoencoders?",
    "Which papers propose watermarking methods, and for what kind of content?",
    "How can differential privacy guarantees be verified cheaper than training?",
    "What attack does the Model Context Protocol enable according to the paper?",
    "How does GenAlign reduce position bias in generative reward models?",
    "What is the sample complexity of sliding-window streaming bandits?",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--llm", default="local")
    args = parser.parse_args()
    chain = Library(load_settings().replace(llm=args.llm))
    rows = []
    for question in QUESTIONS:
        answer = chain.ask(question)
        t = answer.timings
        first = t.get("first_token", t["total"])  # measured from the question; abstentions: the total
        cited = [c.paper.id for c in answer.citations]
        row = {"question": question, "first_token_s": round(first, 3), "total_s": round(t["total"], 3)}
        rows.append(row | {"abstained": answer.abstained, "cited": cited})
        outcome = "abstained" if answer.abstained else cited
        print(f"{t['total']:6.2f}s  first {first:6.2f}s  {outcome}  {question}")
    totals = [r["total_s"] for r in rows]
    firsts = [r["first_token_s"] for r in rows]
    summary = {
        "llm": chain.llm.name,
        "questions": len(rows),
        "first_token_median_s": round(statistics.median(firsts), 2),
        "first_token_p95_s": round(percentile(firsts, 0.95), 2),
        "total_median_s": round(statistics.median(totals), 2),
        "total_p95_s": round(percentile(totals, 0.95), 2),
    }
    print(json.dumps(summary, indent=2))
    out = Path(__file__).parent / "results" / f"ask-{args.llm}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
