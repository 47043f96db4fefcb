"""LLM: the model backends, below ``answer`` because eval, summaries and the MCP server use them too.

:mod:`rag.llm.models` is the embedded model's weight registry, :mod:`rag.llm.resident` the shared
server that keeps it loaded between commands, and :mod:`rag.llm.client` the one OpenAI-compatible
handle every backend is reached through.
"""
