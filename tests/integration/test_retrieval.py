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
