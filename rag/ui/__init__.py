"""UI: the terminal rendering, the interactive chat and the MCP server, over the public API.

The top stage: it may import from every other one, and nothing in ``rag`` imports from it.
"""
