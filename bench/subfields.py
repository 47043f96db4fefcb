"""The subfield benchmark, before → after in one run: recall, precision and listing time per split.

    python bench/subfields.py                          # dev and test, --llm none, baseline 954e1da
    python bench/subfields.py --split test --baseline HEAD~3
    python bench/subfields.py --llm local --questions 1   # with the embedded model, one phrasing

Each side runs in its own process with ``PYTHONPATH`` at its checkout (the baseline is checked
out into a temporary git worktree), loading the harness ``rag/eval/subfields.py`` of *this*
checkout by path: it uses only the public API, so both sides are measured by the same code.
Both share one data dir (``bench/results/subfields-data``), so the conferences are embedded once.
The harness raises the listing cap to 1000 for the current code (its selection is not capped:
the cap only limits what a listing shows). The baseline keeps its default cap of 30, which is
what its users got (it selected at most that many); ``--baseline-cap 1000`` measures it at its
best, about twenty times slower. With ``--llm local`` a listing asks the model once for the
subfield's terms, cached per topic in the data dir: a second run reuses them, so its time is the
no-model time plus nothing; the call itself (~6 s here) is timed by the first run's answers
(``timings["terms"]``). Writes bench/results/subfields-<llm>-<N>q.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from figures import baseline_checkout

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "rag" / "eval" / "subfields.py"
CORPORA = ROOT.parent / "shared" / "corpora"

RUN = """
import importlib.util, json, sys
from pathlib import Path
import rag
spec = importlib.util.spec_from_file_location("subfields_harness", sys.argv[1])
harness = importlib.util.module_from_spec(spec); spec.loader.exec_module(harness)
harness.LISTING_CAP = int(sys.argv[6])
settings = rag.load_settings().replace(llm=sys.argv[4])
result = harness.run_subfields(settings, Path(sys.argv[2]), sys.argv[3], topics_file=Path(sys.argv[5]))
result.pop("questions")
print(json.dumps(result))
"""


def topics_file(split: str, questions: int, tmp: Path) -> Path:
    """The split's topics, each with its first ``questions`` phrasings only."""
    path = ROOT / "eval" / f"subfields-{split}.jsonl"
    if questions >= 3:
        return path
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = tmp / f"subfields-{split}-{questions}.jsonl"
    out.write_text("".join(json.dumps({**r, "questions": r["questions"][:questions]}) + "\n" for r in rows))
    return out


def measure(checkout: Path, split: str, llm: str, data: Path, cap: int, topics: Path) -> dict:
    """The harness's figures for one split, with ``rag`` imported from ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "CITELINE_DATA_DIR": str(data), "CITELINE_LOG": "false"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(HARNESS), str(CORPORA), split, llm, str(topics), str(cap)],
        env=env, capture_output=True, text=True, cwd=checkout,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{checkout}: the harness failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def row(name: str, result: dict) -> str:
    o = result["overall"]
    median = o.get("seconds_median")
    judged = o.get("judged_precision")  # only the current harness has it; both sides are run by it
    judged = "–" if judged is None else f"{judged:.3f} (unjudged {o['unjudged_share']:.3f})"
    if o.get("count_ratio_median") is not None:
        judged += f"  count/judged {o['count_ratio_median']:.2f} median, {o['count_within_2x']:.2f} within 2x"
    return (
        f"  {name:<9} recall {o['recall']:.3f}  precision {o['precision']:.3f}  judged precision {judged}  "
        f"listed {o['listed_mean']:.0f} per question  not a listing {o['not_listing_share']:.2f}  "
        f"median ask {median:.2f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", default="954e1da", help="git ref measured as 'before'")
    parser.add_argument("--split", default="dev,test")
    parser.add_argument("--llm", default="none")
    parser.add_argument(
        "--baseline-cap", type=int, default=30,
        help="the baseline's listing cap: 30 is what its users got (its default); 1000 its best, far slower",
    )  # fmt: skip
    parser.add_argument(
        "--questions", type=int, default=3,
        help="the first N phrasings of each topic (1: one question per topic, for slow model runs)",
    )  # fmt: skip
    args = parser.parse_args()
    results_dir = ROOT / "bench" / "results"
    data = results_dir / "subfields-data"
    data.mkdir(parents=True, exist_ok=True)
    report: dict = {"baseline": args.baseline, "baseline_cap": args.baseline_cap, "llm": args.llm,
                    "questions_per_topic": args.questions}  # fmt: skip
    report["splits"] = {}
    with tempfile.TemporaryDirectory() as tmp, baseline_checkout(args.baseline) as base:
        for split in args.split.split(","):
            topics = topics_file(split, args.questions, Path(tmp))
            before = measure(base, split, args.llm, data, args.baseline_cap, topics)
            after = measure(ROOT, split, args.llm, data, 1000, topics)
            report["splits"][split] = {"before": before, "after": after}
            print(f"{split} ({args.llm}):")
            print(row("before", before))
            print(row("after", after))
            for b, a in zip(before["conferences"], after["conferences"], strict=True):
                print(f"    {a['file']:<18} recall {b['recall']:.3f} → {a['recall']:.3f}  "
                      f"precision {b['precision']:.3f} → {a['precision']:.3f}")  # fmt: skip
    name = f"subfields-{args.llm}-{args.questions}q.json"
    (results_dir / name).write_text(json.dumps(report, indent=2))
    print(f"wrote {results_dir / name}")


if __name__ == "__main__":
    main()
