"""Real processes: two ingests at once, a kill or Ctrl-C mid-ingest, queries while an ingest writes.

Every case ends with the same consistency check: each paper's chunks are all there with one
content hash, nothing is duplicated or orphaned, and the BM25 index agrees with Chroma.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from rag.index.embedding_cache import EmbeddingCache
from rag.index.embeddings import MINILM
from rag.index.ingest import ingest
from rag.index.lexical import collection_lock, lexical_index
from rag.index.store import Store
from rag.resources import bundled_corpus
from rag.retrieval.retriever import Retriever

from ..conftest import with_bundled_vectors
from .test_cli import run
from .test_store_ingest import bm25_is_current

COPIES = 2


@pytest.fixture
def big_list(tmp_path):
    """The 57 seed abstracts twice over, as distinct papers: 208 chunks, ~12 s of embedding on 2
    cores. The tests below act once one or two batches of 64 are embedded, so at least one more
    full batch (~4 s) and a part of one are still to come: an ingest caught in the middle, not
    at its end."""
    from rag.index.corpus import parse_source

    seeds = [p for path in bundled_corpus() for p in parse_source(path).papers]
    path = tmp_path / "big.jsonl"
    with path.open("w") as fh:
        for copy in range(COPIES):
            for paper in seeds:
                record = {"id": f"c{copy}-{paper.id}", "title": f"{paper.label} (variant {copy})",
                          "abstract": f"Variant {copy}. {paper.abstract}"}  # fmt: skip
                fh.write(json.dumps(record) + "\n")
    return path


def _env(settings) -> dict[str, str]:
    env = {**os.environ, "CITELINE_DATA_DIR": str(settings.data_dir), "CITELINE_LLM": "none"}
    env["CITELINE_COLLECTION"] = settings.collection
    if settings.chroma_url:
        env["CITELINE_CHROMA_URL"] = settings.chroma_url
    env.pop("OPENAI_API_KEY", None)
    return env


def _start_ingest(path, settings) -> subprocess.Popen:
    return subprocess.Popen(
        ["citeline", "ingest", str(path)], env=_env(settings), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _wait_for_vectors(settings, process: subprocess.Popen, at_least: int, timeout: float = 300) -> int:
    """Block until the ingest has embedded (and so is writing) at least ``at_least`` chunks."""
    cache_file = settings.embedding_cache_file
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"ingest ended early: {process.communicate()}"
        if cache_file.exists():
            cache = EmbeddingCache(cache_file)
            done = cache.count(MINILM)
            cache.close()
            if done >= at_least:
                return done
        time.sleep(0.2)
    raise AssertionError("the ingest embedded nothing in time")


def _assert_consistent(settings, papers: int) -> None:
    store = Store(settings)
    store.open(MINILM)
    states = store.paper_states()
    assert len(states) == papers
    for paper_id, state in states.items():
        assert len(state.hashes) == 1 and state.is_complete(paper_id, next(iter(state.hashes))), paper_id
    assert store.count() == sum(len(s.chunk_ids) for s in states.values())
    assert bm25_is_current(settings)


@pytest.mark.parametrize("stop", ["kill", "ctrl-c"])
def test_an_ingest_killed_or_interrupted_midway_leaves_a_usable_index_and_a_rerun_completes_it(
    store_settings, big_list, stop
):
    if stop == "ctrl-c" and store_settings.chroma_url:
        pytest.skip("Ctrl-C is handled in the client; the embedded case covers it")
    process = _start_ingest(big_list, store_settings)
    _wait_for_vectors(store_settings, process, at_least=80)
    process.send_signal(signal.SIGKILL if stop == "kill" else signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    if stop == "ctrl-c":
        assert process.returncode == 130, stderr
        assert stderr.strip().splitlines()[-1].startswith("interrupted: what was written is consistent")
        assert "Traceback" not in stderr
    else:
        assert process.returncode == -signal.SIGKILL

    lock = collection_lock(store_settings)
    lock.acquire(timeout=0)  # the kernel released the dead process's lock
    lock.release()
    partial = Retriever(store_settings).search("sandbagging detection", k=3, floor=False)
    assert partial, "the half-written index still answers queries"

    cache = EmbeddingCache(store_settings.embedding_cache_file)
    embedded_before = cache.count(MINILM)
    cache.close()
    report = ingest([big_list], store_settings)
    assert report.added + report.updated + report.unchanged == 57 * COPIES
    _assert_consistent(store_settings, 57 * COPIES)
    # Nothing is embedded twice across the crash, not even a batch embedded but not yet written.
    total = Store(store_settings).open(MINILM).count()
    assert report.chunks_written - report.vectors_reused == total - embedded_before


def test_two_ingest_processes_on_one_collection_one_writes_the_other_is_refused(store_settings):
    seeds = bundled_corpus()
    processes = [_start_ingest(seeds[0].parent, store_settings) for _ in range(2)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in processes]
    assert sorted(code for code, _, _ in results) == [0, 1]
    refused = next(err for code, _, err in results if code == 1)
    assert refused.strip() == (
        f"error: another citeline process is writing collection {store_settings.collection!r} "
        "(an ingest, or a query rebuilding its BM25 index); wait for it to finish"
    )
    _assert_consistent(store_settings, 57)
    again = ingest(seeds, store_settings)
    assert (again.added, again.unchanged, again.chunks_written) == (0, 57, 0)


def test_a_query_during_an_ingest_answers_and_leaves_the_ingests_dirty_mark(
    store_settings, big_list, bundled_vectors
):
    # A complete index first, as a user would have (its vectors known: this ingest is not the subject).
    ingest(bundled_corpus(), with_bundled_vectors(store_settings, bundled_vectors))
    process = _start_ingest(big_list, store_settings)
    try:
        _wait_for_vectors(store_settings, process, at_least=104 + 64)
        result = run(
            ["search", "sandbagging detection", "--json"], store_settings, extra_env=_env(store_settings)
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)[0]["id"] == "003-01"
        if process.poll() is None:  # still writing: the reader must not have declared BM25 current
            assert not bm25_is_current(store_settings)
    finally:
        assert process.wait(timeout=300) == 0, process.communicate()
    _assert_consistent(store_settings, 57 + 57 * COPIES)


def test_a_dirty_bm25_index_is_not_rebuilt_under_a_running_ingest_lock(store_settings):
    ingest(bundled_corpus()[:1], store_settings)
    lexical = lexical_index(store_settings)
    lexical.mark_dirty()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from filelock import FileLock; "
         "lock = FileLock(sys.argv[1]); lock.acquire(); print('held', flush=True); time.sleep(120)",
         collection_lock(store_settings).lock_file],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        hits = Retriever(store_settings).search("adaptive percentile threshold OOD activation scaling", k=1)
        assert hits[0].paper.id == "000-02"
        assert lexical._dirty_marker.exists()  # still the ingest's to clear
    finally:
        holder.kill()
        holder.wait()
    Retriever(store_settings)  # with the lock free, a query rebuilds and clears the mark
    assert not lexical._dirty_marker.exists()


# The console script's body, with a byte on a pipe once the interpreter is up: delays are counted
# from there, so a loaded machine's slow start-up cannot move a signal into Python's own site import.
_CLI_AFTER_READY = (
    "import os, sys; os.write(int(sys.argv[1]), b'.'); del sys.argv[1]; from cli import main; main()"
)


@pytest.mark.parametrize("command", ["ask", "search", "summarize"])
def test_ctrl_c_early_in_a_query_stops_it_at_once_with_130_and_one_line(seed_settings, command):
    interrupted = 0
    for delay in (0.3, 0.7, 1.0):  # later, a fast query may already have finished
        ready_read, ready_write = os.pipe()
        process = subprocess.Popen(
            [sys.executable, "-c", _CLI_AFTER_READY, str(ready_write), command, "What does AdaSCALE do?"],
            env=_env(seed_settings), pass_fds=(ready_write,), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        os.close(ready_write)
        assert os.read(ready_read, 1) == b"."
        os.close(ready_read)
        time.sleep(delay)
        if process.poll() is not None:  # it finished first: a Ctrl-C then is not early (a fast query)
            assert process.returncode == 0, (command, delay, process.communicate()[1])
            continue
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
        if process.returncode == 0 and not stderr:  # it was already leaving: done, not interrupted
            continue
        interrupted += 1
        assert (command, delay, process.returncode, stderr.strip().splitlines()) == (
            command, delay, 130, ["interrupted"],
        )  # fmt: skip
        assert time.monotonic() - sent < 5, (command, delay)  # at once, not after the query ran on
    assert interrupted >= 2, command  # at least 0.3 s and 0.7 s after start-up are early
