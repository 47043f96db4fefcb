"""Ingest against real Chroma, embedded and server: idempotence, change detection, crash safety."""

import json
import threading

import pytest

import rag.index.ingest as ingest_module
from rag.errors import CitelineError
from rag.index.embeddings import MiniLMEmbedder
from rag.index.ingest import ingest
from rag.index.lexical import collection_lock, lexical_index, query_lexical_index
from rag.index.store import Store
from rag.resources import bundled_corpus

from ..conftest import with_bundled_vectors


def _store(settings) -> Store:
    store = Store(settings)
    store.open(MiniLMEmbedder.name)
    return store


def bm25_is_current(settings, count=None) -> bool:
    """What a query checks: the saved BM25 index matches the collection as the server has it now."""
    store = _store(settings)
    return lexical_index(settings).is_current(store.count() if count is None else count, store.generation)


def _line_numbers_of(path, prefix):
    return [
        n
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.startswith(prefix)
    ]


def test_reingesting_the_same_files_adds_nothing_and_keeps_ids(store_settings, bundled_vectors):
    with_bundled_vectors(store_settings, bundled_vectors)
    first = ingest(bundled_corpus(), store_settings)
    assert (first.added, first.unchanged, first.files) == (57, 0, 3)
    store = _store(store_settings)
    ids_before = {p.id for p in store.papers()}
    count_before = store.count()
    bm25_file = lexical_index(store_settings).directory / "ids.json"
    bm25_before = bm25_file.stat().st_ino
    second = ingest(bundled_corpus(), store_settings)
    assert (second.added, second.updated, second.unchanged, second.chunks_written) == (0, 0, 57, 0)
    assert bm25_file.stat().st_ino == bm25_before  # nothing written, so BM25 was not rebuilt
    assert bm25_is_current(store_settings, count_before)
    assert {p.id for p in store.papers()} == ids_before and store.count() == count_before
    assert "000-02" in ids_before


def test_changed_entry_is_reembedded_and_removed_entry_deleted(store_settings, seed_copy, bundled_vectors):
    ingest([seed_copy], with_bundled_vectors(store_settings, bundled_vectors))
    path = next(seed_copy.glob("004_*"))
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("panoramic imagery", "panoramic video")  # entry 004-01
    lines[4] = ""  # entry 004-02 removed: later entries shift position, so their ids change too
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = ingest([seed_copy], store_settings)
    store = _store(store_settings)
    assert report.updated >= 1 and report.removed >= 1
    assert "panoramic video" in store.paper("004-01").abstract
    assert len(store.papers()) == 56
    assert bm25_is_current(store_settings)


def test_a_different_embedding_model_is_refused_on_an_existing_index(store_settings, bundled_vectors):
    ingest(bundled_corpus()[:1], with_bundled_vectors(store_settings, bundled_vectors))
    with pytest.raises(CitelineError, match="was built with embedding"):
        Store(store_settings).open("openai:text-embedding-3-small")


def test_crash_mid_ingest_leaves_a_usable_index_and_rerun_completes(store_settings, monkeypatch):
    real = ingest_module.make_embedder(store_settings)

    class Crashing:
        name = real.name
        calls = 0

        def embed_documents(self, texts):
            Crashing.calls += 1
            if Crashing.calls == 3:
                raise KeyboardInterrupt  # what Ctrl-C raises between two batches
            return real.embed_documents(texts)

    monkeypatch.setattr(ingest_module, "EMBED_BATCH", 8)
    monkeypatch.setattr(ingest_module, "make_embedder", lambda settings: Crashing())
    with pytest.raises(KeyboardInterrupt):
        ingest(bundled_corpus(), store_settings)
    store = _store(store_settings)
    partial = store.count()
    assert 0 < partial < 104
    assert not bm25_is_current(store_settings, partial)  # marked dirty: queries rebuild it before use
    query_lexical_index(store_settings, store)  # what a query does: no ingest runs, so it rebuilds
    assert bm25_is_current(store_settings, partial)

    monkeypatch.setattr(ingest_module, "make_embedder", lambda settings: real)
    report = ingest(bundled_corpus(), store_settings)
    assert report.added + report.unchanged == 57
    states = store.paper_states()
    assert len(states) == 57 and store.count() == sum(len(s.chunk_ids) for s in states.values())
    assert bm25_is_current(store_settings)
    assert not collection_lock(store_settings).is_locked


def test_a_second_ingest_of_the_same_collection_is_refused_while_one_runs(store_settings):
    lock = collection_lock(store_settings)
    holder = threading.Thread(target=lock.acquire)  # another process would hold the same file lock
    holder.start()
    holder.join()
    try:
        with pytest.raises(CitelineError, match="another citeline process is writing"):
            ingest(bundled_corpus()[:1], store_settings)
    finally:
        lock.release(force=True)


def test_a_file_of_only_bad_entries_fails_and_a_mixed_file_ingests_the_good_ones(store_settings, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n{oops\n')
    with pytest.raises(CitelineError, match="nothing could be ingested"):
        ingest([bad], store_settings)
    empties = [tmp_path / f"empty{n}.jsonl" for n in range(5)]
    for empty in empties:
        empty.write_text("")
    with pytest.raises(
        CitelineError, match=r"nothing could be ingested: (empty\d\.jsonl: [^;]*; ){3}and 2 more$"
    ):
        ingest(empties, store_settings)  # five problems: three named, then how many more
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text('{"id": "g1", "title": "Good", "abstract": "A good abstract about graphs."}\n{oops\n')
    report = ingest([mixed], store_settings)
    assert report.added == 1 and report.skipped == 1
    assert str(report.problems[0]).startswith("mixed.jsonl:2:")


def test_a_list_emptied_or_wholly_unreadable_keeps_its_indexed_papers(store_settings, tmp_path):
    path = tmp_path / "list.jsonl"
    records = [{"id": f"e{n}", "title": f"Paper {n}", "abstract": f"An abstract about graphs, number {n}."}
               for n in range(2)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert ingest([path], store_settings).added == 2
    for damaged in ("", "{oops\n{also bad\n"):  # a download cut to nothing; a bad export
        path.write_text(damaged)
        with pytest.raises(CitelineError, match=r"nothing could be ingested: list\.jsonl") as failed:
            ingest([path], store_settings)
        kept = "list.jsonl: holds no readable papers; its 2 indexed papers are kept"
        assert f"ingested: {kept}" in str(failed.value)
        assert not damaged or "list.jsonl:1: " in str(failed.value)  # and why its lines could not be read
        assert {p.id for p in _store(store_settings).papers()} == {"e0", "e1"}
    path.write_text(json.dumps(records[0]) + "\n")  # a list that still holds papers is mirrored
    assert ingest([path], store_settings).removed == 1
