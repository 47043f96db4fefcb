"""Does a listing's line say what each paper contributes? Authors' TL;DRs judge it, before → after.

    python bench/listing_lines.py            # dev (ICLR 2018), test (ICLR 2017); baseline f09847c
    python bench/listing_lines.py --baseline 3e73566 --data /tmp/subdata

A listing ("Which papers work on X?") shows one sentence of each paper's abstract. A researcher
scanning it wants the sentence that says what the paper does, not its opening motivation
("Graph-structured data are ubiquitous."). OpenReview's authors wrote a one-line TL;DR for most
ICLR 2017/2018 papers: the contribution in their own words. For every listed paper that has one,
this benchmark scores the line's sentence by the share of the TL;DR's content words it holds,
and compares it with the abstract sentence that holds the most (the best a one-sentence line can
do): the share of lines that are that sentence (a line tied with it counts: several sentences
tie for the best in about a quarter of the abstracts), the mean overlap, and how often the line is
the abstract's opening sentence; over all lines, and over the lines of the papers likely on the
topic (before the "Sharing some of its vocabulary:" heading). A paper listed for two topics counts
in each listing. The words, the sentences and the scores are this file's own simple code, not
citeline's (the answer path must not judge itself).

The topics are the subfield benchmark's (``eval/subfields-{dev,test}.jsonl``, first phrasing):
dev's ICLR 2018 topics and test's ICLR 2017 ones, the two conferences whose papers carry TL;DRs.
Each side runs in its own process with ``PYTHONPATH`` at its checkout (the baseline in a git
worktree), asking with no model and the listing cap raised so that every selected paper is
shown; both read the collections the subfield benchmark ingested (``--data``: its data dir).
Writes bench/results/listing-lines.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from figures import baseline_checkout

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
FILES = {"dev": "iclr2018.jsonl.gz", "test": "iclr2017.jsonl.gz"}

SIDE = """
import json, sys
import rag
from rag.eval.subfields import collection_for
file, topics = sys.argv[1], json.loads(sys.argv[2])
settings = rag.load_settings().replace(llm="none", collection=collection_for(file), log=False)
library = rag.Library(settings.replace(listing_max_papers=1000))
out = []
for question in topics:
    answer = library.ask(question)
    out.append({"question": question, "text": answer.text,
                "cited": {c.key: [c.paper.id, c.paper.display] for c in answer.citations}})
print(json.dumps(out))
"""

_STOP = set(
    "a an the of and or to in on for with by from as at is are be been being this that these those we our "
    "it its their which can via into than then also such using use used based new paper work "
    # The words a contribution is framed with ("We propose a ...") are in most TL;DRs: sharing
    # them says nothing about the sentence's content.
    "propose proposed introduce introduced present presented show shows demonstrate study novel "
    "approach method".split()
)


def words(text: str) -> set[str]:
    """Content words, lower-cased, with a plural ``s`` dropped: crude on purpose, and independent."""
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    return {t[:-1] if len(t) > 4 and t.endswith("s") else t for t in tokens if t not in _STOP and len(t) > 1}


def sentences(abstract: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", " ".join(abstract.split())) if s]


def overlap(tldr: set[str], text: str) -> float:
    return len(tldr & words(text)) / len(tldr) if tldr else 0.0


def lines_of(answer: dict, likely_only: bool = False) -> dict[str, str]:
    """Paper id → the sentence its listing line shows (its label and citation taken off); with
    ``likely_only``, the lines before the heading of the papers only sharing some vocabulary."""
    out = {}
    for line in answer["text"].splitlines():
        if likely_only and line.startswith("Sharing some of its vocabulary"):
            break
        found = re.findall(r"\[([^\[\]]+)\]", line)
        if not line.startswith("- ") or not found or found[-1] not in answer["cited"]:
            continue
        paper_id, label = answer["cited"][found[-1]]
        body = line[2:]
        if body.startswith(f"{label}: "):
            body = body[len(label) + 2 :]
        out[paper_id] = body.replace(f"[{found[-1]}]", "").strip()
    return out


def measure_side(checkout: Path, file: str, questions: list[str], data: Path) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "CITELINE_DATA_DIR": str(data), "CITELINE_LOG": "false"}
    done = subprocess.run(
        [sys.executable, "-c", SIDE, file, json.dumps(questions)],
        env=env, capture_output=True, text=True, cwd=checkout,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{checkout}: the listing side failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def score(answers: list[dict], papers: dict[str, dict], likely_only: bool = False) -> dict:
    """Per listed paper with a TL;DR: the line's overlap, the best sentence's, whether it is the opening."""
    best, shares, ratios, opening = [], [], [], []
    for answer in answers:
        for paper_id, line in lines_of(answer, likely_only).items():
            record = papers.get(paper_id)
            if not record or not record.get("tldr"):
                continue
            tldr = words(record["tldr"])
            candidates = sentences(record["abstract"])
            if not tldr or not candidates:
                continue
            top = max(overlap(tldr, s) for s in candidates)
            mine = overlap(tldr, line)
            best.append(mine >= top - 1e-9)
            shares.append(mine)
            ratios.append(mine / top if top else 1.0)
            opening.append(words(line) == words(candidates[0]))
    n = len(best)
    return {
        "lines": n,
        "best_sentence": sum(best) / n if n else None,
        "tldr_overlap": statistics.fmean(shares) if n else None,
        "of_best": statistics.fmean(ratios) if n else None,
        "opening_sentence": sum(opening) / n if n else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--baseline", default="f09847c", help="git ref measured as 'before' (default: before the role rule)"
    )
    parser.add_argument("--split", default="dev,test")
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "results" / "subfields-data")
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    args = parser.parse_args()
    rev = ["git", "-C", str(ROOT), "rev-parse", args.baseline, "HEAD"]
    commits = subprocess.run(rev, capture_output=True, text=True, check=True).stdout.split()
    report: dict = {
        "baseline": args.baseline,
        "commits": dict(zip(("before", "after"), commits, strict=True)),
        "splits": {},
    }
    with baseline_checkout(args.baseline) as base:
        for split in args.split.split(","):
            file = FILES[split]
            topics = [json.loads(line) for line in (ROOT / "eval" / f"subfields-{split}.jsonl").open()]
            questions = [t["questions"][0] for t in topics if t["file"] == file]
            with gzip.open(args.corpora / file, "rt", encoding="utf-8") as handle:
                papers = {r["id"]: r for r in map(json.loads, handle)}
            sides = {}
            for name, checkout in (("before", base), ("after", ROOT)):
                answers = measure_side(checkout, file, questions, args.data)
                sides[name] = score(answers, papers)
                sides[f"{name}, likely"] = score(answers, papers, likely_only=True)
            report["splits"][split] = {"file": file, "questions": len(questions), **sides}
            print(f"{split} ({file}, {len(questions)} listings, no model):")
            for name, s in sides.items():
                print(f"  {name:<14} lines {s['lines']:>5}  best sentence {s['best_sentence']:.3f}  "
                      f"TL;DR overlap {s['tldr_overlap']:.3f} ({s['of_best']:.3f} of the best)  "
                      f"opening sentence {s['opening_sentence']:.3f}")  # fmt: skip
    out = ROOT / "bench" / "results" / "listing-lines.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
