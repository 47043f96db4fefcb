"""The first answer of a new embedded-model server, and stopping the resident one.

    python bench/first_answer.py [--baseline REF] [--runs 5]

Every server's first question used to compute the answer prompt's system text (~270 tokens)
before its own; now the process that starts the server restores it from the file an earlier
server saved (``rag.llm.prefix``). This times what a user sees, from the shell:

- ``ask``: one ``citeline ask --json`` per question with a server of its own
  (``CITELINE_LLM_IDLE_MINUTES=0``: the per-process mode, and what the first question after every
  resident start pays): wall time and the answer's own time to first token, median and p95;
- ``llm stop``: wall time of ``citeline llm stop`` with a resident server running.

``--baseline REF`` also runs that commit's code (a temporary worktree), the two sides taking
turns question by question. Uses the index in CITELINE_DATA_DIR (the bundled corpus is ingested
if it is missing) and the installed weights. Writes bench/results/first-answer.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ask_latency import QUESTIONS
from figures import baseline_checkout, percentile, report, run_timed

from rag import ensure_index
from rag.settings import load_settings

PER_PROCESS = {"CITELINE_LLM": "local", "CITELINE_LLM_IDLE_MINUTES": "0", "CITELINE_SERVE_IDLE_MINUTES": "0"}
RESIDENT = {**PER_PROCESS, "CITELINE_LLM_IDLE_MINUTES": "15"}


def summary(values: list[float]) -> dict[str, float]:
    return {"median_s": round(statistics.median(values), 2), "p95_s": round(percentile(values, 0.95), 2)}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="git ref also measured, as 'baseline'")
    parser.add_argument("--runs", type=int, default=5, help="`llm stop` runs per side")
    args = parser.parse_args(argv)
    ensure_index(load_settings())
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    with baseline_checkout(args.baseline) if args.baseline else contextlib.nullcontext() as base:
        sides = {"current": None, **({"baseline": base} if base else {})}
        walls: dict[str, list[float]] = {side: [] for side in sides}
        firsts: dict[str, list[float]] = {side: [] for side in sides}
        for question in QUESTIONS:
            for side, checkout in sides.items():
                ask = ["citeline", "ask", question, "--json", "--no-log"]
                wall, out = run_timed(ask, {**env, **PER_PROCESS}, checkout)
                answer = json.loads(out)
                walls[side].append(wall)
                first = answer["timings"].get("first_token")
                if first:
                    firsts[side].append(first)
                print(f"{side:>8} {wall:6.2f} s  first token {first}  {question}")
        stops: dict[str, list[float]] = {side: [] for side in sides}
        for _ in range(args.runs):
            for side, checkout in sides.items():
                run_timed(["citeline", "llm", "start"], {**env, **RESIDENT}, checkout)
                stops[side].append(run_timed(["citeline", "llm", "stop"], {**env, **RESIDENT}, checkout)[0])
    figures: dict = {"baseline_ref": args.baseline, "questions": len(QUESTIONS), "cores": os.cpu_count()}
    for side in sides:
        figures[side] = {
            "ask_wall": summary(walls[side]),
            "first_token": summary(firsts[side]),
            "llm_stop": summary(stops[side]),
        }
    figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    report("first-answer", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
