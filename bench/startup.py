"""Start-up time: `citeline --help` and a cold `citeline search` (new process, warm index).

    python bench/startup.py [--data-dir DIR]

Each command runs 5 times in a fresh process; prints the median and writes
bench/results/startup.json. The search runs against DIR (default: CITELINE_DATA_DIR), whose
default collection is filled with the bundled corpus first if it is empty.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report

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


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.data_dir:
        env["CITELINE_DATA_DIR"] = str(args.data_dir)
    timed(COMMANDS["search_cold"], env)  # make sure the index exists before timing
    figures = {}
    for name, command in COMMANDS.items():
        runs = [timed(command, env) for _ in range(RUNS)]
        figures[f"{name}_median_s"] = round(statistics.median(runs), 3)
        figures[f"{name}_min_s"] = round(min(runs), 3)
    report("startup", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
