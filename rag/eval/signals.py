"""External signals nobody tuned on: human-written TLDRs and author keywords from real venues.

The bundled eval sets are small and written by us. ``../shared/corpora`` has what neither we nor
the system wrote:

- **known item**: a record's human ``tldr`` as the query, its own paper as the only gold,
  searched among every paper of the files indexed (1,874 papers: ICLR 2017/2018, CoRL
  2022/2023, the venue-years whose records carry TLDRs). recall@1/@10 and MRR per retrieval
  mode, and how often the relevance floor keeps the gold paper (each TLDR is answerable, so a
  paper dropped by the floor is a false negative);
- **topical lists**: an author keyword shared by 5 to 40 papers of one venue-year becomes
  "Which papers study <keyword>?", gold = those papers, answered by the same topic selection
  as listing answers, restricted to that venue-year. Author keywords are incomplete (many
  papers on a topic do not list it), so precision here is a lower bound.

Both are subsampled with a fixed seed so that one run takes a few minutes on 2 cores; the first
run also indexes the four files (about two minutes; the embedding cache makes reruns instant).
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rag.errors import NotFound
from rag.eval import metrics as m
from rag.records import Progress
from rag.settings import Settings

FILES = ("iclr2017", "iclr2018", "corl2022", "corl2023")
COLLECTION = "signals-tldr"


def _noop(stage: str, done: int, total: int) -> None:
    pass


def _records(corpora: Path) -> list[dict[str, Any]]:
    paths = [corpora / f"{name}.jsonl.gz" for name in FILES]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise NotFound(f"external signals need {', '.join(missing)} (the shared corpora)")
    rows = []
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def _keyword_lists(records: list[dict], low: int = 5, high: int = 40) -> list[tuple[str, int, str, set[str]]]:
    """(venue, year, keyword, paper ids) for keywords shared by ``low``..``high`` papers of one venue-year."""
    groups: dict[tuple[str, int, str], set[str]] = defaultdict(set)
    for r in records:
        for keyword in r.get("keywords") or []:
            word = " ".join(str(keyword).split()).lower()
            if 3 <= len(word) <= 60:
                groups[(r["venue"], int(r["year"]), word)].add(r["id"])
    return sorted((v, y, w, ids) for (v, y, w), ids in groups.items() if low <= len(ids) <= high)


def run_signals(
    settings: Settings,
    corpora: Path,
    known_items: int = 200,
    lists: int = 40,
    modes: tuple[str, ...] = ("hybrid", "dense", "bm25"),
    progress: Progress = _noop,
    seed: int = 7,
) -> dict[str, Any]:
    """Index the TLDR venue-years (once) and measure known-item search and topical lists."""
    from rag.index.ingest import ingest
    from rag.retrieval.relevance import papers_on
    from rag.retrieval.retriever import Retriever

    started = time.perf_counter()
    records = _records(corpora)
    indexed = settings.replace(collection=COLLECTION)
    ingest([corpora / f"{name}.jsonl.gz" for name in FILES], indexed)
    rng = random.Random(seed)

    with_tldr = [r for r in records if r.get("tldr")]
    sample = rng.sample(with_tldr, min(known_items, len(with_tldr)))
    retriever = Retriever(indexed)
    known = []
    for n, mode in enumerate(modes, start=1):
        r1, r10, rr, kept, latencies = [], [], [], [], []
        for record in sample:
            mark = time.perf_counter()
            ranked = [h.paper.id for h in retriever.search(record["tldr"], k=10, mode=mode, floor=False)]
            latencies.append(time.perf_counter() - mark)
            r1.append(m.recall_at_k(ranked, [record["id"]], 1))
            r10.append(m.recall_at_k(ranked, [record["id"]], 10))
            rr.append(m.reciprocal_rank(ranked, [record["id"]]))
            if mode == "hybrid":
                floored = [h.paper.id for h in retriever.search(record["tldr"], mode=mode)]
                kept.append(float(record["id"] in floored))
        known.append(
            {
                "mode": mode,
                "recall@1": m.mean(r1),
                "recall@10": m.mean(r10),
                "mrr": m.mean(rr),
                "floor_keeps_gold@k": m.mean(kept),
                "latency_median_s": m.percentile(latencies, 0.5),
            }
        )
        progress("known-item", n, len(modes))

    candidates = _keyword_lists(records)
    chosen = rng.sample(candidates, min(lists, len(candidates)))
    rows, retrievers = [], {}
    for n, (venue, year, keyword, gold) in enumerate(chosen, start=1):
        key = (venue, year)
        if key not in retrievers:
            retrievers[key] = Retriever(indexed.replace(venue=venue, year=year), retriever.embedder)
        found = {h.paper.id for h in papers_on(retrievers[key], keyword, 60)}
        hit = len(found & gold)
        rows.append(
            {
                "venue": f"{venue} {year}",
                "keyword": keyword,
                "gold": len(gold),
                "listed": len(found),
                "recall": hit / len(gold),
                "precision": hit / len(found) if found else None,
            }
        )
        progress("topical lists", n, len(chosen))
    return {
        "files": [f"{name}.jsonl.gz" for name in FILES],
        "papers_indexed": len(records),
        "known_item": {"queries": len(sample), "of": len(with_tldr), "by_mode": known},
        "topical_lists": {
            "questions": len(rows),
            "of": len(candidates),
            "recall": m.mean([r["recall"] for r in rows]),
            "precision": m.mean([r["precision"] for r in rows]),
            "rows": rows,
        },
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 1),
    }
