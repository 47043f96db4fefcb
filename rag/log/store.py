"""The answer log: every ``ask``, ``chat`` turn and ``summarize``, kept in SQLite in the data dir.

Like ``llm logs``: answers are worth finding again (``citeline log -q WORDS`` searches them with
FTS5), and a conversation can be continued from the shell (``citeline ask -C``, or any logged
one with ``--cid ID``). What is stored is
what the user saw: question, standalone question, answer, citations with provenance, model,
collection, timings, time; never settings, so never an API key (and a key typed into a question
is redacted as in error messages). The log is a convenience: a
damaged file is moved aside with a warning, and a log that cannot be written never stops an
answer. A log written by an earlier citeline is brought up to this one's schema by
:mod:`rag.log.migrations`, keeping its entries; a file that is not a citeline log this citeline can
read (a newer schema version, another ``entries`` table) is moved aside like a damaged one, once.
A *busy* log (another process holds a lock on it for longer than ``log_busy_seconds``,
:data:`BUSY_TIMEOUT` by default) is not damaged: that answer goes unlogged with a warning, reading it
is a one-line error, and the file is left where it is, since moving a file another process is
writing loses its writes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.errors import CitelineError, NotFound, StoreBusy, redact, warn
from rag.log import migrations
from rag.records import Answer, AnswerMode, Turn

# Seconds to wait for another process's lock on the log before giving up on this write or read.
BUSY_TIMEOUT = 5.0

_INSERT = (
    "INSERT INTO entries (time, kind, conversation, question, standalone, answer, mode, model, collection, "
    "citations, timings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass
class LogEntry:
    """One logged answer or summary."""

    id: int
    time: float
    kind: str  # ask, chat, mcp or summarize
    conversation: str
    question: str
    standalone: str | None
    answer: str
    mode: str | None
    model: str | None  # "none" for every answer made without a model (see shown_model)
    collection: str | None
    citations: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``log --json`` document."""
        data = dict(self.__dict__)
        data["time"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.time))
        return data


# What an answer made without any model call records as its model: "none (extractive)" when no
# model is configured, "no model call" when one is but the answer did not need it (a listing, an
# abstention). Shown the same way, as NO_MODEL.
NO_MODEL = "none"
_NO_MODEL_NAMES = ("none (extractive)", "no model call")


def shown_model(model: str | None) -> str:
    """The model as the log, the sources line and MCP show it: one wording for "no model used"."""
    return NO_MODEL if not model or model in _NO_MODEL_NAMES else model


def new_conversation() -> str:
    """A fresh conversation id."""
    return uuid.uuid4().hex[:12]


