"""The public API a Python user relies on: declared once (``rag._EXPORTS``), each name resolving to
what its module defines, with the signatures callers write against, and working without an index."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import rag
from rag.records import AnswerMode, StoreContents
from rag.settings import Settings
from tests.fakes import FakeRetriever, paper

ROOT = Path(__file__).resolve().parents[2]
CLI_PLUMBING = (
    "write_results", "compare_results", "load_results", "write_signals", "write_subfields", "llm_stop",
)  # fmt: skip


def test_all_is_the_declared_table_and_each_name_is_defined_where_it_is_declared():
    declared = [name for names in rag._EXPORTS.values() for name in names]
    assert len(declared) == len(set(declared)) and rag.__all__ == sorted(declared)
    for module, names in rag._EXPORTS.items():
        for name in names:
            value = getattr(rag, name)
            assert getattr(value, "__module__", module) == module, name
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        _ = rag.nonexistent


def test_the_type_checking_imports_mirror_the_table_exactly():
    tree = ast.parse((ROOT / "rag" / "__init__.py").read_text())
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
    )
    mirrored: dict[str, set[str]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        mirrored.setdefault(node.module, set()).update(a.name for a in node.names)
    assert mirrored == {module: set(names) for module, names in rag._EXPORTS.items()}


def test_cli_plumbing_is_not_public_api_but_the_cli_support_module_has_it():
    from rag.ui import cli_support

    for name in CLI_PLUMBING:
        assert name not in rag.__all__ and not hasattr(rag, name)
        assert callable(getattr(cli_support, name))


def test_the_verbs_take_the_arguments_callers_write():
    def params(function) -> list[str]:
        return list(inspect.signature(function).parameters)

    assert params(rag.Library.ask)[:5] == ["self", "question", "history", "k", "mode"]
    assert params(rag.Library.search) == ["self", "query", "k", "mode", "floor"]
    assert params(rag.Library.summarize) == ["self", "topic", "max_papers", "progress"]
    assert params(rag.Library.paper) == ["self", "paper_id"]
    assert params(rag.Library.collections) == ["self"] and params(rag.Library.model_status) == ["self"]
    assert params(rag.ingest)[:2] == ["paths", "settings"]
    assert params(rag.load_settings) == ["env", "config_file"]
    assert inspect.signature(rag.Library.collections).return_annotation in ("StoreContents", StoreContents)


def test_a_library_over_a_retriever_searches_looks_up_and_answers_without_a_model(tmp_path):
    papers = [paper("p1", "Watermarking language model outputs with a secret key."),
              paper("p2", "Graph neural networks for molecule property prediction.")]  # fmt: skip
    library = rag.Library(Settings(data_dir=tmp_path, llm="none", log=False), retriever=FakeRetriever(papers))
    assert [h.paper.id for h in library.search("watermarking language model outputs")][:1] == ["p1"]
    assert library.paper("p2").id == "p2"
    with pytest.raises(rag.NotFound, match="no paper with id 'p9'"):
        library.paper("p9")
    answer = library.ask("How are language model outputs watermarked?")
    assert isinstance(answer, rag.Answer) and isinstance(answer.mode, AnswerMode)


def test_model_status_reports_no_server_without_starting_one(tmp_path):
    status = rag.Library(Settings(data_dir=tmp_path, llm="none")).model_status()
    assert status == {"running": False}
    assert not (tmp_path / "llm").exists()


def test_importing_rag_loads_no_heavy_library():
    heavy = "('chromadb', 'langchain_core', 'onnxruntime')"
    probe = f"import sys, rag; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_uses_only_the_public_api_and_the_ui():
    tree = ast.parse((ROOT / "cli.py").read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    internal = {
        m
        for m in modules
        if m.startswith("rag") and m not in ("rag", "rag.ui") and not m.startswith("rag.ui.")
    }
    assert internal == set()
