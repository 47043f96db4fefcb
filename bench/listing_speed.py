"""Listing time at conference scale, before → after in one run (no model).

    python bench/listing_speed.py                                   # ICLR 2024 (2,271 papers)
    python bench/listing_speed.py --collection sf-iclr2022,sf-iclr2023 --data-dir bench/results/subfields-data

Ingests ``--corpus`` into ``--collection`` (once; the embedding cache keeps it), then asks the
listing questions below in one process per side (``PYTHONPATH`` at the baseline checkout, then at
this one), each process asking every question once to warm up (index and model loading are not
what is measured) and then ``--repeat`` times. Prints the median and maximum wall time of
``Library.ask`` per side and how many papers each listing found. Writes
bench/results/listing-speed.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from figures import baseline_checkout, conference_parser

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "Which papers work on graph neural networks?",
    "reinforcement learning papers",
    "Give me an overview of the work on diffusion models.",
    "What has been published on federated learning?",
    "list the interpretability papers",
]

RUN = """
import json, statistics, sys, time
import rag
settings = rag.load_settings().replace(llm="none", log=False, collection=sys.argv[1])
library = rag.Library(settings)
questions, repeat = json.loads(sys.argv[2]), int(sys.argv[3])
found = {}
for q in questions:
    answer = library.ask(q)  # warm: indexes, embedder
    found[q] = getattr(answer, "found", None) or len(answer.citations)
times = []
for _ in range(repeat):
    for q in questions:
        mark = time.perf_counter(); library.ask(q); times.append(time.perf_counter() - mark)
print(json.dumps({"median_s": statistics.median(times), "max_s": max(times), "found": found}))
"""


def measure(checkout: Path, collection: str, data: Path, repeat: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout), "CITELINE_DATA_DIR": str(data)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, collection, json.dumps(QUESTIONS), str(repeat)],
        env=env, capture_output=True, text=True, cwd=checkout,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{checkout}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = conference_parser(__doc__, "954e1da", "iclr2024", "listing")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = Path(args.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    if "," not in args.collection:
        env = {**os.environ, "CITELINE_DATA_DIR": str(data)}
        subprocess.run(["citeline", "ingest", args.corpus, "-c", args.collection], env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    report = {"collection": args.collection, "baseline": args.baseline, "questions": QUESTIONS}
    with baseline_checkout(args.baseline) as base:
        report["before"] = measure(base, args.collection, data, args.repeat)
        report["after"] = measure(ROOT, args.collection, data, args.repeat)
    for side in ("before", "after"):
        r = report[side]
        found = list(r["found"].values())
        print(f"{side:<7} median {r['median_s']:.2f} s  max {r['max_s']:.2f} s  found {found}")
    out = ROOT / "bench" / "results" / "listing-speed.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
