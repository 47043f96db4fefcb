"""Latency of ``ask`` over ten seed questions: time to first token and total, median and p95.

    python bench/ask_latency.py                 # the embedded model, then --llm none (same run)
    python bench/ask_latency.py --llm local     # the embedded model only (starts its server once)

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

from rag import Library, ensure_index
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


def measure(llm: str) -> dict:
    """Ask the ten questions with one LLM setting; one line per question, then the summary."""
    settings = load_settings().replace(llm=llm)
    ensure_index(settings)  # the bundled corpus, when the default collection is empty
    library = Library(settings)
    rows = []
    for question in QUESTIONS:
        answer = library.ask(question)
        t = answer.timings
        first = t.get("first_token", t["total"])  # measured from the question; no model call: the total
        cited = [c.paper.id for c in answer.citations]
        row = {"question": question, "first_token_s": round(first, 3), "total_s": round(t["total"], 3)}
        rows.append(row | {"mode": answer.mode, "prompt_tokens": answer.prompt_tokens, "cited": cited})
        print(f"{t['total']:6.2f}s  first {first:6.2f}s  {answer.mode:10} {cited}  {question}")
    totals = [r["total_s"] for r in rows]
    firsts = [r["first_token_s"] for r in rows]
    return {
        "llm": library.llm.name,
        "questions": len(rows),
        "first_token_median_s": round(statistics.median(firsts), 2),
        "first_token_p95_s": round(percentile(firsts, 0.95), 2),
        "total_median_s": round(statistics.median(totals), 2),
        "total_p95_s": round(percentile(totals, 0.95), 2),
        "prompt_tokens_median": statistics.median(r["prompt_tokens"] for r in rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--llm", default="local,none", help="comma-separated settings, measured in turn")
    args = parser.parse_args()
    results = [measure(llm.strip()) for llm in args.llm.split(",")]
    print(json.dumps([{k: v for k, v in r.items() if k != "rows"} for r in results], indent=2))
    out = Path(__file__).parent / "results" / f"ask-{args.llm.replace(',', '-')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
