"""Start-up time: `citeline --help` and a cold `citeline search` (new process, warm index).

    python bench/startup.py

Each command runs 5 times in a fresh process; prints the median and writes
bench/results/startup.json. The search runs against CITELINE_DATA_DIR (ingested first if empty).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path

RUNS = 5
COMMANDS = {
    "help": ["citeline", "--help"],
    "search_cold": [
        "citeline",
        "search",
        "adaptive percentile threshold for OOD activation scaling",
        "--json",
    ],
}


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    timed(COMMANDS["search_cold"])  # make sure the index exists before timing
    figures = {}
    for name, command in COMMANDS.items():
        runs = [timed(command) for _ in range(RUNS)]
        figures[f"{name}_median_s"] = round(statistics.median(runs), 3)
        print(f"{name:>12}: median {statistics.median(runs):.3f}s over {RUNS} runs (min {min(runs):.3f}s)")
    out = Path(__file__).parent / "results" / "startup.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
