"""The code's shape matches its flow: no module imports from a later stage, and no modules import
each other in a circle.

Stages, in order: shared helpers (records, settings, errors, resources, text, files, machine) →
index (sources → papers → chunks → store) → log (the answer log: storage, needing only the shared records) →
retrieval → llm (the model backends) → answer (prompt → answer → check) → api → eval → ui; ``api``
sits on top of answer (it is what ui and the CLI call). ``import rag`` (the lazy public API) is for
eval and ui only. Within ``index`` the modules keep the flow order too. The checker walks the AST of
every module of a tree; it runs on the real ``rag/`` here, and on small trees with a planted
backwards import or circle, so a checker that finds nothing fails too.
"""

from __future__ import annotations

import ast
from pathlib import Path

RAG = Path(__file__).resolve().parents[2] / "rag"
STAGES = ["shared", "index", "log", "retrieval", "llm", "answer", "api", "eval", "ui"]
SHARED = {"records", "settings", "errors", "resources", "text", "files", "machine"}
PUBLIC_API_USERS = {"eval", "ui"}  # the stages that may ``import rag`` (the lazy public API)
INDEX_ORDER = [
    "tokens", "labels", "metadata", "corpus", "chunking", "graphs", "embeddings", "embedding_cache", "lease",
    "store", "stamp", "lexical", "ingest",
]  # fmt: skip


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root`` by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def stage(module: str) -> str:
    """The stage a ``rag`` module belongs to."""
    parts = module.split(".")[1:]  # drop "rag"
    if not parts:
        return "api"  # the package itself: the public API
    return "shared" if parts[0] in SHARED else parts[0]


def imports(path: Path, known: dict[str, Path], runtime_only: bool = False) -> list[str]:
    """The ``rag`` modules ``path`` imports, resolved to module names (``from rag.answer import
    evidence`` is ``rag.answer.evidence``). ``runtime_only`` leaves out ``if TYPE_CHECKING:`` blocks,
    which never run and so cannot close a circle."""
    root = min(known, key=len)  # the package itself
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        if runtime_only and isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == root or node.module.startswith(root + "."):
                for alias in node.names:
                    child = f"{node.module}.{alias.name}"
                    found.append(child if child in known else node.module)
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name == root or a.name.startswith(root + "."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def backward_imports(root: Path) -> list[str]:
    """Each import of a later stage (or of the public API from below eval), as a readable line."""
    known = module_names(root)
    problems = []
    for module, path in known.items():
        if module == root.name:
            continue  # the public API's lazy table names every stage on purpose
        mine = STAGES.index(stage(module))
        for imported in imports(path, known):
            if imported == root.name:
                if stage(module) not in PUBLIC_API_USERS:
                    problems.append(f"{module} (stage {STAGES[mine]}) imports the public API {imported}")
                continue
            theirs = STAGES.index(stage(imported))
            if theirs > mine:
                where = f"(stage {STAGES[mine]}) imports {imported} (stage {STAGES[theirs]})"
                problems.append(f"{module} {where}")
            elif _index_step(module) and _index_step(imported):
                step, other = _index_step(module), _index_step(imported)
                if step not in INDEX_ORDER or other not in INDEX_ORDER:
                    problems.append(f"{module} or {imported} is missing from INDEX_ORDER")
                elif INDEX_ORDER.index(other) >= INDEX_ORDER.index(step):
                    problems.append(f"{module} imports {imported}, a later index step")
    return problems


def _index_step(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "index" else None


def import_circles(root: Path) -> list[list[str]]:
    """Every circle of runtime imports (lazy ones inside functions included), each as the modules
    around it. Edges to the package itself are left out: its table is resolved lazily."""
    known = module_names(root)
    graph = {
        module: sorted({m for m in imports(path, known, runtime_only=True) if m != root.name and m != module})
        for module, path in known.items()
        if module != root.name
    }
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(module: str) -> None:
        state[module] = 1
        path.append(module)
        for imported in graph.get(module, []):
            if state.get(imported) == 1:
                circles.append([*path[path.index(imported) :], imported])
            elif imported not in state:
                walk(imported)
        path.pop()
        state[module] = 2

    for module in graph:
        if module not in state:
            walk(module)
    return circles


def test_every_stage_folder_is_a_regular_package():
    folders = sorted(p for p in RAG.iterdir() if p.is_dir() and not p.name.startswith("_"))
    assert {p.name for p in folders} >= set(STAGES) - {"shared", "api"}
    assert [p.name for p in folders if not (p / "__init__.py").is_file()] == []


def test_no_module_imports_from_a_later_stage():
    assert backward_imports(RAG) == []


def test_no_modules_import_each_other_in_a_circle():
    assert import_circles(RAG) == []


def test_the_checker_sees_the_real_imports():
    known = module_names(RAG)
    assert set(STAGES) - {"shared", "api"} <= {stage(m) for m in known if m != "rag"}
    assert "rag.llm.models" in imports(known["rag.llm.client"], known)
    # ``from rag.answer import evidence as ev`` is the module, not the package:
    assert "rag.answer.evidence" in imports(known["rag.answer.pipeline"], known)
    assert "rag.llm.resident" in imports(known["rag.llm.client"], known, runtime_only=True)  # a lazy import


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "rag"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents:
            (root / folder / "__init__.py").touch()
        path.write_text(text)
    return root


def test_the_checker_catches_a_backwards_import_and_a_public_api_import_from_below(tmp_path):
    root = _tree(tmp_path, {
        "retrieval/search.py": "def f():\n    from rag.eval.metrics import mean\n",  # lazy, still backwards
        "eval/metrics.py": "from rag.retrieval import search\n",
        "answer/pipeline.py": "import rag\n",
        "index/store.py": "from rag.index.ingest import run\n",
        "index/ingest.py": "from rag.index import store\n",
    })  # fmt: skip
    assert sorted(backward_imports(root)) == [
        "rag.answer.pipeline (stage answer) imports the public API rag",
        "rag.index.store imports rag.index.ingest, a later index step",
        "rag.retrieval.search (stage retrieval) imports rag.eval.metrics (stage eval)",
    ]


def test_the_checker_catches_a_circle_inside_a_stage_even_through_a_lazy_import(tmp_path):
    root = _tree(tmp_path, {
        "llm/client.py": "def make():\n    from rag.llm import resident\n",
        "llm/resident.py": "from rag.llm.client import free_port\n",
        "llm/models.py": "import typing\nif typing.TYPE_CHECKING:\n    from rag.llm import client\n",
    })  # fmt: skip
    assert import_circles(root) == [["rag.llm.client", "rag.llm.resident", "rag.llm.client"]]
