"""Start-up time: `citeline --help`, a cold `citeline search`, and the second `search` and
`ask --llm none` of a user (the warm process of #23 serves them).

    python bench/startup.py [--data-dir DIR] [--collection NAME] [--baseline REF] [--out NAME]

Each command runs 5 times in a fresh process; prints the median and writes
bench/results/startup.json (or NAME.json). The commands run against DIR (default:
CITELINE_DATA_DIR), whose default collection is filled with the bundled corpus first if it is
empty, or against ``--collection`` (e.g. ``sf-iclr2022,sf-iclr2023``, 2,679 papers).
``search_cold`` runs with the warm process off (``CITELINE_SERVE_IDLE_MINUTES=0``): every process
starts from nothing. ``*_second`` runs as a user's next command within a minute: the warm process
is on, and one command before the timed one has left it up (the baseline has none: its second
call is another cold one). ``--baseline REF`` also times that commit (checked out into a temporary
git worktree), interleaved run by run with this checkout, both as ``python -c "from cli import
main; main()"`` with ``PYTHONPATH`` at their checkout, so load on the machine hits both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import ROOT, baseline_checkout, in_checkout, report, run_timed, wait_for_warm_process

RUNS = 5
SEARCH = ["citeline", "search", "adaptive percentile threshold for OOD activation scaling", "--json"]
ASK = ["citeline", "ask", "By how much does AdaSCALE beat OptFS?", "--llm", "none", "--no-log", "--json"]
COMMANDS = {"help": ["citeline", "--help"], "search_cold": SEARCH, "search_second": SEARCH, "ask_second": ASK}
COLD = {"CITELINE_SERVE_IDLE_MINUTES": "0"}
WARM = {"CITELINE_SERVE_IDLE_MINUTES": "5"}


def timed(command: list[str], env: dict[str, str], checkout: Path | None = None) -> float:
    return run_timed(command, env, checkout)[0]


def warm_up(env: dict[str, str], checkout: Path | None) -> None:
    """The command a user ran before: it leaves the warm process up; wait until it serves."""
    timed(SEARCH, env, checkout)
    wait_for_warm_process(*in_checkout(["citeline", "serve", "status", "--json"], env, checkout), checkout)


def measure(env: dict[str, str], sides: dict[str, Path | None]) -> dict[str, float]:
    """Median and minimum of each command on each side, the sides taking turns run by run."""
    runs: dict[tuple[str, str], list[float]] = {}
    for name, command in COMMANDS.items():
        mode = {**env, **(WARM if name.endswith("_second") else COLD)}
        for _ in range(RUNS):
            for side, checkout in sides.items():
                if name.endswith("_second"):
                    warm_up(mode, checkout)
                runs.setdefault((side, name), []).append(timed(command, mode, checkout))
    figures = {}
    for (side, name), seconds in runs.items():
        prefix = name if side == "current" else f"{side}_{name}"
        figures[f"{prefix}_median_s"] = round(statistics.median(seconds), 3)
        figures[f"{prefix}_min_s"] = round(min(seconds), 3)
    return figures


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--collection", help="collection(s) to search (default: the default one)")
    parser.add_argument("--baseline", help="git ref also measured, as 'baseline'")
    parser.add_argument("--out", default="startup", help="results name under bench/results/")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.data_dir:
        env["CITELINE_DATA_DIR"] = str(args.data_dir.resolve())
    if args.collection:
        env["CITELINE_COLLECTION"] = args.collection
    timed(SEARCH, {**env, **COLD})  # make sure the index exists before timing
    shown = {"collection": args.collection or "default"}
    if not args.baseline:
        report(args.out, {**shown, **measure(env, {"current": None})})
        return
    with baseline_checkout(args.baseline) as base:
        figures = measure(env, {"current": ROOT, "baseline": base})
    subprocess.run(["citeline", "serve", "stop"], env=env, capture_output=True)  # leave the machine quiet
    report(args.out, {**shown, "baseline": args.baseline, **figures})


if __name__ == "__main__":
    main(sys.argv[1:])
