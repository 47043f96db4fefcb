"""citeline: cited question answering over ML conference paper lists.

The public API, pinned by ``tests/unit/test_public_api.py``::

    import rag

    settings = rag.load_settings()
    rag.ingest([Path("papers.jsonl")], settings)
    library = rag.Library(settings)
    answer = library.ask("Which papers study watermarking?")
    for citation in answer.citations:
        print(citation.key, citation.paper.source, citation.paper.line)

Stages live in subpackages and import one way only: ``index`` (sources → papers → chunks →
store) → ``retrieval`` → ``llm`` (the model backends) → ``answer`` (prompt → answer → check) →
``eval``; ``ui`` renders for the terminal. Names are resolved lazily, so ``import rag`` (and
``citeline --help``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Settings": "rag.settings",
    "load_settings": "rag.settings",
    "CitelineError": "rag.errors",
    "CitelineWarning": "rag.errors",
    "NotFound": "rag.errors",
    "BadInput": "rag.errors",
    "BackendUnavailable": "rag.errors",
    "StoreBusy": "rag.errors",
    "Paper": "rag.records",
    "Chunk": "rag.records",
    "Hit": "rag.records",
    "Citation": "rag.records",
    "Answer": "rag.records",
    "AnswerMode": "rag.records",
    "Progress": "rag.records",
    "Turn": "rag.records",
    "Library": "rag.api",
    "CitelineRetriever": "rag.retrieval.langchain",
    "ingest": "rag.index.ingest",
    "llm_status": "rag.llm.resident",
    "llm_stop": "rag.llm.resident",
    "ensure_index": "rag.index.ingest",
    "IngestReport": "rag.index.ingest",
    "Summary": "rag.answer.summarize",
    "run_eval": "rag.eval.harness",
    "eval_set": "rag.eval.harness",
    "write_results": "rag.eval.report",
    "load_results": "rag.eval.report",
    "compare_results": "rag.eval.report",
    "run_signals": "rag.eval.signals",
    "write_signals": "rag.eval.report",
    "run_subfields": "rag.eval.subfields",
    "write_subfields": "rag.eval.subfields",
}
__all__ = [  # literal, so linters and IDEs see it; test_public_api pins it to _EXPORTS
    "Answer", "AnswerMode", "BackendUnavailable", "BadInput", "Chunk", "Citation", "CitelineError",
    "CitelineRetriever", "CitelineWarning", "Hit", "IngestReport", "Library", "NotFound", "Paper",
    "Progress", "Settings", "StoreBusy", "Summary", "Turn", "compare_results", "ensure_index", "eval_set",
    "ingest", "llm_status", "llm_stop", "load_results", "load_settings", "run_eval", "run_signals",
    "run_subfields", "write_results", "write_signals", "write_subfields",
]  # fmt: skip

if TYPE_CHECKING:
    from rag.answer.summarize import Summary
    from rag.api import Library
    from rag.errors import BackendUnavailable, BadInput, CitelineError, CitelineWarning, NotFound, StoreBusy
    from rag.eval.harness import eval_set, run_eval
    from rag.eval.report import compare_results, load_results, write_results, write_signals
    from rag.eval.signals import run_signals
    from rag.eval.subfields import run_subfields, write_subfields
    from rag.index.ingest import IngestReport, ensure_index, ingest
    from rag.llm.resident import llm_status, llm_stop
    from rag.records import Answer, AnswerMode, Chunk, Citation, Hit, Paper, Progress, Turn
    from rag.retrieval.langchain import CitelineRetriever
    from rag.settings import Settings, load_settings


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'rag' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)


def __dir__() -> list[str]:
    return [*globals(), *__all__]
