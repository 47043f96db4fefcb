"""The subfield benchmark: does "Which papers work on X?" list a whole subfield of a conference?

Issue #19: at conference scale, topic selection missed most of a subfield. This harness measures
it on ``eval/subfields-{dev,test}.jsonl`` (built by ``eval/build_subfields.py``; gold = the papers
whose author keywords name the subfield). Each conference file is ingested into its own
collection (``sf-iclr2018``, ...), then every question of every topic is asked through
``rag.Library.ask`` and the papers listed (the distinct ``citation.paper.id`` of the answer) are
compared with gold: recall, precision, how many were listed, the ask's wall time and the
answer's mode (a listing question should get a ``listing`` answer).

It deliberately uses the public API only (``rag.ingest``, ``rag.Library``, ``Settings.replace``,
``rag.CitelineError``) and the standard library, and shares no code with the answer path, so the
same file can be loaded by path and run against an older checkout (``PYTHONPATH`` pointing at
it) for before/after figures. Settings fields an older checkout lacks are skipped, not errors.

Author keywords under-tag: a listed paper outside gold is often on topic all the same, so the
keyword precision here is a lower bound. ``eval/subfields-judged.jsonl`` sees past it: for each
topic's first phrasing, the papers outside gold that the listing at commit c022789 held, by
quarter of its ranking, and a random sample of four per quarter judged on or off the subfield
from title and abstract (blind to rank, score and keywords). A listing's **judged precision**
counts its gold papers and, for each quarter, the papers it holds of the quarter at the
judged-on rate of the sampled papers it holds (of the whole sample when it holds none of them):
a stratified estimate. A paper that listing never held has no judgement
and counts as off the subfield (the share of such papers is reported: the estimate is exact
only for listings inside c022789's). The same sample gives the subfield's **judged count** (gold,
plus the estimated judged-on papers of that listing), against which the count an answer
announces ("62 papers likely on X", or the count of an answer that does not say which are
likely) is compared: the median ratio, and the share of questions within twice the judged count.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import rag

SPLITS = ("dev", "test")
# Listing answers are capped for display (30 by default); the benchmark wants all of them.
LISTING_CAP = 1000


def _noop(stage: str, done: int, total: int) -> None:
    pass


def subfields_file(split: str) -> Path:
    """The bundled topics of ``split``: in the checkout's eval/ or, in a wheel, rag/_resources/eval."""
    if split not in SPLITS:
        raise rag.BadInput(f"unknown subfield split {split!r} (use {', '.join(SPLITS)})")
    here = Path(__file__).resolve()
    for folder in (here.parents[1] / "_resources" / "eval", here.parents[2] / "eval"):
        if (folder / f"subfields-{split}.jsonl").is_file():
            return folder / f"subfields-{split}.jsonl"
    raise rag.NotFound(f"subfields-{split}.jsonl is missing (run eval/build_subfields.py)")


def load_topics(path: Path) -> list[dict[str, Any]]:
    """The topic rows of a subfields JSONL file; a malformed line is one ``file:line`` error."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise rag.CitelineError(f"{path}: cannot read the subfield topics ({exc})") from None
    topics = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            row = {
                "id": str(raw["id"]),
                "file": str(raw["file"]),
                "topic": str(raw["topic"]),
                "venue": str(raw.get("venue", "")),
                "year": raw.get("year"),
                "questions": [str(q) for q in raw["questions"]],
                "gold": [str(g) for g in raw["gold"]],
            }
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise rag.BadInput(
                f"{path}:{lineno}: not a subfield topic ({type(exc).__name__}: {exc})"
            ) from None
        if not row["gold"] or not row["questions"] or not all(q.strip() for q in row["questions"]):
            raise rag.BadInput(f"{path}:{lineno}: a topic needs gold papers and non-empty questions")
        topics.append(row)
    if not topics:
        raise rag.BadInput(f"{path}: no subfield topics")
    return topics


def collection_for(file: str) -> str:
    """The collection a conference file is ingested into: ``iclr2018.jsonl.gz`` -> ``sf-iclr2018``."""
    return "sf-" + file.split(".", 1)[0]


def _with(settings: Any, **changes: Any) -> Any:
    """``settings.replace(...)`` with only the fields this checkout's Settings has."""
    return settings.replace(**{k: v for k, v in changes.items() if hasattr(settings, k)})


