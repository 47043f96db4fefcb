"""Which llama.cpp server the embedded model runs on: the prebuilt wheel first, the source build
as the fallback, and one clear error when neither is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rag.answer import local_models
from rag.errors import CitelineError

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


def test_the_prebuilt_server_is_chosen_when_both_are_installed(monkeypatch):
    _installed(monkeypatch, "xllamacpp", "llama_cpp")
    command = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    assert command[1:3] == ["-m", "rag.answer.llama_server"]


def test_the_source_build_serves_when_the_prebuilt_wheel_is_missing(monkeypatch):
    _installed(monkeypatch, "llama_cpp")
    command = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    assert command[1:3] == ["-m", "llama_cpp.server"]


def test_both_servers_take_the_same_flags(monkeypatch):
    _installed(monkeypatch, "xllamacpp")
    prebuilt = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    _installed(monkeypatch, "llama_cpp")
    source = local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
    assert prebuilt[3:] == source[3:]
    assert prebuilt[prebuilt.index("--port") + 1] == "8080" and "127.0.0.1" in prebuilt


def test_no_server_installed_is_one_error_naming_the_extra(monkeypatch):
    _installed(monkeypatch)
    assert local_models.server_module() is None
    with pytest.raises(CitelineError, match=r"no llama.cpp server is installed.*\[local\]"):
        local_models.server_command(MODEL, Path("/w.gguf"), 8080, 4096)
