"""The code's shape matches its flow: no module imports from a later stage.

Stages, in order: shared helpers (records, settings, errors, resources, text, bibtex) → index (sources →
papers → chunks → store) → retrieval → llm (the model backends) → answer (prompt → answer → check) →
eval → ui; ``api`` sits on top of answer (it is what ui and the CLI call). Within ``index`` the modules
keep the flow order too. The test walks the AST of every module, so a backwards import fails here,
not in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RAG = Path(__file__).resolve().parents[2] / "rag"
STAGES = ["shared", "index", "retrieval", "llm", "answer", "api", "eval", "ui"]
SHARED = {"records", "settings", "errors", "resources", "text", "bibtex"}
INDEX_ORDER = [
    "tokens", "labels", "metadata", "corpus", "chunking", "embeddings", "embedding_cache", "store", "lexical",
    "ingest",
]  # fmt: skip


def _stage(module: str) -> str:
    parts = module.split(".")[1:]  # drop "rag"
    if not parts or parts[0] in SHARED or parts[0] == "__init__":
        return "shared"
    return parts[0]


def _rag_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rag"):
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names if node.module == "rag"]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("rag")]
    return found


MODULES = sorted(p for p in RAG.rglob("*.py") if p.name != "__init__.py" or p.parent != RAG)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(RAG)))
def test_no_module_imports_from_a_later_stage(path):
    module = "rag." + ".".join(path.relative_to(RAG).with_suffix("").parts)
    mine = STAGES.index(_stage(module))
    for imported in _rag_imports(path):
        if imported == "rag":
            continue
        theirs = STAGES.index(_stage(imported))
        assert theirs <= mine, f"{module} (stage {STAGES[mine]}) imports {imported} (stage {STAGES[theirs]})"


@pytest.mark.parametrize("path", sorted((RAG / "index").glob("[!_]*.py")), ids=lambda p: p.name)
def test_index_modules_import_only_earlier_index_steps(path):
    mine = INDEX_ORDER.index(path.stem)
    for imported in _rag_imports(path):
        if imported.startswith("rag.index."):
            theirs = INDEX_ORDER.index(imported.split(".")[2])
            assert theirs < mine, f"index.{path.stem} imports {imported}, a later step"


def test_the_checker_catches_a_backwards_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from rag.eval.metrics import mean\n")
    assert _stage(_rag_imports(bad)[0]) == "eval" and STAGES.index("eval") > STAGES.index("retrieval")
