"""The answer log: records, full-text search, conversations, and a damaged or unwritable file."""

import json
import sqlite3
import warnings

import pytest

from rag.errors import CitelineError, CitelineWarning
from rag.log import migrations
from rag.log.store import AnswerLog, new_conversation
from rag.records import Answer, Citation

from ..fakes import paper

ADA = paper("000-02", "AdaSCALE beats OptFS by 14.94% in near-OOD FPR@95.")


def _answer(question: str, text: str, mode: str = "generated") -> Answer:
    return Answer(question=question, text=text, abstained=mode == "abstained",
                  citations=[Citation("000-02", ADA)], retrieved=[], model="scripted", mode=mode,
                  standalone_question=question)  # fmt: skip


def test_entries_are_listed_newest_first_searched_by_words_and_read_back_in_full(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    first = log.record("ask", "By how much does AdaSCALE beat OptFS?", _answer("q", "By 14.94% [000-02]."),
                       "default", new_conversation())  # fmt: skip
    log.record(
        "ask", "Which papers study watermarking?", _answer("q", "Three papers."), "icml", new_conversation()
    )
    log.record_summary("diffusion", "# diffusion", [], "none (extractive)", "default", {"total": 1.0})
    assert [e.kind for e in log.recent()] == ["summarize", "ask", "ask"]
    assert [e.id for e in log.search("adascal optfs")] == [first]  # prefix match, every word
    assert log.search("nothing-like-this") == []
    entry = log.get(first)
    assert entry is not None and entry.answer == "By 14.94% [000-02]." and entry.collection == "default"
    assert entry.citations == [
        {"key": "000-02", "id": "000-02", "label": ADA.display, "source": ADA.source, "line": ADA.line}
    ]
    assert log.get(999) is None


def test_the_last_conversation_comes_back_with_its_answered_turns_in_order(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    assert log.last_conversation()[1] == []
    talk = new_conversation()
    log.record("chat", "What is AdaSCALE?", _answer("q", "An OOD method [000-02]."), "default", talk)
    log.record("chat", "Is it on CIFAR?", _answer("q", "No.", mode="abstained"), "default", talk)
    log.record("chat", "By how much?", _answer("q", "14.94% [000-02]."), "default", talk)
    log.record_summary("diffusion", "# d", [], "m", "default", {})  # summaries are not conversations
    conversation, turns = log.last_conversation()
    assert conversation == talk
    assert [(t.question, t.answer) for t in turns] == [
        ("What is AdaSCALE?", "An OOD method [000-02]."),
        ("By how much?", "14.94% [000-02]."),
    ]


def test_search_results_come_newest_first_and_filter_by_kind_collection_and_conversation(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    talk = new_conversation()
    old = log.record("ask", "What is AdaSCALE?", _answer("q", "An OOD method [000-02]."), "default", talk)
    mid = log.record(
        "mcp", "AdaSCALE on ImageNet?", _answer("q", "Yes [000-02]."), "icml", new_conversation()
    )
    new = log.record("chat", "AdaSCALE gains?", _answer("q", "14.94% [000-02]."), "default", talk)
    log.record_summary("adascale", "# AdaSCALE", [], "m", "default", {})
    assert [e.id for e in log.search("adascale")][1:] == [new, mid, old]  # newest first, not by rank
    assert [e.id for e in log.search("adascale", kind="chat")] == [new]
    assert [e.id for e in log.search("adascale", collection="icml")] == [mid]
    assert [e.id for e in log.recent(conversation=talk)] == [new, old]
    assert [e.id for e in log.recent(kind="ask", collection="default", conversation=talk)] == [old]
    assert log.recent(kind="summarize", collection="icml") == []


def test_a_logged_conversation_is_continued_by_its_id_with_the_papers_each_turn_cited(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    talk = new_conversation()
    log.record("chat", "What is AdaSCALE?", _answer("q", "An OOD method [000-02]."), "default", talk)
    log.record(
        "ask", "Which papers study watermarking?", _answer("q", "Three."), "default", new_conversation()
    )
    conversation, turns = log.conversation(talk)
    assert conversation == talk and [(t.question, t.papers) for t in turns] == [
        ("What is AdaSCALE?", ("000-02",))
    ]
    with pytest.raises(CitelineError, match="no logged conversation 'nope'"):
        log.conversation("nope")


def test_every_answer_made_without_a_model_shows_the_same_model_name(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    for model in ("none (extractive)", "no model call"):
        answer = _answer("q", "x [000-02].")
        answer.model = model
        log.record("ask", f"asked with {model}", answer, "default", new_conversation())
    assert [e.model for e in log.recent()] == ["none", "none"]


def test_a_damaged_log_is_moved_aside_with_a_warning_and_a_new_one_started(tmp_path):
    path = tmp_path / "logs.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(CitelineWarning, match="answer log .* was damaged"):
        entry_id = AnswerLog(path).record("ask", "q?", _answer("q", "a"), "default", "c1")
    assert entry_id == 1 and list(tmp_path.glob("logs.sqlite.damaged-*"))
    assert sqlite3.connect(path).execute("SELECT count(*) FROM entries").fetchone()[0] == 1


def _ours(caught: list[warnings.WarningMessage]) -> list[str]:
    """citeline's warnings among those caught: a socket another test left open may be collected
    (and warned about) in the middle of this one."""
    return [str(w.message) for w in caught if issubclass(w.category, CitelineWarning)]


def test_a_log_that_cannot_be_written_warns_and_never_raises(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert AnswerLog(blocker / "logs.sqlite").record("ask", "q?", _answer("q", "a"), "d", "c") is None
    assert any("could not write the answer log" in str(w.message) for w in caught)


def test_answers_recorded_from_many_threads_at_once_are_all_logged(tmp_path):
    import threading

    log = AnswerLog(tmp_path / "logs.sqlite")
    start = threading.Barrier(10)
    ids: list[int | None] = []

    def ask(n: int) -> None:
        start.wait()
        ids.append(log.record("mcp", f"question {n}?", _answer("q", f"answer {n}"), "default", f"c{n}"))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=ask, args=(n,)) for n in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert _ours(caught) == []
    assert None not in ids and len(set(ids)) == 10
    assert sorted(e.question for e in log.recent()) == sorted(f"question {n}?" for n in range(10))


def test_a_busy_log_is_left_in_place_the_answer_unlogged_with_a_warning_and_reading_it_an_error(tmp_path):
    path = tmp_path / "logs.sqlite"
    AnswerLog(path).record("ask", "first?", _answer("q", "a"), "default", "c1")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        log = AnswerLog(path)
        log.busy_timeout = 0.2  # seconds to wait for the holder (the CLI waits longer)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert log.record("ask", "second?", _answer("q", "a"), "default", "c2") is None
        assert _ours(caught) == [
            f"the answer log {path} is busy: another process has held a lock on it for over 0.2s; "
            "this answer was not logged"
        ]
        with pytest.raises(CitelineError, match=r"is busy: .*; try again when it is done"):
            log.recent()
        holder.execute("INSERT INTO entries SELECT NULL, time, kind, conversation, 'held?', standalone, "
                       "answer, mode, model, collection, citations, timings FROM entries")  # fmt: skip
        holder.execute("COMMIT")  # the holder's own write goes through: its file was not moved
    finally:
        holder.close()
    assert list(tmp_path.iterdir()) == [path]
    assert [e.question for e in log.recent()] == ["held?", "first?"]


def test_an_id_beyond_sqlites_integers_is_simply_not_found(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    log.record("ask", "q?", _answer("q", "a"), "default", "c1")
    assert log.get(99999999999999999999) is None and log.get(-(2**70)) is None
    assert log.get(1) is not None


def test_a_file_with_a_foreign_entries_table_is_moved_aside_once_and_a_new_log_started(tmp_path):
    path = tmp_path / "logs.sqlite"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, note TEXT)")
        other.execute("INSERT INTO entries (note) VALUES ('not ours')")
    with pytest.warns(CitelineWarning, match=r"answer log .* is not a citeline answer log .*; moved it to"):
        assert AnswerLog(path).recent() == []
    (aside,) = tmp_path.glob("logs.sqlite.foreign-*")
    assert sqlite3.connect(aside).execute("SELECT note FROM entries").fetchall() == [("not ours",)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new log is ours: no second warning
        log = AnswerLog(path)
        assert log.record("ask", "q?", _answer("q", "a"), "default", "c1") == 1
        assert [e.question for e in AnswerLog(path).recent()] == ["q?"]


def test_a_log_of_a_newer_citeline_is_moved_aside_whole_and_never_migrated_down(tmp_path):
    path = tmp_path / "logs.sqlite"
    AnswerLog(path).record("ask", "q?", _answer("q", "a"), "default", "c1")
    newer = migrations.schema_version() + 1
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {newer}")
    with pytest.warns(CitelineWarning, match=rf"is not a citeline answer log \(schema version {newer}, this"):
        assert AnswerLog(path).recent() == []
    (aside,) = tmp_path.glob("logs.sqlite.foreign-*")
    kept = sqlite3.connect(aside)
    assert kept.execute("PRAGMA user_version").fetchone()[0] == newer
    assert kept.execute("SELECT question FROM entries").fetchall() == [("q?",)]


# What citeline wrote before schema versions were recorded (606923d to a9f1a2c): these tables, at
# user_version 0. Frozen here as written then, so a change to the migrations cannot edit the past.
_UNVERSIONED_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
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
);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
    question, standalone, answer, content='entries', content_rowid='id'
);
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, question, standalone, answer)
    VALUES (new.id, new.question, new.standalone, new.answer);
END;
"""


def _old_log(path, version: int) -> None:
    """A log as an earlier citeline left it: two conversations, a summary, the model names then."""
    cited = {"key": "000-02", "id": "000-02", "label": "AdaSCALE", "source": "a.txt", "line": 3}
    citation = json.dumps([cited])
    with sqlite3.connect(path) as old:
        old.executescript(_UNVERSIONED_SCHEMA + f"PRAGMA user_version = {version};")
        old.executemany(
            "INSERT INTO entries (time, kind, conversation, question, standalone, answer, mode, model, "
            "collection, citations, timings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (1.0e9, "chat", "talk1", "What is AdaSCALE?", "What is AdaSCALE?", "An OOD method [000-02].",
                 "generated", "qwen", "default", citation, '{"total": 2.5}'),
                (1.0e9 + 60, "chat", "talk1", "By how much?", "By how much does AdaSCALE beat OptFS?",
                 "14.94% [000-02].", "quoted", "none (extractive)", "default", citation, "{}"),
                (1.0e9 + 120, "summarize", "sum1", "diffusion", None, "# diffusion", "summary",
                 "no model call", "icml", "[]", "{}"),
            ],
        )  # fmt: skip


@pytest.mark.parametrize("version", [0, 1])
def test_a_log_written_by_an_earlier_citeline_opens_migrated_with_every_entry_intact(tmp_path, version):
    path = tmp_path / "logs.sqlite"
    _old_log(path, version)
    log = AnswerLog(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an old log is ours: nothing is moved aside or warned about
        entries = log.recent()
    assert [(e.id, e.kind, e.conversation, e.question, e.model, e.collection) for e in entries] == [
        (3, "summarize", "sum1", "diffusion", "none", "icml"),
        (2, "chat", "talk1", "By how much?", "none", "default"),
        (1, "chat", "talk1", "What is AdaSCALE?", "qwen", "default"),
    ]
    first = log.get(1)
    assert first is not None and first.timings == {"total": 2.5} and first.citations[0]["line"] == 3
    assert [e.id for e in log.search("optfs")] == [2]  # the old full-text index still answers
    assert [t.question for t in log.conversation("talk1")[1]] == ["What is AdaSCALE?", "By how much?"]
    new = log.record("chat", "And on ImageNet?", _answer("q", "Yes [000-02]."), "default", "talk1")
    assert new == 4 and [e.id for e in log.search("imagenet")] == [4]
    log.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == migrations.schema_version()
    assert list(tmp_path.iterdir()) == [path]


def _extra_step(name: str, calls: list[str]) -> migrations.Migration:
    """A later schema step for the tests: a ``starred`` column on entries."""

    def apply(db: sqlite3.Connection) -> None:
        calls.append(name)
        db.execute("ALTER TABLE entries ADD COLUMN starred INTEGER NOT NULL DEFAULT 0")

    return migrations.Migration(name, apply, (*migrations.entry_columns(), "starred"))


def test_each_migration_runs_once_in_order_and_only_the_ones_a_file_has_not_had(tmp_path, monkeypatch):
    path = tmp_path / "logs.sqlite"
    _old_log(path, 1)
    calls: list[str] = []
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, _extra_step("starred", calls)])
    for _ in range(2):  # the second opening finds nothing left to do
        log = AnswerLog(path)
        assert [e.question for e in log.recent()][-1] == "What is AdaSCALE?"
        log.close()
    assert calls == ["starred"]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("SELECT count(*) FROM entries WHERE starred = 0").fetchone()[0] == 3


def test_a_migration_that_fails_leaves_the_file_at_its_old_version_with_its_entries(tmp_path, monkeypatch):
    path = tmp_path / "logs.sqlite"
    _old_log(path, 1)

    def fails(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE entries ADD COLUMN starred INTEGER")
        raise sqlite3.OperationalError("disk I/O error")

    columns = migrations.entry_columns()
    broken = migrations.Migration("broken", fails, (*columns, "starred"))
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, broken])
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        migrations.migrate(db)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert tuple(r[1] for r in db.execute("PRAGMA table_info(entries)")) == columns
    assert db.execute("SELECT count(*) FROM entries").fetchone()[0] == 3


def test_a_new_log_gets_every_migration(tmp_path):
    log = AnswerLog(tmp_path / "logs.sqlite")
    assert log.record("ask", "q?", _answer("q", "a"), "default", "c1") == 1
    db = sqlite3.connect(tmp_path / "logs.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == migrations.schema_version()
    assert tuple(r[1] for r in db.execute("PRAGMA table_info(entries)")) == migrations.entry_columns()


def test_a_key_typed_into_a_question_never_reaches_the_log_file(tmp_path):
    path = tmp_path / "logs.sqlite"
    secret = "sk-proj-SENTINEL4242abcd"
    log = AnswerLog(path)
    question = f"My key is {secret}, what is AdaSCALE?"
    log.record("ask", question, _answer(question, f"You asked about {secret} [000-02]."), "default", "c1")
    log.record_summary(f"topic {secret}", f"# topic {secret}", [], "m", "default", {})
    entries = log.recent()
    assert (entries[1].question, entries[1].standalone) == ("My key is [redacted], what is AdaSCALE?",) * 2
    assert entries[1].answer == "You asked about [redacted] [000-02]."
    assert entries[0].question == "topic [redacted]" and entries[0].answer == "# topic [redacted]"
    log.close()
    assert secret.encode() not in path.read_bytes()


def test_the_configured_key_is_redacted_from_logged_text_whatever_its_shape(tmp_path):
    path = tmp_path / "logs.sqlite"
    configured = "my-own-configured-key-7788"
    log = AnswerLog(path, secrets=(configured,))
    log.record("ask", f"is {configured} valid?", _answer("q", f"{configured}"), "default", "c1")
    assert (log.recent()[0].question, log.recent()[0].answer) == ("is [redacted] valid?", "[redacted]")
    log.close()
    assert configured.encode() not in path.read_bytes()
