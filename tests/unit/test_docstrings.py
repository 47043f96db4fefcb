"""Every public class and function says why it exists (nested helpers and protocol stubs aside)."""

from __future__ import annotations

import ast
from pathlib import Path

RAG = Path(__file__).resolve().parents[2] / "rag"


def _undocumented(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    missing = []

    def visit(node: ast.AST, inside_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                public = not child.name.startswith("_")
                stub = len(child.body) == 1 and isinstance(child.body[0], ast.Expr)  # "def f(): ..."
                if public and not inside_function and not stub and not ast.get_docstring(child):
                    missing.append(f"{path.relative_to(RAG)}:{child.lineno} {child.name}")
                visit(child, inside_function or not isinstance(child, ast.ClassDef))

    visit(tree, False)
    return missing


def test_every_public_definition_has_a_docstring():
    missing = [m for path in sorted(RAG.rglob("*.py")) for m in _undocumented(path)]
    assert missing == []
