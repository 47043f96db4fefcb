"""A 30-paper summary with the embedded model, before → after in one run.

    python bench/summary_speed.py                                  # ICLR 2022, three subfields
    python bench/summary_speed.py --baseline HEAD~3 --topics "graph neural networks"

Ingests ``--corpus`` into ``--collection`` (once; the embedding cache keeps it), starts the
embedded model's resident server and asks it once (so neither side pays for loading it or for
the subfield-terms call, which is cached per topic), then runs ``citeline summarize TOPIC
--max-papers 30 --format json`` once per topic per side, in a new process each, baseline first
(``PYTHONPATH`` at a temporary checkout of ``--baseline``). Prints the wall time of each, the
summary's own timings, how many notes the model wrote and how many themes it has, and writes
bench/results/summary-speed.json. The target (issue #19): a summary of 30 papers in ≤ 60 s on 2 cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from figures import baseline_checkout, conference_parser, in_checkout

ROOT = Path(__file__).resolve().parents[1]
TOPICS = ["graph neural networks", "meta-learning", "adversarial robustness"]


def run(checkout: Path, args: list[str], data: Path) -> float:
    """Seconds one ``citeline`` command takes in a new process of ``checkout``."""
    env = {
        **os.environ,
        "CITELINE_DATA_DIR": str(data),
        "CITELINE_LOG": "false",
        "CITELINE_SERVE_IDLE_MINUTES": "0",
        "CITELINE_LLM": "local",  # the embedded model, never a quiet fall-back to none
    }
    command, env = in_checkout(["citeline", *args], env, checkout)
    mark = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True)
    seconds = time.perf_counter() - mark
    if done.returncode:
        raise SystemExit(f"{checkout}: citeline {' '.join(args)}: {done.stderr[-2000:]}")
    return seconds


def summarize(checkout: Path, topic: str, collection: str, data: Path, out: Path) -> dict:
    """One summary's wall time, timings, notes written by the model and themes."""
    args = ["summarize", topic, "-c", collection, "--max-papers", "30", "--format", "json", "--out", str(out)]
    wall = run(checkout, args, data)
    doc = json.loads(out.read_text())
    papers = [p for theme in doc["themes"] for p in theme["papers"]]
    return {
        "wall_s": round(wall, 2),
        "timings": doc["timings"],
        "papers": len(papers),
        "by_model": sum(bool(p.get("by_model")) for p in papers),
        "themes": [(t["name"], len(t["papers"])) for t in doc["themes"]],
        "lead": doc["lead"],
    }


def main() -> None:
    parser = conference_parser(__doc__, "0f8440b", "iclr2022", "summary")
    parser.add_argument("--topics", default=",".join(TOPICS))
    args = parser.parse_args()
    data = Path(args.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    topics = [t.strip() for t in args.topics.split(",") if t.strip()]
    run(ROOT, ["ingest", args.corpus, "-c", args.collection], data)
    run(ROOT, ["llm", "start"], data)
    for topic in topics:  # the model loaded and each topic's terms cached, for both sides alike
        run(ROOT, ["ask", f"Which papers work on {topic}?", "-c", args.collection, "--llm", "local"], data)
    report: dict = {"collection": args.collection, "baseline": args.baseline, "topics": topics}
    out = data / "summary.json"
    try:
        with baseline_checkout(args.baseline) as base:
            for side, checkout in (("before", base), ("after", ROOT)):
                report[side] = {t: summarize(checkout, t, args.collection, data, out) for t in topics}
    finally:
        run(ROOT, ["llm", "stop"], data)
    for topic in topics:
        for side in ("before", "after"):
            r = report[side][topic]
            print(
                f"{topic[:28]:<28} {side:<6} {r['wall_s']:6.1f} s wall ({r['timings']})  "
                f"{r['by_model']}/{r['papers']} notes by the model, themes {[n for _, n in r['themes']]}"
            )
    result = ROOT / "bench" / "results" / "summary-speed.json"
    result.write_text(json.dumps(report, indent=2))
    print(f"wrote {result}")


if __name__ == "__main__":
    main()
