"""Which llama.cpp server the embedded model runs on: the prebuilt wheel the default install brings,
a source build when one was installed (compiled for this CPU), and one clear error with neither."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rag.errors import CitelineError
from rag.llm import models as local_models

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
