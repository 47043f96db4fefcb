"""Shared fixtures: real Chroma (embedded, and a server when one is reachable), real embeddings.

Servers: ``.ci/run`` starts a Chroma server and the embedded model's llama.cpp server and passes
their URLs in ``CITELINE_TEST_CHROMA_URL`` / ``CITELINE_TEST_LLM_URL``. When they are unset,
the fixtures start their own on a free loopback port, so ``python -m pytest`` alone runs the
same tests. Start-up failures fail the tests that need the server, loudly.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import pytest

from rag.llm.ports import free_port
from rag.resources import bundled_corpus
from rag.settings import Settings

SHARED = Path(__file__).resolve().parents[2] / "shared"
ICML2024 = SHARED / "corpora" / "icml2024.jsonl.gz"


def _interpreter_scripts_first() -> None:
    """Put the test interpreter's scripts directory first on PATH, as an activated virtualenv does.

    The tests run the installed ``citeline`` console script (and ``python``) by name, a few hundred
    times. Under a version manager PATH finds a shim first (pyenv's is a bash script that runs
    ``pyenv exec``: ~0.2 s per call); the script it ends up running is the one installed next to
    this interpreter, so name that one directly. Without such a script nothing changes."""
    scripts = Path(sys.executable).parent
    if (scripts / "citeline").is_file():
        path = os.environ.get("PATH", "")
        if path.split(os.pathsep)[0] != str(scripts):
            os.environ["PATH"] = os.pathsep.join([str(scripts), path]) if path else str(scripts)


_interpreter_scripts_first()


def _one_core_per_worker() -> None:
    """Under ``pytest -n N`` (xdist, the README's test command) each worker, and every process it
    starts, runs on a core of its own when there are enough: the suite is mostly single-threaded
    processes and waits, so two workers keep two cores busy, while a llama.cpp server or
    onnxruntime session sized to both cores next to another worker's process would spin for its
    descheduled other half (model tests ran 3x slower that way). Servers and embedders size their
    thread pools by the affinity mask (:func:`rag.machine.usable_cpus`), so here they take one.
    Linux pins the calling thread: the worker's main thread, which runs the tests (pytest-xdist
    3.6.1 and later), and so every process and thread it starts. A worker that replaces a crashed
    one (a new number) may share a core; that slows the rest of the run, it fails nothing."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", …
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if not worker.startswith("gw") or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if 1 < count <= len(cores):
        os.sched_setaffinity(0, {cores[int(worker[2:]) % len(cores)]})


_one_core_per_worker()

