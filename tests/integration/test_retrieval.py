"""Retrieval of the right seed paper, for questions written from the abstracts."""

import pytest

QUESTIONS = [
    ("adaptive percentile threshold for OOD activation scaling", "000-02"),
    ("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?", "000-02"),
    ("detecting sandbagging when models deliberately underperform on capability evaluations", "003-01"),
    ("rotation-invariant watermarking of spherical panoramas", "004-01"),
    ("verifying differential privacy guarantees cheaper than training", "000-05"),
    ("dead features in sparse autoencoders", "000-07"),
    ("detecting AI-generated videos with fine-grained perception", "003-07"),
    ("privacy exfiltration through Model Context Protocol tools", "004-06"),
]


@pytest.mark.parametrize(("query", "expected"), QUESTIONS)
def test_hybrid_search_ranks_the_paper_the_question_was_written_from_first(seed_retriever, query, expected):
    hits = seed_retriever.search(query, k=5)
    assert hits and hits[0].paper.id == expected


@pytest.mark.parametrize("mode", ["dense", "bm25"])
def test_each_single_mode_finds_the_factoid_paper_in_its_top_three(seed_retriever, mode):
    hits = seed_retriever.search("adaptive percentile threshold for OOD activation scaling", k=3, mode=mode)
    assert "000-02" in [h.paper.id for h in hits]


@pytest.mark.parametrize("name", ["C3", "C³", "C^3"])
def test_a_name_written_with_a_raised_digit_is_found_by_bm25_however_it_is_typed(seed_retriever, name):
    # The sandbagging paper writes its name "$C^3$": split at the caret, BM25 had no token for it.
    hits = seed_retriever.search(name, k=1, mode="bm25", floor=False)
    assert [h.paper.id for h in hits] == ["003-01"]


def test_off_topic_question_retrieves_nothing_above_the_floor(seed_retriever):
    assert seed_retriever.search("What accuracy does GPT-5 reach on MMLU?") == []
    assert seed_retriever.search("What accuracy does GPT-5 reach on MMLU?", floor=False)  # the floor did it


def test_coined_name_matches_even_in_a_question_in_another_language(seed_retriever):
    hits = seed_retriever.search("AdaSCALE 在近OOD上比OptFS好多少？")
    assert hits and hits[0].paper.id == "000-02"


def test_results_are_one_per_paper_with_provenance(seed_retriever):
    hits = seed_retriever.search("watermarking", k=10, floor=False)
    ids = [h.paper.id for h in hits]
    assert len(ids) == len(set(ids)) == 10
    assert all(h.paper.source.endswith(".txt") and h.paper.line > 1 for h in hits)


def test_watermarking_query_finds_the_watermarking_papers(seed_retriever):
    ids = {h.paper.id for h in seed_retriever.search("watermarking", k=6)}
    assert {"003-09", "000-15", "004-01"} <= ids


def test_repeated_queries_on_a_chroma_server_keep_a_fixed_number_of_open_sockets(
    chroma_server_url, tmp_path, bundled_vectors
):
    # A warm process or MCP server opens a Retriever per command; each used to leave a chromadb
    # client (its System and two keep-alive sockets) behind, so open files grew with every query.
    import contextlib
    import os
    import uuid

    from rag.index.ingest import ingest
    from rag.resources import bundled_corpus
    from rag.retrieval.retriever import Retriever
    from rag.settings import Settings

    from ..conftest import with_bundled_vectors

    settings = Settings(data_dir=tmp_path / "data", collection=f"t{uuid.uuid4().hex[:10]}",
                        chroma_url=chroma_server_url)  # fmt: skip
    ingest(bundled_corpus()[:1], with_bundled_vectors(settings, bundled_vectors))

    def sockets() -> int:
        count = 0
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(FileNotFoundError):  # the listing's own descriptor, closed by now
                count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        return count

    Retriever(settings).search("adaptive percentile threshold for OOD activation scaling", k=2)
    before = sockets()
    for _ in range(10):
        hits = Retriever(settings).search("adaptive percentile threshold for OOD activation scaling", k=2)
        assert hits and hits[0].paper.id == "000-02"
    assert sockets() <= before
