"""Every benchmark from one command, with a summary of the headline figures.

    python bench/run.py           # seeds (57 papers) and ICML 2024 (2,634), embedded and server
    python bench/run.py --full    # and all of ../shared/corpora (37k papers, 88 files): ~1.5 h more

Starts its own Chroma server (``chroma run``) on a free loopback port and stops it at the end.
Each benchmark runs in a new process, so peak memory is per step, and writes its JSON to
bench/results/; this script then writes bench/results/summary.md from those files. Ingest
starts cold (an empty data dir, so an empty embedding cache), except where a row says the vectors
came from the cache. Several-collection search is measured on the same papers laid out one
collection per file, against one collection holding them all.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rag.llm.ports import free_port

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
CORPORA = HERE.parents[1] / "shared" / "corpora"
ICML2024 = CORPORA / "icml2024.jsonl.gz"
SEEDS = HERE.parent / "data" / "icml2026"


def _start_chroma(path: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = (path.parent / "chroma.log").open("wb")
    command = ["chroma", "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(path)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    sys.exit(f"the Chroma server did not start; see {path.parent / 'chroma.log'}")


def _step(label: str, script: str, *args: str) -> bool:
    print(f"\n== {label}", flush=True)
    started = time.monotonic()
    code = subprocess.run([sys.executable, str(HERE / script), *args]).returncode
    print(f"   ({time.monotonic() - started:.0f} s{', FAILED' if code else ''})", flush=True)
    return code == 0


Step = tuple[str, str, list[str]]


def plan(work: Path, url: str, pid: int, full: bool) -> list[Step]:
    server = ["--chroma-url", url, "--server-pid", str(pid)]

    def ingest(label: str, data: str, *args: str) -> Step:
        return label, "ingest.py", ["--data-dir", str(work / data), *args]

    def query(label: str, data: str, collection: str, *args: str) -> Step:
        return label, "query_latency.py", ["--data-dir", str(work / data), "--collection", collection, *args]

    steps = [
        ("start-up", "startup.py", ["--data-dir", str(work / "startup")]),
        ("embedding step vs Chroma's ONNX function", "embedding.py", []),
        ingest("ingest seeds, embedded", "seeds", "--collection", "seeds", "--copy"),
        ingest("ingest seeds, server", "seeds-srv", "--collection", "seeds", *server),
        ingest(
            "seeds, one collection per file",
            "seeds",
            str(SEEDS),
            "--name",
            "seeds-per-file",
            "--per-file",
            "sf-",
        ),
        query("query seeds, embedded", "seeds", "seeds"),
        query("query seeds, 3 collections", "seeds", "sf-*", "--name", "seeds-3-collections"),
        query("query seeds, server", "seeds-srv", "seeds", "--chroma-url", url),
    ]
    if ICML2024.exists():
        icml = [str(ICML2024), "--collection", "icml2024"]
        steps += [
            ingest("ingest ICML 2024, embedded", "icml", *icml, "--copy"),
            ingest("ingest ICML 2024, server", "icml-srv", *icml, *server),
            query("query ICML 2024, embedded", "icml", "icml2024"),
            query("query ICML 2024, server", "icml-srv", "icml2024", "--chroma-url", url),
        ]
    if full and CORPORA.exists():
        every = [str(CORPORA), "--name", "all-corpora", "--collection", "all"]
        steps += [
            ingest("ingest all corpora, embedded (cold)", "all", *every),
            ingest("ingest all corpora, server (vectors from the cache)", "all", *every, *server),
            ingest("all corpora, one collection per file (vectors from the cache)", "all", str(CORPORA),
                   "--name", "all-corpora-per-file", "--per-file", "f-"),
            query("query all corpora, embedded", "all", "all", "--name", "all-corpora"),
            query("query all corpora, 88 collections", "all", "f-*", "--name", "all-corpora-88-collections"),
            query("query all corpora, server", "all", "all", "--chroma-url", url, "--name", "all-corpora"),
        ]  # fmt: skip
    return steps


def _load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in row) + " |" for row in rows]
    return [*lines, ""]


def summary() -> str:
    out = ["# Benchmark summary", "", f"Written by bench/run.py on {time.strftime('%Y-%m-%d')}; 2 cores.", ""]
    ingest_rows = []
    for corpus in ("icml2026-seeds", "icml2024", "all-corpora"):
        for store in ("embedded", "server"):
            if r := _load(f"ingest-{corpus}-{store}"):
                ingest_rows.append([
                    corpus, store, r["papers"], r["chunks"], r["seconds"], r["papers_per_second"],
                    r["embedding_share"], r["vectors_reused"], r["non_embedding_papers_per_second"],
                    f"{r['reingest_unchanged_seconds']} ({r['reingest_vs_first_ratio']:.2%})",
                    r.get("cached_copy_seconds"), r["peak_rss_mib"], r.get("server_peak_rss_mib"),
                ])  # fmt: skip
    out += ["## Ingest", ""]
    header = ["corpus", "store", "papers", "chunks", "s", "papers/s", "embedding share", "vectors from cache",
              "papers/s without embedding", "unchanged re-ingest s", "copy into 2nd collection s",
              "peak RSS MiB", "server peak RSS MiB"]  # fmt: skip
    out += _table(header, ingest_rows)
    per_file = [
        [name, r["collections"], r["papers"], r["seconds"], r["papers_per_second"], r["vectors_reused"]]
        for name in ("seeds-per-file", "all-corpora-per-file")
        if (r := _load(f"ingest-{name}-embedded"))
    ]
    out += _table(["one collection per file", "collections", "papers", "s", "papers/s", "vectors from cache"],
                  per_file)  # fmt: skip
    query_rows = []
    for name in ("seeds", "seeds-3-collections", "icml2024", "all-corpora", "all-corpora-88-collections"):
        for store in ("embedded", "server"):
            if r := _load(f"query-{name}-{store}"):
                query_rows.append([
                    name, store, r["collections"], r["chunks"],
                    f"{r['search_hybrid_median_ms']} / {r['search_hybrid_p95_ms']}",
                    f"{r['search_dense_median_ms']} / {r['search_dense_p95_ms']}",
                    f"{r['search_bm25_median_ms']} / {r['search_bm25_p95_ms']}",
                    f"{r['ask_retrieval_median_ms']} / {r['ask_retrieval_p95_ms']}",
                    r["open_index_ms"], r["cold_search_process_s"],
                ])  # fmt: skip
    out += ["## Query latency (ms, median / p95 over 88 questions)", ""]
    out += _table(["index", "store", "collections", "chunks", "search hybrid", "search dense", "search BM25",
                   "retrieval in ask", "open index ms", "cold `citeline search` s"], query_rows)  # fmt: skip
    if e := _load("embedding"):
        out += ["## Embedding step (chunks of 300 ICML 2024 papers)", ""]
        out += _table(["path", "chunks/s", "max cosine gap to Chroma"], [
            [name, e[f"{name}_chunks_per_s"], e[f"{name}_max_cosine_gap_vs_chroma"]]
            for name in ("chroma_onnx", "citeline", "citeline_batch32", "citeline_1_thread")
        ])  # fmt: skip
        out += [f"citeline vs Chroma's ONNX function: {e['speedup_vs_chroma']}x; "
                f"vs batches of 32: {e['speedup_vs_batch32']}x", ""]  # fmt: skip
    if s := _load("startup"):
        out += ["## Start-up (median of 5 new processes)", ""]
        out += [
            f"`citeline --help` {s['help_median_s']} s; cold `citeline search` {s['search_cold_median_s']} s",
            "",
        ]
    return "\n".join(out)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="also all of ../shared/corpora (37k papers)")
    parser.add_argument("--summary-only", action="store_true", help="rewrite summary.md from the results")
    args = parser.parse_args(argv)
    if not args.summary_only:
        work = Path(tempfile.mkdtemp(prefix="citeline-bench-"))
        chroma, url = _start_chroma(work / "chroma-server")
        try:
            failed = [label for label, script, rest in plan(work, url, chroma.pid, args.full)
                      if not _step(label, script, *rest)]  # fmt: skip
        finally:
            chroma.terminate()
            chroma.wait(timeout=30)
            shutil.rmtree(work, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    text = summary()
    (RESULTS / "summary.md").write_text(text)
    print("\n" + text)
    if not args.summary_only and failed:
        sys.exit(f"failed steps: {', '.join(failed)}")


if __name__ == "__main__":
    main(sys.argv[1:])
