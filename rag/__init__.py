"""citeline: cited question answering over ML conference paper lists.

The public API (declared once, in ``_EXPORTS`` below; pinned by ``tests/unit/test_public_api.py``)::

    import rag

    settings = rag.load_settings()
    rag.ingest([Path("papers.jsonl")], settings)
    library = rag.Library(settings)
    answer = library.ask("Which papers study watermarking?")
    for citation in answer.citations:
        print(citation.key, citation.paper.source, citation.paper.line)

Stages live in subpackages and import one way only: ``index`` (sources → papers → chunks →
store) → ``log`` (the answer log) → ``retrieval`` → ``llm`` (the model backends) → ``answer``
(prompt → answer → check) → ``eval``; ``ui`` renders for the terminal. Names are resolved lazily,
so ``import rag`` (and ``citeline --help``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# The public API, declared once: each module and the names it provides. ``__all__`` and the lazy
# look-up are derived from it; the ``TYPE_CHECKING`` imports below mirror it for type checkers and
# IDEs (which do not run code), and tests/unit/test_public_api.py fails if the two differ. What only
# the command line needs (writing and comparing reports, stopping the resident model) is not here:
# it lives in :mod:`rag.ui.cli_support`.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "rag.settings": ("Settings", "load_settings"),
    "rag.errors": (
        "CitelineError", "CitelineWarning", "NotFound", "BadInput", "BackendUnavailable", "StoreBusy",
    ),
    "rag.records": (
        "Paper", "Chunk", "Hit", "Citation", "Answer", "AnswerMode", "Turn", "Progress", "CollectionCount",
        "StoreContents",
    ),
    "rag.api": ("Library",),
    "rag.retrieval.langchain": ("CitelineRetriever",),
    "rag.index.ingest": ("ingest", "ensure_index", "IngestReport"),
    "rag.answer.summary": ("Summary",),
    "rag.eval.harness": ("run_eval", "eval_set"),
    "rag.eval.signals": ("run_signals",),
    "rag.eval.subfields": ("run_subfields",),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_MODULE_OF)

if TYPE_CHECKING:
    from rag.answer.summary import Summary
    from rag.api import Library
    from rag.errors import BackendUnavailable, BadInput, CitelineError, CitelineWarning, NotFound, StoreBusy
    from rag.eval.harness import eval_set, run_eval
    from rag.eval.signals import run_signals
    from rag.eval.subfields import run_subfields
    from rag.index.ingest import IngestReport, ensure_index, ingest
    from rag.records import (
        Answer,
        AnswerMode,
        Chunk,
        Citation,
        CollectionCount,
        Hit,
        Paper,
        Progress,
        StoreContents,
        Turn,
    )
    from rag.retrieval.langchain import CitelineRetriever
    from rag.settings import Settings, load_settings


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use, so ``import rag`` loads no heavy library."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'rag' has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULE_OF[name]), name)


def __dir__() -> list[str]:
    return [*globals(), *__all__]
