"""Start-up time: `citeline --help` and a cold `citeline search` (new process, warm index).

    python bench/startup.py [--data-dir DIR] [--baseline REF]

Each command runs 5 times in a fresh process; prints the median and writes
bench/results/startup.json. The search runs against DIR (default: CITELINE_DATA_DIR), whose
default collection is filled with the bundled corpus first if it is empty. ``--baseline REF``
also times that commit (checked out into a temporary git worktree), interleaved run by run with
this checkout, both as ``python -c "from cli import main; main()"`` with ``PYTHONPATH`` at their
checkout, so load on the machine hits both alike.
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

from figures import ROOT, baseline_checkout, report

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


ENTRY = "import sys; sys.argv[0] = 'citeline'; from cli import main; main()"


def timed(command: list[str], env: dict[str, str], checkout: Path | None = None) -> float:
    if checkout is not None:  # this checkout's code, whatever `citeline` on PATH points at
        command = [sys.executable, "-c", ENTRY, *command[1:]]
        env = {**env, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def measure(env: dict[str, str], sides: dict[str, Path | None]) -> dict[str, float]:
    """Median and minimum of each command on each side, the sides taking turns run by run."""
    runs: dict[tuple[str, str], list[float]] = {}
    for name, command in COMMANDS.items():
        for _ in range(RUNS):
            for side, checkout in sides.items():
                runs.setdefault((side, name), []).append(timed(command, env, checkout))
    figures = {}
    for (side, name), seconds in runs.items():
        prefix = name if side == "current" else f"{side}_{name}"
        figures[f"{prefix}_median_s"] = round(statistics.median(seconds), 3)
        figures[f"{prefix}_min_s"] = round(min(seconds), 3)
    return figures


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--baseline", help="git ref also measured, as 'baseline'")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.data_dir:
        env["CITELINE_DATA_DIR"] = str(args.data_dir)
    timed(COMMANDS["search_cold"], env)  # make sure the index exists before timing
    if not args.baseline:
        report("startup", measure(env, {"current": None}))
        return
    with baseline_checkout(args.baseline) as base:
        figures = measure(env, {"current": ROOT, "baseline": base})
    report("startup", {"baseline": args.baseline, **figures})


if __name__ == "__main__":
    main(sys.argv[1:])
