"""Shared by the benchmarks: print figures aligned, and keep them as JSON in bench/results/."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def baseline_checkout(ref: str) -> Iterator[Path]:
    """``ref`` checked out into a temporary git worktree (removed afterwards), for "before" figures
    measured in the same run as this checkout's."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        add = ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), ref]
        subprocess.run(add, check=True)
        try:
            yield base
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)


ENTRY = "import sys; sys.argv[0] = 'citeline'; from cli import main; main()"


def in_checkout(command: list[str], env: dict[str, str], checkout: Path | None):
    """``citeline ...`` as a checkout's code runs it (``checkout`` None: the installed one). Run it
    with the checkout as working directory: ``python -c`` puts that first on sys.path."""
    if checkout is None:
        return command, env
    return [sys.executable, "-c", ENTRY, *command[1:]], {**env, "PYTHONPATH": str(checkout)}


def run_timed(command: list[str], env: dict[str, str], checkout: Path | None = None) -> tuple[float, str]:
    """``citeline ...`` run as :func:`in_checkout` says (in the checkout's directory): seconds, stdout."""
    command, env = in_checkout(command, env, checkout)
    started = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env, cwd=checkout)
    return time.perf_counter() - started, done.stdout


def report(name: str, figures: dict[str, Any]) -> Path:
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:>{width}}: {value}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps(figures, indent=2, ensure_ascii=False))
    return out


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile: with few samples, a value that was actually measured."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def peak_rss_mib(pid: int) -> float | None:
    """A running process's peak resident memory (Linux ``VmHWM``), e.g. a Chroma server's."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def wait_for_warm_process(status: list[str], env: dict[str, str], cwd: Path | None = None) -> None:
    """Wait (at most 2 minutes) until ``status`` (``citeline serve status --json``, however it is
    invoked) shows a warm process that has finished warming up; a citeline without warm processes
    (a baseline checkout: the command fails) returns at once."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        shown = subprocess.run(status, capture_output=True, text=True, env=env, cwd=cwd)
        if shown.returncode != 0 or '"served"' in shown.stdout:
            return
        time.sleep(0.5)
    raise SystemExit("the warm process did not start")


def conference_parser(doc: str, baseline: str, corpus: str, name: str) -> argparse.ArgumentParser:
    """The arguments of a benchmark over one conference file, before → after: ``--baseline``,
    ``--corpus`` (a file of ``../shared/corpora``), ``--collection`` it is ingested into and the
    ``--data-dir`` that holds it (``bench/results/NAME-data``)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=baseline)
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / f"{corpus}.jsonl.gz"))
    parser.add_argument("--collection", default=corpus)
    parser.add_argument("--data-dir", default=str(RESULTS / f"{name}-data"))
    return parser
