"""Log: the answer log, citeline's store of what it answered (SQLite + FTS5 in the data dir).

Storage, like ``index``, and as low in the stage order: it needs only the shared records, so the
public API, the chat and the MCP server above it all read and write one log. :mod:`rag.log.store`
is the log file; :mod:`rag.log.migrations` its schema, as the ordered steps that built it, so a log
written by an earlier citeline opens with its entries.
"""
