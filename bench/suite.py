"""The README's test command as CI runs it: ``.ci/run`` from a fresh clone of each commit, the
baseline first, one after the other on this machine (#23's target: 8 minutes on 2 cores).

    python bench/suite.py [--baseline REF] [--ref REF] [--out NAME]

Each side is ``git clone`` of this repository checked out at the commit (``--ref`` defaults to
HEAD: commit what you want measured), then ``bash .ci/run`` in that clone, which installs it
editable, starts the servers and runs ``python -m pytest -q``. Prints each side's test step
(pytest's own "in N s"), the whole run's wall time and the test counts, and writes
bench/results/suite.json (or NAME.json). The editable install is pointed back at this checkout
at the end. About 15 minutes for two sides; run it alone on the machine, a second job skews both.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import ROOT, report

# pytest's last line: "833 passed, 4 skipped in 361.92s (0:06:01)" ("=" around it without -q).
SUMMARY = re.compile(
    r"^=*\s*(?P<counts>\d+ (?:passed|failed|errors?)[^=\n]*?) in (?P<seconds>[\d.]+)s", re.MULTILINE
)


def run_ci(ref: str, folder: Path) -> dict:
    """``.ci/run`` in a fresh clone of ``ref``: its figures, and the log's tail when it failed."""
    clone = folder / "clone"
    shared = ROOT.parent / "shared"
    if shared.is_dir():  # the tests read ../shared/corpora beside the checkout; without it some skip
        (folder / "shared").symlink_to(shared)
    # The ref as this checkout reads it: a clone has other branches only as origin/NAME.
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
                            check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--detach", commit], check=True)
    started = time.perf_counter()
    done = subprocess.run(["bash", ".ci/run"], cwd=clone, capture_output=True, text=True)
    wall = time.perf_counter() - started
    found = list(SUMMARY.finditer(done.stdout))
    figures = {"ref": ref, "commit": commit[:10], "exit": done.returncode, "wall_s": round(wall, 1)}
    if found:
        figures |= {"tests": found[-1]["counts"].strip(), "test_step_s": float(found[-1]["seconds"])}
    if done.returncode:
        figures["log_tail"] = (done.stdout + done.stderr)[-3000:]
    return figures


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--baseline", help="the commit measured first (none: only --ref)")
    parser.add_argument("--ref", default="HEAD", help="the commit measured (default HEAD)")
    parser.add_argument("--out", default="suite")
    args = parser.parse_args()
    sides = {"baseline": args.baseline, "this": args.ref} if args.baseline else {"this": args.ref}
    results = {}
    try:
        for side, ref in sides.items():
            with tempfile.TemporaryDirectory(prefix="citeline-suite-") as tmp:
                results[side] = run_ci(ref, Path(tmp))
            shown = {k: v for k, v in results[side].items() if k != "log_tail"}
            print(side, shown, flush=True)
            if results[side]["exit"]:
                print(results[side]["log_tail"], file=sys.stderr)
    finally:  # .ci/run installed its clone editable: point the install back here
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)],
                       check=False, capture_output=True)  # fmt: skip
    report(args.out, results)
    if any(side["exit"] for side in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
