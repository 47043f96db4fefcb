"""Latency of ``ask`` over ten seed questions: time to first token and total, median and p95.

    python bench/ask_latency.py                 # the embedded model, then --llm none (same run)
    python bench/ask_latency.py --llm local     # the embedded model only (starts its server once)
    python bench/ask_latency.py --cold --warm --served
                                                # one `citeline ask` process per question, as users run it:
                                                # cold (each starts its own model server, the old way),
                                                # warm (the resident model server, each process starting
                                                # itself), served (the resident model and the warm query
                                                # process of #23 as well), in one run

Uses the index in CITELINE_DATA_DIR (the bundled corpus is ingested if it is missing). Prints one
line per question and the summary, and writes bench/results/ask-<llm>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import percentile, wait_for_warm_process

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


def prompt_median(rows: list[dict]) -> float | None:
    """The median answer prompt over the questions that sent one (a listing or an abstention sends none)."""
    sent = [r["prompt_tokens"] for r in rows if r["prompt_tokens"]]
    return statistics.median(sent) if sent else None


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
        "prompt_tokens_median": prompt_median(rows),
        "rows": rows,
    }


def _process(question: str, env: dict[str, str]) -> dict:
    """One `citeline ask --json` process: wall time, and first token counted from the process start."""
    started = time.perf_counter()
    out = subprocess.run(["citeline", "ask", question, "--json", "--no-log"], env=env, capture_output=True,
                         text=True, check=True)  # fmt: skip
    wall = time.perf_counter() - started
    answer = json.loads(out.stdout)
    t = answer["timings"]
    before_ask = wall - t["total"]  # interpreter, imports, index open: before the question is asked
    first = before_ask + t.get("first_token", t["total"])
    return {"question": question, "first_token_s": round(first, 3), "total_s": round(wall, 3),
            "mode": answer["mode"], "prompt_tokens": answer["prompt_tokens"]}  # fmt: skip


def measure_processes(kind: str) -> dict:
    """Each question in a new process: ``cold`` starts a model server per process (residency off),
    ``warm`` reuses the resident server (started and warmed up once before the timed questions),
    ``served`` also has the warm query process run each command (no process start-up)."""
    settings = load_settings().replace(llm="local")
    ensure_index(settings)
    env = {**os.environ, "CITELINE_LLM": "local", "CITELINE_SERVE_IDLE_MINUTES": "0"}
    for stop in (["llm", "stop"], ["serve", "stop"]):
        subprocess.run(["citeline", *stop], env=env, capture_output=True, check=True)
    if kind == "cold":
        env["CITELINE_LLM_IDLE_MINUTES"] = "0"
    else:
        env["CITELINE_SERVE_IDLE_MINUTES"] = "5" if kind == "served" else "0"
        _process("What is AdaSCALE?", env)  # starts the resident server(s); not timed
        if kind == "served":
            wait_for_warm_process(["citeline", "serve", "status", "--json"], env)
    rows = []
    for question in QUESTIONS:
        row = _process(question, env)
        rows.append(row)
        print(
            f"{kind}: {row['total_s']:6.2f}s  first {row['first_token_s']:6.2f}s  {row['mode']:10} "
            f"{row['prompt_tokens']:4} prompt tokens  {question}"
        )
    if kind != "cold":
        for stop in (["llm", "stop"], ["serve", "stop"]):
            subprocess.run(["citeline", *stop], env=env, capture_output=True, check=True)
    totals = [r["total_s"] for r in rows]
    firsts = [r["first_token_s"] for r in rows]
    return {
        "llm": f"local, {kind} process per question",
        "questions": len(rows),
        "first_token_median_s": round(statistics.median(firsts), 2),
        "first_token_p95_s": round(percentile(firsts, 0.95), 2),
        "total_median_s": round(statistics.median(totals), 2),
        "total_p95_s": round(percentile(totals, 0.95), 2),
        "prompt_tokens_median": prompt_median(rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--llm", default="local,none", help="comma-separated settings, measured in turn")
    parser.add_argument("--cold", action="store_true", help="a process per question, each starting the model")
    parser.add_argument("--warm", action="store_true", help="a process per question, the resident model")
    parser.add_argument("--served", action="store_true", help="as --warm, and the warm query process")
    args = parser.parse_args()
    if args.cold or args.warm or args.served:
        kinds = [k for k in ("cold", "warm", "served") if getattr(args, k)]
        results = [measure_processes(kind) for kind in kinds]
        print(json.dumps([{k: v for k, v in r.items() if k != "rows"} for r in results], indent=2))
        out = Path(__file__).parent / "results" / f"ask-processes-{'-'.join(kinds)}.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(results, indent=2))
        return
    results = [measure(llm.strip()) for llm in args.llm.split(",")]
    print(json.dumps([{k: v for k, v in r.items() if k != "rows"} for r in results], indent=2))
    out = Path(__file__).parent / "results" / f"ask-{args.llm.replace(',', '-')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