class AnswerLog:
    """The log file: ``record`` after each answer, ``recent``/``search``/``get`` to read it.

    One object may be used from several threads at once (the MCP server runs each tool call in a
    worker thread): the one connection is opened with ``check_same_thread=False`` and every use of
    it, opening included, holds :attr:`_lock`, so calls are serialized rather than refused.
    """

    def __init__(self, path: Path, secrets: tuple[str, ...] = (), busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = path
        self.secrets = secrets  # the configured keys: removed from logged text like anything key-shaped
        self.busy_timeout = busy_timeout  # settings.log_busy_seconds
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def _connect(self) -> sqlite3.Connection:
        """The open connection; call with :attr:`_lock` held.

        Only a file SQLite calls corrupt or not a database is moved aside; any other failure
        (busy above all) is raised and leaves the file alone.
        """
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = self._open()
            except sqlite3.DatabaseError as exc:
                if not _is_damaged(exc):
                    raise
                self._set_aside(f"was damaged ({exc})", "damaged")
                self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        """Open the file, checked: intact, and either new or a citeline log of this or an earlier
        schema version, migrated to this one (a new file gets every migration).

        A file of another schema is moved aside under an exclusive lock, so never while another
        process is using it (that is busy, raised), and a new log is started.
        """
        db = sqlite3.connect(str(self.path), timeout=self.busy_timeout, check_same_thread=False)
        try:
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise _Damaged("quick_check failed")
            foreign = migrations.foreign_schema(db)
            if foreign:
                db.execute("BEGIN EXCLUSIVE")
                self._set_aside(f"is not a citeline answer log ({foreign})", "foreign")
                db.close()
                return self._open()
            if migrations.version_of(db) < migrations.schema_version():
                migrations.migrate(db)
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _set_aside(self, problem: str, label: str) -> None:
        """Move the file (and its journal) to ``<name>.<label>-<time>`` and say so in one warning."""
        stem = f"{self.path.name}.{label}-{time.strftime('%Y%m%d-%H%M%S')}"
        aside = self.path.with_name(stem)
        for n in range(2, 1000):  # never over an earlier file set aside in the same second
            if not aside.exists():
                break
            aside = self.path.with_name(f"{stem}-{n}")
        if self.path.exists():
            self.path.replace(aside)
        for suffix in ("-journal", "-wal", "-shm"):  # a stale journal must not roll back into the new log
            companion = self.path.with_name(self.path.name + suffix)
            if companion.exists():
                companion.replace(aside.with_name(aside.name + suffix))
        warn(f"the answer log {self.path} {problem}; moved it to {aside.name} and started a new one")

    def _busy(self) -> str:
        return (
            f"the answer log {self.path} is busy: another process has held a lock on it for over "
            f"{self.busy_timeout:g}s"
        )

    def record(
        self, kind: str, question: str, answer: Answer, collection: str, conversation: str
    ) -> int | None:
        """Log an answer; a failure to write is a warning, never an error (the answer was given)."""
        citations = [
            {
                "key": c.key,
                "id": c.paper.id,
                "label": c.paper.display,
                "source": c.paper.source,
                "line": c.paper.line,
            }
            for c in answer.citations
        ]
        standalone = self._redact(answer.standalone_question) if answer.standalone_question else None
        row = (
            time.time(),
            kind,
            conversation,
            self._redact(question),
            standalone,
            self._redact(answer.text),
            answer.mode,
            answer.model,
            collection,
            json.dumps(citations),
            json.dumps(answer.timings),
        )
        return self._insert(row)

    def record_summary(
        self,
        topic: str,
        markdown: str,
        citations: list[dict[str, Any]],
        model: str,
        collection: str,
        timings: dict[str, float],
    ) -> int | None:
        """Log a summary (its Markdown is the answer)."""
        topic, markdown = self._redact(topic), self._redact(markdown)
        row = (
            time.time(),
            "summarize",
            new_conversation(),
            topic,
            None,
            markdown,
            "summary",
            model,
            collection,
            json.dumps(citations),
            json.dumps(timings),
        )
        return self._insert(row)

    def _redact(self, text: str) -> str:
        """``text`` as it may be stored: a key typed into a question must not sit in a file (or be
        shown again by ``citeline log``), so keys are removed as they are from error messages."""
        return redact(text, self.secrets)

    def _insert(self, row: tuple) -> int | None:
        try:
            with self._lock:
                db = self._connect()
                with db:
                    cursor = db.execute(_INSERT, row)
                return cursor.lastrowid
        except sqlite3.Error as exc:
            if _is_busy(exc):
                warn(f"{self._busy()}; this answer was not logged")
            else:
                warn(f"could not write the answer log {self.path}: {exc}")
            return None
        except OSError as exc:
            warn(f"could not write the answer log {self.path}: {exc}")
            return None

    def _rows(self, sql: str, args: tuple = ()) -> list[LogEntry]:
        if not self.path.exists():
            return []
        try:
            with self._lock:
                rows = self._connect().execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            if _is_busy(exc):
                raise StoreBusy(f"{self._busy()}; try again when it is done") from None
            raise CitelineError(f"cannot read the answer log {self.path}: {exc}") from None
        except OSError as exc:
            raise CitelineError(f"cannot read the answer log {self.path}: {exc}") from None
        return [
            LogEntry(
                *row[:8],
                shown_model(row[8]),
                row[9],
                citations=json.loads(row[10]),
                timings=json.loads(row[11]),
            )
            for row in rows
        ]

    _COLUMNS = (
        "e.id, e.time, e.kind, e.conversation, e.question, e.standalone, e.answer, e.mode, e.model, "
        "e.collection, e.citations, e.timings"
    )

    def recent(self, n: int = 20, **filters: str | None) -> list[LogEntry]:
        """The last ``n`` entries, newest first (``filters``: see :meth:`_filter`)."""
        where, args = self._filter(**filters)
        return self._rows(
            f"SELECT {self._COLUMNS} FROM entries e{where} ORDER BY e.id DESC LIMIT ?", (*args, n)
        )

    def search(self, words: str, n: int = 20, **filters: str | None) -> list[LogEntry]:
        """The last ``n`` entries matching ``words`` (every word, prefix-matched), newest first,
        like the unfiltered list: a log is read by time, and the latest answer is the one wanted."""
        terms = [w.replace('"', "") for w in words.split() if w.replace('"', "")]
        if not terms:
            return self.recent(n, **filters)
        query = " ".join(f'"{t}"*' for t in terms)
        where, args = self._filter(**filters)
        return self._rows(
            f"SELECT {self._COLUMNS} FROM entries_fts f JOIN entries e ON e.id = f.rowid "
            f"WHERE entries_fts MATCH ?{where.replace(' WHERE', ' AND')} ORDER BY e.id DESC LIMIT ?",
            (query, *args, n),
        )

    @staticmethod
    def _filter(
        kind: str | None = None, collection: str | None = None, conversation: str | None = None
    ) -> tuple[str, tuple]:
        """A WHERE clause for entries of one kind, collection and/or conversation (exact values)."""
        given = (("kind", kind), ("collection", collection), ("conversation", conversation))
        pairs = [(column, value) for column, value in given if value]
        if not pairs:
            return "", ()
        return " WHERE " + " AND ".join(f"e.{column} = ?" for column, _ in pairs), tuple(v for _, v in pairs)

    def get(self, entry_id: int) -> LogEntry | None:
        """One entry by id (an id SQLite cannot hold, like ``log show 99999999999999999999``, is none)."""
        if not -(2**63) <= entry_id < 2**63:
            return None
        rows = self._rows(f"SELECT {self._COLUMNS} FROM entries e WHERE e.id = ?", (entry_id,))
        return rows[0] if rows else None

    def last_conversation(self) -> tuple[str, list[Turn]]:
        """The most recent ask/chat conversation and its turns (answered ones), oldest first."""
        last = self._rows(
            f"SELECT {self._COLUMNS} FROM entries e WHERE e.kind != 'summarize' ORDER BY e.id DESC LIMIT 1"
        )
        if not last:
            return new_conversation(), []
        return self.conversation(last[0].conversation)

    def conversation(self, conversation: str) -> tuple[str, list[Turn]]:
        """One logged conversation's id and answered turns, oldest first, to continue it (``--cid``);
        an id the log does not hold is a :class:`CitelineError`."""
        entries = self._rows(
            f"SELECT {self._COLUMNS} FROM entries e WHERE e.conversation = ? AND e.kind != 'summarize' "
            "ORDER BY e.id",
            (conversation,),
        )
        if not entries:
            shown = conversation if len(conversation) <= 40 else conversation[:40] + "…"
            raise NotFound(f"no logged conversation {shown!r} (`citeline log` shows each entry's)")
        return conversation, [
            Turn(e.question, e.answer, tuple(str(c["id"]) for c in e.citations if "id" in c))
            for e in entries
            if e.mode != AnswerMode.ABSTAINED
        ]

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class _Damaged(sqlite3.DatabaseError):
    """The file opened as a database but failed SQLite's integrity check."""


def _is_busy(exc: sqlite3.Error) -> bool:
    """Another connection holds a lock: wait or skip, never treat the file as damaged."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _is_damaged(exc: sqlite3.Error) -> bool:
    """The file is not a usable database: the only case in which it is moved aside."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return isinstance(exc, _Damaged) or code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
