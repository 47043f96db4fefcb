"""Ingest throughput: papers/s with the embedding share broken out, peak memory, then re-ingests.

    python bench/ingest.py                                   # the bundled ICML 2026 seeds
    python bench/ingest.py ../shared/corpora/icml2024.jsonl.gz
    python bench/ingest.py ../shared/corpora --name all-corpora --chroma-url http://127.0.0.1:8000

Runs three ingests of the same files into one data dir (a fresh temporary one unless
``--data-dir`` is given): the first (cold unless the data dir's embedding cache already knows the
text), an unchanged re-ingest (content hashes: nothing to do), and, with ``--copy``, an ingest into
a second collection, where every vector comes from the embedding cache. ``--per-file PREFIX``
instead ingests each file into a collection of its own (``PREFIX<file stem>``), the layout for
searching several collections together. Prints the figures and writes
bench/results/ingest-<name>-<store>.json. ``--server-pid`` adds the Chroma server's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import peak_rss_mib, report

from rag.errors import CitelineError
from rag.index.corpus import expand_paths
from rag.index.ingest import IngestReport, ingest
from rag.resources import bundled_corpus
from rag.settings import Settings


def _figures(prefix: str, run: IngestReport) -> dict[str, float]:
    papers = run.papers_ingested
    other = run.seconds - run.embed_seconds
    return {
        f"{prefix}seconds": round(run.seconds, 2),
        f"{prefix}papers_per_second": round(papers / run.seconds, 2),
        f"{prefix}embedding_seconds": round(run.embed_seconds, 2),
        f"{prefix}embedding_share": round(run.embed_seconds / run.seconds, 3),
        f"{prefix}vectors_reused": run.vectors_reused,
        # Parsing, chunking, store reads/writes and the BM25 rebuild: what the store choice changes.
        f"{prefix}non_embedding_seconds": round(other, 2),
        f"{prefix}non_embedding_papers_per_second": round(papers / other, 1) if other > 0 else None,
    }


def per_file(paths: list[Path], settings: Settings, prefix: str, name: str) -> None:
    started = time.perf_counter()
    runs = []
    for path in (f.path for f in expand_paths(paths)):
        try:
            runs.append(ingest([path], settings.replace(collection=prefix + path.name.split(".")[0])))
        except CitelineError as exc:  # a file with no papers (the corpora's manifest.json)
            print(f"skipped: {exc}")
    seconds = time.perf_counter() - started
    papers = sum(r.papers_ingested for r in runs)
    figures = {
        "collections": len(runs),
        "papers": papers,
        "chunks": sum(r.chunks_written for r in runs),
        "vectors_reused": sum(r.vectors_reused for r in runs),
        "seconds": round(seconds, 2),
        "papers_per_second": round(papers / seconds, 1),
        "embedding_seconds": round(sum(r.embed_seconds for r in runs), 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    report(name, figures)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--name")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--collection", default="bench")
    parser.add_argument("--chroma-url")
    parser.add_argument("--server-pid", type=int)
    parser.add_argument("--copy", action="store_true", help="also ingest into a second collection")
    parser.add_argument("--per-file", metavar="PREFIX", help="one collection per file")
    args = parser.parse_args(argv)
    paths = args.paths or bundled_corpus()
    name = args.name or (args.paths[0].name.split(".")[0] if args.paths else "icml2026-seeds")
    backend = "server" if args.chroma_url else "embedded"
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=args.data_dir or Path(tmp), collection=args.collection, chroma_url=args.chroma_url
        )
        if args.per_file:
            per_file(paths, settings, args.per_file, f"ingest-{name}-{backend}")
            return
        first = ingest(paths, settings)
        print(f"first ingest: {first.papers_ingested} papers in {first.seconds:.1f}s", flush=True)
        again = ingest(paths, settings)
        copy = ingest(paths, settings.replace(collection=f"{args.collection}-copy")) if args.copy else None
    figures = {
        "corpus": name,
        "store": backend,
        "papers": first.papers_ingested,
        "chunks": first.chunks_written,
        "problems": len(first.problems),
        **_figures("", first),
        "reingest_unchanged_seconds": round(again.seconds, 2),
        "reingest_vs_first_ratio": round(again.seconds / first.seconds, 4),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if copy:
        figures |= _figures("cached_copy_", copy)
        figures["cached_copy_vs_first_ratio"] = round(copy.seconds / first.seconds, 4)
    if args.server_pid:
        figures["server_peak_rss_mib"] = peak_rss_mib(args.server_pid)
    report(f"ingest-{name}-{backend}", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
