"""The public API a Python user (and cli.py) relies on is pinned: names, and what they are."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import rag

PUBLIC = {
    "Answer", "AnswerMode", "BackendUnavailable", "BadInput", "Chunk", "Citation", "CitelineError",
    "CitelineRetriever", "CitelineWarning", "Hit", "IngestReport", "Library", "NotFound", "Paper",
    "Progress", "Settings", "StoreBusy", "Summary", "Turn", "compare_results", "ensure_index", "eval_set",
    "ingest", "llm_status", "llm_stop", "load_results", "load_settings", "run_eval", "run_signals",
    "run_subfields", "write_results", "write_signals", "write_subfields",
}  # fmt: skip


def test_rag_exports_exactly_the_pinned_names_and_each_resolves():
    assert set(rag.__all__) == PUBLIC == set(rag._EXPORTS)
    for name in PUBLIC:
        assert getattr(rag, name) is not None


def test_library_offers_the_session_verbs():
    for verb in ("search", "ask", "summarize", "paper", "papers"):
        assert callable(getattr(rag.Library, verb))


def test_importing_rag_loads_no_heavy_library():
    heavy = "('chromadb', 'langchain_core', 'onnxruntime')"
    probe = f"import sys, rag; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_uses_only_the_public_api_and_the_ui():
    tree = ast.parse((Path(__file__).resolve().parents[2] / "cli.py").read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    internal = {
        m
        for m in modules
        if m.startswith("rag") and m not in ("rag", "rag.ui") and not m.startswith("rag.ui.")
    }
    assert internal == set()
