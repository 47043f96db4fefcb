"""Which llama.cpp server the embedded model runs on: the prebuilt wheel the default install brings,
a source build when one was installed (compiled for this CPU), and one clear error with neither;
and how many threads it (and the embedder) takes."""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path

import pytest

from rag.errors import CitelineError
from rag.index.embeddings import MiniLMEmbedder
from rag.llm import models as local_models
from rag.machine import usable_cpus

MODEL = local_models.lookup("qwen2.5-coder-1.5b")


def _installed(monkeypatch, *packages: str) -> None:
    """Pretend exactly ``packages`` (of the llama.cpp servers) are importable."""
    real = importlib.util.find_spec
    servers = {package for package, _ in local_models.SERVERS}

    def find_spec(name, *args):
        if name in servers:
            return object() if name in packages else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_the_default_install_serves_with_the_prebuilt_wheel(monkeypatch):
    _installed(monkeypatch, "xllamacpp")
    command = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    assert command[1:3] == ["-m", "rag.llm.llama_server"]


def test_an_installed_source_build_is_preferred_to_the_prebuilt_wheel(monkeypatch):
    _installed(monkeypatch, "xllamacpp", "llama_cpp")
    command = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    assert command[1:3] == ["-m", "llama_cpp.server"]


def test_the_source_build_alone_serves(monkeypatch):
    _installed(monkeypatch, "llama_cpp")
    command = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    assert command[1:3] == ["-m", "llama_cpp.server"]


def test_both_servers_take_the_same_flags_and_only_xllamacpp_saves_slot_files(monkeypatch):
    _installed(monkeypatch, "xllamacpp")
    prebuilt = local_models.server_command(MODEL, Path("/m/w.gguf"), 8080, 4096)
    _installed(monkeypatch, "llama_cpp")
    source = local_models.server_command(MODEL, Path("/m/w.gguf"), 8080, 4096)
    assert prebuilt[3:-2] == source[3:] and prebuilt[-2:] == ["--prefix_dir", "/m/prefix"]
    assert prebuilt[prebuilt.index("--port") + 1] == "8080" and "127.0.0.1" in prebuilt


def test_no_server_installed_is_one_error_naming_the_extra(monkeypatch):
    _installed(monkeypatch)
    assert local_models.server_module() is None
    with pytest.raises(CitelineError, match=r"no llama.cpp server is installed.*\[local\]"):
        local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)


def _on_one_core(call):
    """``call()`` in a thread whose affinity mask holds one core (Linux sets it per thread), as in
    a process under ``taskset -c N`` or a pinned test worker."""
    found: dict = {}

    def pinned():
        try:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
            found["value"] = call()
        except BaseException as error:  # shown by the test, not lost in the thread
            found["error"] = error

    worker = threading.Thread(target=pinned)
    worker.start()
    worker.join()
    if "error" in found:
        raise found["error"]
    return found["value"]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_thread_pools_are_sized_by_the_cores_the_process_may_use_not_the_machines(monkeypatch):
    _installed(monkeypatch, "xllamacpp")
    assert _on_one_core(usable_cpus) == 1
    command = _on_one_core(lambda: local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096))
    assert command[command.index("--n_threads") + 1] == "1"
    assert _on_one_core(lambda: MiniLMEmbedder().threads) == 1
    given = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096, threads=3)
    assert given[given.index("--n_threads") + 1] == "3"