def score(listed: set[str], gold: set[str]) -> tuple[float, float | None]:
    """(recall, precision) of the listed papers against gold; precision is None when nothing is listed."""
    hits = len(listed & gold)
    return hits / len(gold), (hits / len(listed) if listed else None)


def judged_file() -> Path:
    """``subfields-judged.jsonl`` beside the bundled topics."""
    return subfields_file("dev").with_name("subfields-judged.jsonl")


def load_judged(path: Path | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """The judged samples by (topic id, question); empty when the file is absent."""
    path = path or judged_file()
    if not path.is_file():
        return {}
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {(r["id"], r["question"]): r for r in records}


def _judged_on(listed: set[str], record: dict[str, Any]) -> float:
    """How many of ``listed`` outside gold are on the subfield, estimated quarter by quarter: the
    papers it holds of a quarter at the judged-yes rate of the sampled papers it holds (a quarter
    of 60 listed whole, four judged, one yes: 15), or of the whole sample when it holds none."""
    on = 0.0
    for band in record["bands"]:
        members = set(band)
        sample = {p: v for p, v in record["judged"].items() if p in members}
        held = {p: v for p, v in sample.items() if p in listed} or sample
        if held:
            on += len(members & listed) * sum(v == "yes" for v in held.values()) / len(held)
    return on


def judged_precision(listed: set[str], gold: set[str], record: dict[str, Any]) -> tuple[float | None, float]:
    """(judged precision, share of the listing without a judgement) of one listing; see the module
    docstring."""
    if not listed:
        return None, 0.0
    known = gold.union(*record["bands"])
    on = len(listed & gold) + _judged_on(listed, record)
    return on / len(listed), len(listed - known) / len(listed)


def judged_count(gold: set[str], record: dict[str, Any]) -> float:
    """How many papers the subfield holds, as judged: its keyword gold and the estimated judged-on
    papers of the judged listing (a lower bound: a paper on the subfield that listing missed is
    counted only when the authors tagged it)."""
    return len(gold) + _judged_on(set().union(*record["bands"]), record)


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _within(ratio: float | None) -> float:
    """1.0 when an announced count is within twice the judged count either way (none announced: 0)."""
    return float(ratio is not None and 0.5 <= ratio <= 2.0)


def summarize_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over questions: recall, precision (over questions that listed something), time; shares."""
    seconds = [r["seconds"] for r in rows]
    return {
        "topics": len({r["id"] for r in rows}),
        "questions": len(rows),
        "recall": _mean([r["recall"] for r in rows]),
        "precision": _mean([r["precision"] for r in rows]),
        "judged_precision": _mean([r.get("judged_precision") for r in rows]),
        "judged_questions": sum(r.get("judged_precision") is not None for r in rows),
        "count_ratio_median": _median([r.get("count_ratio") for r in rows]),
        "count_within_2x": _mean([r.get("count_within_2x") for r in rows]),
        "unjudged_share": _mean([r.get("unjudged_share") for r in rows]),
        "listed_mean": _mean([float(r["listed"]) for r in rows]),
        "seconds_mean": _mean(seconds),
        "seconds_median": statistics.median(seconds) if seconds else None,
        "not_listing_share": _mean([float(r["mode"] != "listing") for r in rows]),
        "empty_share": _mean([float(r["listed"] == 0) for r in rows]),
    }


def run_subfields(
    settings: Any,
    corpora: Path,
    split: str = "dev",
    progress: rag.Progress = _noop,
    topics_file: Path | None = None,
) -> dict[str, Any]:
    """Ingest each conference of ``split`` into its own collection and ask every topic's questions.

    ``settings`` decides everything else (data dir, embedding, ``llm``); the collection, the listing
    cap (raised to 1000) and the answer log (off) are set here. ``topics_file`` replaces the bundled
    split (tests use a small one).
    """
    if split not in SPLITS:
        raise rag.BadInput(f"unknown subfield split {split!r} (use {', '.join(SPLITS)})")
    path = topics_file or subfields_file(split)
    topics = load_topics(path)
    judged = load_judged()
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    conferences: list[dict[str, Any]] = []
    for file in dict.fromkeys(t["file"] for t in topics):
        source = corpora / file
        if not source.is_file():
            raise rag.NotFound(f"{source} not found (the subfield benchmark reads ../shared/corpora)")
        collection = collection_for(file)
        ingest_settings = _with(settings, collection=collection)
        counts = {"done": 0, "total": 0}

        def on_ingest(kind: str, n: int, name: str, stage: str = f"ingest {file}", counts=counts) -> None:
            if kind not in ("total", "advance"):
                return
            counts["total" if kind == "total" else "done"] += n
            progress(stage, counts["done"], max(counts["total"], 1))

        mark = time.perf_counter()
        rag.ingest([source], ingest_settings, on_ingest)
        ingest_seconds = time.perf_counter() - mark
        library = rag.Library(_with(ingest_settings, listing_max_papers=LISTING_CAP, log=False))
        mine = [t for t in topics if t["file"] == file]
        total = sum(len(t["questions"]) for t in mine)
        first = len(rows)
        for topic in mine:
            gold = set(topic["gold"])
            for question in topic["questions"]:
                mark = time.perf_counter()
                answer = library.ask(question)
                seconds = time.perf_counter() - mark
                listed = {c.paper.id for c in answer.citations}
                recall, precision = score(listed, gold)
                sample = judged.get((topic["id"], question))
                judged_p, unjudged = judged_precision(listed, gold, sample) if sample else (None, None)
                # The count the answer announces: the papers likely on the topic where it says so.
                likely = getattr(answer, "likely", None)  # older checkouts have neither field
                announced = likely if likely is not None else getattr(answer, "found", None)
                ratio = announced / judged_count(gold, sample) if sample and announced else None
                # An answer that announced no count is not within twice the judged one; a checkout
                # whose answers carry no count at all is not measured.
                counted = hasattr(answer, "found")
                within = _within(ratio) if sample and counted else None
                rows.append(
                    {
                        "id": topic["id"],
                        "file": file,
                        "topic": topic["topic"],
                        "question": question,
                        "recall": recall,
                        "precision": precision,
                        "judged_precision": judged_p,
                        "unjudged_share": unjudged,
                        "announced": announced,
                        "count_ratio": ratio,
                        "count_within_2x": within,
                        "listed": len(listed),
                        "gold": len(gold),
                        "hits": len(listed & gold),
                        "seconds": round(seconds, 3),
                        "mode": answer.mode,
                        "listed_ids": sorted(listed),
                    }
                )
                progress(f"ask {file}", len(rows) - first, total)
        timing = {"ingest_seconds": round(ingest_seconds, 1)}
        conferences.append({"file": file, "collection": collection, **timing, **summarize_rows(rows[first:])})
    return {
        "benchmark": "subfields",
        "split": split,
        "topics_file": str(path),
        "rag": str(Path(rag.__file__).resolve().parent),
        "llm": getattr(settings, "llm", None),
        "listing_max_papers": LISTING_CAP,
        "conferences": conferences,
        "overall": summarize_rows(rows),
        "questions": rows,
        "seconds": round(time.perf_counter() - started, 1),
    }


def table_rows(results: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per conference and an overall row: topics, questions, recall, precision (keyword and
    judged), median time."""

    def fmt(value: Any, digits: int = 3) -> str:
        return "–" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    header = [
        "conference",
        "topics",
        "questions",
        "recall",
        "precision",
        "judged P",
        "listed",
        "median s",
        "not listing",
    ]
    parts = [
        *((c["file"].split(".", 1)[0], c) for c in results["conferences"]),
        ("overall", results["overall"]),
    ]
    rows = [
        [
            name,
            fmt(p["topics"]),
            fmt(p["questions"]),
            fmt(p["recall"]),
            fmt(p["precision"]),
            fmt(p.get("judged_precision")),
            fmt(p["listed_mean"], 1),
            fmt(p["seconds_median"], 2),
            fmt(p["not_listing_share"]),
        ]
        for name, p in parts
    ]
    return header, rows


def write_subfields(results: dict[str, Any], out_dir: Path) -> list[Path]:
    """``subfields-<split>.json`` in ``out_dir`` (every question's row, listed ids included)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"subfields-{results['split']}.json"
    path.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    return [path]
