"""The answer log: records, full-text search, conversations, and a damaged or unwritable file."""

import sqlite3
import warnings

import pytest

from rag.answer.log import AnswerLog, new_conversation
from rag.errors import CitelineError, CitelineWarning
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
    assert [str(w.message) for w in caught] == []
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
        assert [str(w.message) for w in caught] == [
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


def test_a_log_of_an_unknown_schema_version_is_moved_aside(tmp_path):
    path = tmp_path / "logs.sqlite"
    AnswerLog(path).record("ask", "q?", _answer("q", "a"), "default", "c1")
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.warns(CitelineWarning, match=r"is not a citeline answer log \(schema version 99"):
        assert AnswerLog(path).recent() == []
    assert len(list(tmp_path.glob("logs.sqlite.foreign-*"))) == 1


def test_a_log_written_before_schema_versions_keeps_its_history(tmp_path):
    from rag.answer import log as answer_log

    path = tmp_path / "logs.sqlite"
    with sqlite3.connect(path) as old:  # what earlier citeline versions wrote: no user_version
        old.executescript(answer_log._SCHEMA)
    AnswerLog(path).record("ask", "earlier?", _answer("q", "a"), "default", "c1")
    assert [e.question for e in AnswerLog(path).recent()] == ["earlier?"]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == answer_log.SCHEMA_VERSION
    assert list(tmp_path.iterdir()) == [path]


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
