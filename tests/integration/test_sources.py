"""What an index stores per paper, and how sources are told apart (real Chroma, real embeddings)."""

from __future__ import annotations

import json
import shutil

from rag.index.chunking import chunk_paper
from rag.index.corpus import parse_source
from rag.index.embeddings import MiniLMEmbedder
from rag.index.ingest import ingest
from rag.index.store import Store

from ..conftest import copy_index
from .test_cli import run
from .test_store_ingest import bm25_is_current


def _store(settings) -> Store:
    store = Store(settings)
    store.open(MiniLMEmbedder.name)
    return store


def _write(path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _lists(root, names=("a", "b")) -> None:
    """Two lists called papers.jsonl in two folders, three papers each, with positional IDs."""
    for name in names:
        _write(
            root / name / "papers.jsonl",
            [
                {"title": f"{name} paper {n}", "abstract": f"List {name} studies topic {n} in depth."}
                for n in range(3)
            ],
        )


def test_a_huge_abstract_is_cut_to_the_limit_and_stored_once_not_per_chunk(store_settings, tmp_path):
    path = tmp_path / "b.jsonl"
    _write(path, [{"id": "b", "abstract": ("LLMs hallucinate facts. " * 10000)[:200000]}])
    report = ingest([path], store_settings)
    assert report.added == 1 and report.skipped == 0
    assert [str(p) for p in report.problems] == [
        "b.jsonl:1: abstract of 200,000 characters cut to 19,996 (limit 20,000)"
    ]
    store = _store(store_settings)
    metadatas = store.collection.get(include=["metadatas"])["metadatas"]
    assert len(metadatas) > 20  # many chunks ...
    assert sum(len(m.get("abstract", "")) for m in metadatas) == 19_996  # ... one copy of the abstract
    paper = store.paper("b")
    assert paper is not None and len(paper.abstract) == 19_996
    hit_meta = store.chunks_by_id(["b#7"])["b#7"]  # a search hit on a later chunk still shows the abstract
    assert hit_meta["abstract"] == paper.abstract
    if not store_settings.chroma_url:
        assert (store_settings.index_dir / "chroma" / "chroma.sqlite3").stat().st_size < 8_000_000


def test_lists_with_one_name_in_two_folders_keep_each_others_papers(store_settings, tmp_path):
    root = tmp_path / "lists"
    _lists(root)
    counts = []
    for _ in range(3):
        report = ingest([root], store_settings)
        counts.append(len(_store(store_settings).papers()))
    assert counts == [6, 6, 6] and report.unchanged == 6 and report.removed == 0
    sources = sorted({p.source for p in _store(store_settings).papers()})
    assert sources == ["a/papers.jsonl", "b/papers.jsonl"]
    ids = sorted(p.id for p in _store(store_settings).papers())
    assert ids[0] == "a-papers-0001" and ids[-1] == "b-papers-0003"
    # The same files given one by one keep the keys they have: nothing removed, nothing added.
    for name in ("a", "b"):
        again = ingest([root / name / "papers.jsonl"], store_settings)
        assert (again.unchanged, again.added, again.removed) == (3, 0, 0)


def test_a_different_file_of_the_same_name_never_deletes_the_first_ones_papers(store_settings, tmp_path):
    _lists(tmp_path, names=("c", "d"))
    first = ingest([tmp_path / "c" / "papers.jsonl"], store_settings)
    second = ingest([tmp_path / "d" / "papers.jsonl"], store_settings)
    assert (first.added, second.added, second.removed) == (3, 3, 0)
    papers = _store(store_settings).papers()
    assert sorted({p.source for p in papers}) == ["d/papers.jsonl", "papers.jsonl"]
    assert len(papers) == 6
    again = ingest([tmp_path / "c" / "papers.jsonl"], store_settings)
    assert (again.unchanged, again.removed) == (3, 0)


def test_moving_the_whole_folder_keeps_every_paper_and_id(store_settings, tmp_path):
    _lists(tmp_path / "old")
    ingest([tmp_path / "old"], store_settings)
    before = {p.id: p.source for p in _store(store_settings).papers()}
    shutil.move(tmp_path / "old", tmp_path / "new")
    moved = ingest([tmp_path / "new"], store_settings)
    assert (moved.unchanged, moved.added, moved.removed) == (6, 0, 0)
    assert {p.id: p.source for p in _store(store_settings).papers()} == before


def test_an_index_from_before_source_keys_is_migrated_without_reembedding(store_settings, tmp_path):
    root = tmp_path / "lists"
    _lists(root, names=("a",))
    _write(
        root / "a" / "papers.jsonl",
        [{"id": f"x{n}", "abstract": f"Old layout paper {n} on graphs."} for n in range(3)],
    )
    store = Store(store_settings)
    store.open(MiniLMEmbedder.name, create=True)
    # The old layout: the source is the bare file name, every chunk carries the abstract, no path.
    legacy = [c for p in parse_source(root / "a" / "papers.jsonl").papers for c in chunk_paper(p)]
    for chunk in legacy:
        chunk.metadata.update(abstract="Old layout paper on graphs.", paper_hash="old")
    store.upsert(legacy, MiniLMEmbedder().embed_documents([c.text for c in legacy]))
    report = ingest([root], store_settings.replace(embedding_cache=False))
    assert (report.updated, report.added, report.removed) == (3, 0, 0)
    assert report.vectors_reused == report.chunks_written == 3  # text unchanged: the stored vectors
    assert {p.source for p in _store(store_settings).papers()} == {"a/papers.jsonl"}


def test_the_same_id_in_two_files_of_one_run_keeps_the_first_and_says_where(store_settings, tmp_path):
    _write(tmp_path / "x.jsonl", [{"id": "dup", "abstract": "From x: " + "graph learning. " * 200}])
    _write(
        tmp_path / "y.jsonl",
        [{"id": "dup", "abstract": "From y: diffusion."}, {"id": "y2", "abstract": "Other."}],
    )
    for _ in range(2):
        report = ingest([tmp_path / "x.jsonl", tmp_path / "y.jsonl"], store_settings)
        assert "y.jsonl:1: id 'dup' is also at x.jsonl:1, which was kept; skipped" in [
            str(p) for p in report.problems
        ]
        store = _store(store_settings)
        paper = store.paper("dup")
        assert paper is not None and paper.abstract.startswith("From x")
        states = store.paper_states()
        assert states["dup"].source == "x.jsonl" and states["dup"].is_complete(
            "dup", next(iter(states["dup"].hashes))
        )
        assert sorted(states) == ["dup", "y2"]


def test_a_damaged_bm25_index_is_found_and_rebuilt_by_queries_and_by_ingest(seed_settings, tmp_path, recwarn):
    from rag.errors import CitelineWarning
    from rag.index.lexical import lexical_index
    from rag.resources import bundled_corpus
    from rag.retrieval.retriever import Retriever

    settings = copy_index(seed_settings, tmp_path / "data")  # the bundled corpus, ingested
    query = "adaptive percentile threshold for OOD activation scaling"
    before = [h.paper.id for h in Retriever(settings).search(query, mode="bm25")]
    directory = lexical_index(settings).directory
    (directory / "data.csc.index.npy").write_bytes(b"")  # emptied: numpy would raise EOFError
    assert [h.paper.id for h in Retriever(settings).search(query, mode="bm25")] == before
    assert any(issubclass(w.category, CitelineWarning) and "damaged" in str(w.message) for w in recwarn)
    assert bm25_is_current(settings)
    vocab = directory / "vocab.index.json"
    vocab.write_bytes(vocab.read_bytes()[: vocab.stat().st_size // 2])  # truncated
    again = ingest(bundled_corpus(), settings)
    assert again.unchanged == 57 and lexical_index(settings).load()  # "unchanged", and repaired
    flipped = bytearray((directory / "indices.csc.index.npy").read_bytes())
    flipped[-8:] = b"\xff" * 8  # same size, different bytes: caught by the checksum
    (directory / "indices.csc.index.npy").write_bytes(bytes(flipped))
    assert [h.paper.id for h in Retriever(settings).search(query, mode="bm25")] == before


def test_a_half_truncated_embedding_cache_is_moved_aside_and_the_ingest_finishes(tmp_path):
    from rag.resources import bundled_corpus
    from rag.settings import Settings

    settings = Settings(data_dir=tmp_path / "data", llm="none")
    ingest(bundled_corpus()[:1], settings)
    cache = settings.embedding_cache_file
    cache.write_bytes(cache.read_bytes()[: cache.stat().st_size // 2])
    for name in ("embeddings.sqlite-wal", "embeddings.sqlite-shm"):
        (cache.parent / name).unlink(missing_ok=True)
    result = run(["ingest", *map(str, bundled_corpus())], settings)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "embedding cache" in warnings[0] and "moved it to" in warnings[0]
    assert "Traceback" not in result.stderr and cache.is_file()
    assert list(cache.parent.glob("embeddings.sqlite.damaged-*"))


def test_an_emptied_bm25_file_gives_a_warning_and_results_not_aborted(seed_settings, tmp_path):
    from rag.index.lexical import lexical_index

    settings = copy_index(seed_settings, tmp_path / "data")  # the bundled corpus, ingested
    (lexical_index(settings).directory / "data.csc.index.npy").write_bytes(b"")
    result = run(["search", "AdaSCALE OptFS", "--json"], settings)
    assert result.returncode == 0 and json.loads(result.stdout)[0]["id"] == "000-02"
    assert result.stderr.startswith("warning: the BM25 index of collection 'default' was damaged")


def test_another_machines_equal_count_change_to_a_server_collection_is_seen_by_bm25(
    tmp_path, chroma_server_url
):
    import uuid

    from rag.retrieval.retriever import Retriever
    from rag.settings import Settings

    name = f"t{uuid.uuid4().hex[:10]}"
    machine_a = Settings(data_dir=tmp_path / "a", chroma_url=chroma_server_url, collection=name, llm="none")
    machine_b = machine_a.replace(data_dir=tmp_path / "b")
    path = tmp_path / "list.jsonl"
    _write(
        path,
        [
            {"id": "p1", "abstract": "Graph networks for molecules."},
            {"id": "p2", "abstract": "Audio models."},
        ],
    )
    ingest([path], machine_a)
    assert [h.paper.id for h in Retriever(machine_b).search("molecules", mode="bm25")] == ["p1"]
    _write(
        path,
        [{"id": "p1", "abstract": "Graph networks for zeolites."}, {"id": "p2", "abstract": "Audio models."}],
    )
    ingest([path], machine_a)  # same chunk count, other text
    assert [h.paper.id for h in Retriever(machine_b).search("zeolites", mode="bm25")] == ["p1"]


def test_a_second_machine_cannot_ingest_a_server_collection_while_another_holds_its_lease(
    tmp_path, chroma_server_url
):
    import uuid

    import pytest

    from rag.errors import CitelineError
    from rag.settings import Settings

    settings = Settings(
        data_dir=tmp_path / "b", chroma_url=chroma_server_url, collection=f"t{uuid.uuid4().hex[:10]}"
    )
    path = tmp_path / "list.jsonl"
    _write(path, [{"id": "p1", "abstract": "Graph networks for molecules."}])
    ingest([path], settings)
    other = _store(settings)
    other.lease.claim("host-a pid 7#abc", 600)  # machine A, mid-ingest
    with pytest.raises(CitelineError, match="is being ingested by host-a pid 7 \\(lease until"):
        ingest([path], settings)
    other.lease.claim("host-a pid 7#abc", -1)  # A crashed: its lease ran out
    assert ingest([path], settings).unchanged == 1
    import socket
    import subprocess

    finished = subprocess.Popen(["true"])
    finished.wait()
    other.lease.claim(f"{socket.gethostname()} pid {finished.pid}#dead", 600)  # killed on this machine
    assert ingest([path], settings).unchanged == 1  # its lease is taken over at once
    assert "citeline_ingest" not in (_store(settings).collection.metadata or {})


def test_a_malformed_lease_is_treated_as_none_with_a_warning_and_a_far_future_one_names_its_date(
    tmp_path, chroma_server_url
):
    import time
    import uuid

    import pytest

    from rag.errors import CitelineError, CitelineWarning
    from rag.index.lease import LEASE
    from rag.settings import Settings

    settings = Settings(
        data_dir=tmp_path / "b", chroma_url=chroma_server_url, collection=f"t{uuid.uuid4().hex[:10]}"
    )
    path = tmp_path / "list.jsonl"
    _write(path, [{"id": "p1", "abstract": "Graph networks for molecules."}])
    ingest([path], settings)
    other = _store(settings)
    for bad in ("a|b", "host-a pid 7#abc|inf", "host-a pid 7#abc|1e300"):
        other.set_metadata({**other.fresh_metadata(), LEASE: bad})
        with pytest.warns(CitelineWarning, match="malformed ingest lease"):
            assert ingest([path], settings).unchanged == 1
        assert LEASE not in (_store(settings).collection.metadata or {})
    years_ahead = time.time() + 5 * 365 * 86400
    other.set_metadata({**other.fresh_metadata(), LEASE: f"host-a pid 7#abc|{years_ahead:.0f}"})
    date = time.strftime("%Y-%m-%d", time.localtime(years_ahead))
    with pytest.raises(CitelineError, match=f"being ingested by host-a pid 7 \\(lease until {date} "):
        ingest([path], settings)
