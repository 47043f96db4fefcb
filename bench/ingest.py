"""Ingest throughput: papers/s with the embedding share broken out, then an unchanged re-ingest.

    python bench/ingest.py                      # the bundled ICML 2026 seeds
    python bench/ingest.py ../shared/corpora/icml2024.jsonl.gz

Prints the figures and writes them as JSON to bench/results/ingest-<name>.json. Runs in a fresh
temporary data dir, so nothing is reused from an earlier run.
"""

from __future__ import annotations

import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report

from rag.ingest import ingest
from rag.resources import bundled_corpus
from rag.settings import Settings


def main(argv: list[str]) -> None:
    paths = [Path(a) for a in argv] or bundled_corpus()
    name = Path(argv[0]).name.split(".")[0] if argv else "icml2026-seeds"
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        first = ingest(paths, settings)
        again = ingest(paths, settings)
    papers = first.papers_ingested
    figures = {
        "corpus": name,
        "papers": papers,
        "chunks": first.chunks_written,
        "ingest_seconds": round(first.seconds, 2),
        "papers_per_second": round(papers / first.seconds, 2),
        "embedding_seconds": round(first.embed_seconds, 2),
        "embedding_share": round(first.embed_seconds / first.seconds, 3),
        "reingest_unchanged_seconds": round(again.seconds, 2),
        "reingest_vs_first_ratio": round(again.seconds / first.seconds, 4),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    report(f"ingest-{name}", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