# The user's cache (tiktoken's files, the embedding model's saved graph: rag.index.graphs) is the
# session's own, for the processes the tests start too: a test never reads what an earlier run or
# the developer's own use left there, and leaves nothing in it.
_CACHE = tempfile.mkdtemp(prefix="citeline-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

# CLI calls run in-process, except on the session's seed index (see seed_settings): a warm process
# left behind by each test's private data dir would hold ~300 MB and a core's worth of start-up.
os.environ["CITELINE_SERVE_IDLE_MINUTES"] = "0"
SEED_DIR_VARIABLE = "CITELINE_TEST_SEED_DIR"


def _wait(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server for {url} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.5)
    raise RuntimeError(f"server at {url} did not come up in {timeout}s")


def _start(command: list[str], health: str, timeout: float, log: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        command, stdout=log.open("wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    try:
        _wait(health, process, timeout)
    except RuntimeError:
        process.kill()
        raise
    return process


# The files whose tests take longest, longest first (`--durations` of a one-process run, 2026-12-06,
# with a model server's tests counted as they run on one core): pytest-xdist hands each worker a
# file at a time in collection order, so these go first and the short files fill in at the end;
# alphabetical order left a minute-long file for last while the other worker sat idle.
LONG_FILES = (
    "test_processes.py", "test_llm_server.py", "test_query_server.py", "test_resident_llm.py",
    "test_mcp.py", "test_llama_servers.py", "test_reliability.py", "test_cli.py", "test_slow_servers.py",
)  # fmt: skip


def pytest_collection_modifyitems(items) -> None:
    """Markers from where a test lives and what it needs, so ``-m`` selects without bookkeeping;
    the long files first (:data:`LONG_FILES`), each file's tests in their order."""
    rank = {name: n for n, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))  # stable: the rest as before
    for item in items:
        item.add_marker("unit" if "/unit/" in str(item.path) else "integration")
        fixtures = set(getattr(item, "fixturenames", ()))
        if "llm_server_url" in fixtures or "llm_env" in fixtures:
            item.add_marker("llm")
        if "chroma_server_url" in fixtures or "[server" in item.name:
            item.add_marker("chroma_server")


@pytest.fixture(scope="session")
def chroma_server_url(tmp_path_factory) -> str:
    if os.environ.get("CITELINE_TEST_CHROMA_URL"):
        yield os.environ["CITELINE_TEST_CHROMA_URL"]
        return
    chroma = shutil.which("chroma")
    if chroma is None:
        pytest.fail("the `chroma` CLI (from chromadb) is not on PATH; cannot start a Chroma server")
    port = free_port()
    root = tmp_path_factory.mktemp("chroma-server")
    command = [chroma, "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(root / "db")]
    process = _start(command, f"http://127.0.0.1:{port}/api/v2/heartbeat", 60, root / "log")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=20)


@pytest.fixture(scope="session")
def llm_server_url(tmp_path_factory) -> str:
    """A real OpenAI-compatible server running the embedded default model."""
    if os.environ.get("CITELINE_TEST_LLM_URL"):
        yield os.environ["CITELINE_TEST_LLM_URL"]
        return
    from rag.llm.models import ensure_weights, lookup, server_command

    settings = Settings()
    model = lookup(settings.local_model)
    weights = ensure_weights(model, settings.models_dir)
    port = free_port()
    log = tmp_path_factory.mktemp("llm-server") / "log"
    command = server_command(model, weights, port, 4096)  # the server citeline itself would start
    process = _start(command, f"http://127.0.0.1:{port}/v1/models", 300, log)
    yield f"http://127.0.0.1:{port}/v1"
    process.terminate()
    process.wait(timeout=20)


@pytest.fixture(params=["embedded", "server"])
def store_settings(request, tmp_path) -> Settings:
    """Fresh settings per test, against embedded Chroma and against a real Chroma server."""
    settings = Settings(data_dir=tmp_path / "data", collection=f"t{uuid.uuid4().hex[:10]}")
    if request.param == "server":
        settings = settings.replace(chroma_url=request.getfixturevalue("chroma_server_url"))
    return settings


_BUNDLED_VECTORS = "bundled-vectors.sqlite"  # the seed ingest's vectors, beside the session's temp dirs


@pytest.fixture(scope="session")
def seed_settings(tmp_path_factory):
    """One index of the bundled corpus for the whole session (ingest is the slow part).

    The CLI's query commands on it (test_cli.run) go to one warm process, as a user's second
    command does: the suite runs the default path, and saves ~2 s of start-up per command. It is
    asked to stop at the end of the session (nothing is signalled)."""
    from rag.index.ingest import ingest

    settings = Settings(data_dir=tmp_path_factory.mktemp("seed-index"), llm="none")
    ingest(bundled_corpus(), settings)
    # The vectors just embedded, before any test adds to this data dir's cache (bundled_vectors).
    source = sqlite3.connect(settings.embedding_cache_file)
    target = sqlite3.connect(tmp_path_factory.getbasetemp() / _BUNDLED_VECTORS)
    source.backup(target)
    source.close()
    target.close()
    os.environ[SEED_DIR_VARIABLE] = str(settings.data_dir)
    yield settings
    stop = ["citeline", "serve", "stop"]
    subprocess.run(stop, env={**os.environ, "CITELINE_DATA_DIR": str(settings.data_dir)}, capture_output=True)


@pytest.fixture(scope="session")
def bundled_vectors(seed_settings, tmp_path_factory) -> Path:
    """An embedding cache holding exactly the bundled corpus's MiniLM vectors (from the session's
    seed ingest). See :func:`with_bundled_vectors`."""
    return tmp_path_factory.getbasetemp() / _BUNDLED_VECTORS


def with_bundled_vectors(settings: Settings, bundled_vectors: Path) -> Settings:
    """``settings`` with the bundled corpus's vectors in its data dir's embedding cache.

    For tests whose ingest of the bundled corpus is a precondition, not what they check: the
    chunks are still written to real Chroma (embedded or server) and BM25 is still built, only the
    same text is not embedded again (~6 s on 2 cores). Tests about embedding, the cache or
    interrupted ingests keep a cold cache."""
    target = settings.embedding_cache_file
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundled_vectors, target)
    return settings


def copy_index(source: Settings, data_dir: Path, log: bool = False) -> Settings:
    """``source`` over a private copy of its data dir: the index (Chroma, BM25, embedding cache)
    without the model weights or the model's or warm process's state other tests left there (the
    embedded-model tests assemble 1 GB of weights in the seed data dir), and, unless ``log``,
    without the answer log (the test's log is its own)."""
    ignore = ["models", "llm", "serve", "llama-server.log", *([] if log else ["logs.sqlite*"])]
    shutil.copytree(source.data_dir, data_dir, ignore=shutil.ignore_patterns(*ignore))
    return source.replace(data_dir=data_dir)


@pytest.fixture(scope="session")
def seed_retriever(seed_settings):
    from rag.retrieval.retriever import Retriever

    return Retriever(seed_settings)


@pytest.fixture
def seed_copy(tmp_path) -> Path:
    """A writable copy of the bundled seed lists, for tests that edit entries."""
    target = tmp_path / "seeds"
    target.mkdir()
    for path in bundled_corpus():
        shutil.copy(path, target / path.name)
    return target


def pytest_collection_finish(session) -> None:
    """Everything imported to collect the tests (langchain, openai, numpy: ~200k objects) lives
    until the end: move it out of the garbage collector's sight (``gc.freeze``), so the collections
    that run during the tests, and the five pytest runs at exit, walk only what tests create."""
    import gc

    gc.collect()
    gc.freeze()
