"""Library callers catch failures by class: each kind is raised where it happens, is a
``CitelineError`` (so the CLI and MCP still print one ``error: ...`` line), and keeps its message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import openai
import pytest

import rag
from rag.index.lexical import collection_lock
from rag.llm.client import LLMHandle, describe_llm_error, make_llm
from rag.llm.models import lookup
from rag.llm.ports import free_port
from rag.settings import Settings, load_settings
from rag.text import checked_query

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_is_a_citeline_error_exported_by_rag_and_redacts_its_message():
    for kind in (rag.NotFound, rag.BadInput, rag.BackendUnavailable, rag.StoreBusy):
        assert issubclass(kind, rag.CitelineError)
        assert str(kind("rejected Bearer sk-abcdef123456")) == "rejected Bearer [redacted]"
    assert len({rag.NotFound, rag.BadInput, rag.BackendUnavailable, rag.StoreBusy}) == 4


@pytest.mark.parametrize("value", ["", "x" * 5000])
def test_an_empty_or_overlong_question_is_bad_input(value):
    with pytest.raises(rag.BadInput, match="question is"):
        checked_query(value)


def test_a_setting_out_of_range_is_bad_input(tmp_path):
    with pytest.raises(rag.BadInput, match="top_k"):
        Settings(data_dir=tmp_path, top_k=0)
    with pytest.raises(rag.BadInput, match="bad collection name"):
        Settings(data_dir=tmp_path, collection="a/b")


def test_a_missing_config_file_and_an_unknown_local_model_are_not_found(tmp_path):
    with pytest.raises(rag.NotFound, match="config file not found"):
        load_settings({}, tmp_path / "missing.toml")
    with pytest.raises(rag.NotFound, match="unknown local model"):
        lookup("no-such-model")


def test_an_llm_server_nobody_listens_on_is_backend_unavailable(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    settings = Settings(data_dir=tmp_path, llm="openai", llm_base_url=url)
    with pytest.raises(rag.BackendUnavailable, match="cannot reach the LLM server"):
        make_llm(settings)


def test_an_unreachable_or_timed_out_llm_call_is_backend_unavailable():
    handle = LLMHandle("openai", None, "m", "http://127.0.0.1:9/v1")
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    for exc in (openai.APIConnectionError(request=request), openai.APITimeoutError(request=request)):
        error = describe_llm_error(exc, handle)
        assert isinstance(error, rag.BackendUnavailable), exc
    assert type(describe_llm_error(RuntimeError("bug"), handle)) is rag.CitelineError


def test_ingest_while_another_process_holds_the_collection_is_store_busy_and_writes_nothing(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", collection="busy-one", llm="none")
    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"title": "A paper", "abstract": "About something."}\n')
    lock = collection_lock(settings)
    lock.acquire(timeout=0)
    try:
        with pytest.raises(rag.StoreBusy, match="another citeline process is writing"):
            rag.ingest([papers], settings)
    finally:
        lock.release()
    assert list(settings.data_dir.rglob("chroma.sqlite3")) == []  # the store was never opened


def test_the_cli_prints_a_subclass_as_one_error_line(tmp_path):
    env = {**os.environ, "CITELINE_DATA_DIR": str(tmp_path), "CITELINE_CONFIG": str(tmp_path / "none.toml")}
    result = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "search", "anything"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [f"error: config file not found: {tmp_path / 'none.toml'}"]
