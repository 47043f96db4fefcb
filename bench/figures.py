"""Shared by the benchmarks: print figures aligned, and keep them as JSON in bench/results/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


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
