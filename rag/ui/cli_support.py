"""What the command line needs beyond the library API: writing, reading and comparing the eval's
report files, and stopping the resident model server.

These are plumbing for ``citeline`` (files named by flags, a process to end), not verbs a Python
user of :mod:`rag` needs, so they are kept out of ``rag.__all__``; ``cli.py`` imports them here
(it imports only ``rag`` and ``rag.ui``).
"""

from __future__ import annotations

from rag.eval.report import compare_results, load_results, write_results, write_signals
from rag.eval.subfields import write_subfields
from rag.llm.resident import llm_stop

__all__ = ["compare_results", "llm_stop", "load_results", "write_results", "write_signals", "write_subfields"]
