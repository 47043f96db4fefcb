"""The answer log's schema as an ordered list of migrations, each applied once per file.

After simonw/llm's ``migrations.py``: the schema is not one ``CREATE`` script but the steps that
built it, so a log written by any earlier citeline is brought forward with its entries instead of
being replaced. Step *n* of :data:`MIGRATIONS` takes a file from version *n - 1* to *n*; the version
a file has reached is recorded in the file itself, as ``PRAGMA user_version``, in the same
transaction as the step, so a step runs once (a crash mid-step leaves the file at the version
before it) and two processes opening one file apply it once between them. llm records applied steps
by name in a table; here the version number is the record, because logs of version 1 already carry
it there and a log with tables of its own besides ``entries`` is taken for another program's file.

A change to the schema is a new step appended to :data:`MIGRATIONS` (an ``ALTER TABLE``, a new
index), never an edit of an old one: files already past a step would not see the edit.

Versions so far:

- 0: a new, empty file, or a log of citeline before versions were recorded (2026-12-03 to the
  release that added them): it already has version 1's tables, only the version is missing.
- 1: the ``entries`` table, its FTS5 index (question, standalone question, answer) and the trigger
  that fills the index on insert.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    """One step of the schema: ``apply`` takes a file from the previous version to this one, and
    ``columns`` is the ``entries`` table after it, what a file at this version must hold to be ours."""

    name: str
    apply: Callable[[sqlite3.Connection], None]
    columns: tuple[str, ...]


def _entries_with_search(db: sqlite3.Connection) -> None:
    """Version 1. ``IF NOT EXISTS`` because a log from before versions already holds these."""
    db.execute(
        """CREATE TABLE IF NOT EXISTS entries (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            kind TEXT NOT NULL,
            conversation TEXT NOT NULL,
            question TEXT NOT NULL,
            standalone TEXT,
            answer TEXT NOT NULL,
            mode TEXT,
            model TEXT,
            collection TEXT,
            citations TEXT NOT NULL,
            timings TEXT NOT NULL
        )"""
    )
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5("
        "question, standalone, answer, content='entries', content_rowid='id')"
    )
    db.execute(
        """CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
            INSERT INTO entries_fts(rowid, question, standalone, answer)
            VALUES (new.id, new.question, new.standalone, new.answer);
        END"""
    )


_V1_COLUMNS = tuple(
    "id time kind conversation question standalone answer mode model collection citations timings".split()
)

MIGRATIONS: list[Migration] = [
    Migration("entries with full-text search", _entries_with_search, _V1_COLUMNS),
]


def schema_version() -> int:
    """The version this citeline writes: one per migration."""
    return len(MIGRATIONS)


def entry_columns() -> tuple[str, ...]:
    """The ``entries`` table's columns at :func:`schema_version`, in order (what rows are read as)."""
    return MIGRATIONS[-1].columns


def version_of(db: sqlite3.Connection) -> int:
    """The schema version the open file records (0 for a new file or one from before versions)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def foreign_schema(db: sqlite3.Connection) -> str | None:
    """Why the open file is not a citeline answer log this citeline can read, or None when it is one.

    A version above :func:`schema_version` was written by a newer citeline: its columns may mean
    what this one cannot know, so it is not read (nor migrated down). An ``entries`` table other
    than the one its version had, or tables of another program, make it another program's file.
    """
    version = version_of(db)
    if not 0 <= version <= schema_version():
        return f"schema version {version}, this citeline writes {schema_version()}"
    columns = tuple(row[1] for row in db.execute("PRAGMA table_info(entries)"))
    # A version-0 file that has tables is a log from before versions, with version 1's.
    expected = MIGRATIONS[max(version, 1) - 1].columns
    if columns and columns != expected:
        return f"its entries table has the columns {', '.join(columns)}"
    tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    others = sorted(t for t in tables if not t.startswith(("entries", "sqlite_")))
    if others:
        return f"it holds other tables: {', '.join(others[:5])}"
    return None


def migrate(db: sqlite3.Connection) -> int:
    """Apply every migration the file has not had, in order, each with its version bump in one
    transaction; returns the version reached.

    The version is read again under the write lock before each step, so a step another process
    applied meanwhile is not applied twice. A step that fails rolls back with its version bump,
    leaving the file as it was before that step.
    """
    while True:
        db.execute("BEGIN IMMEDIATE")
        try:
            version = version_of(db)
            if version >= schema_version():
                db.rollback()
                return version
            MIGRATIONS[version].apply(db)
            db.execute(f"PRAGMA user_version = {version + 1}")
            db.commit()
        except BaseException:
            db.rollback()
            raise
