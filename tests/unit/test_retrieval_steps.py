"""The steps of Retriever.search on hand-made rows: merging collections, one candidate per paper,
the relevance decision and the fused score (the whole search over a real index is tested in
tests/integration/test_retrieval.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rag.retrieval.relevance import TermWeights
from rag.retrieval.retriever import (
    _Candidate,
    _Collection,
    fused_score,
    is_relevant,
    merge_parts,
    paper_candidates,
    ranked_hits,
)
from rag.settings import RetrievalSettings
from rag.text import lexical_terms

A = _Collection(SimpleNamespace(name="icml2024"), None)  # type: ignore[arg-type]
B = _Collection(SimpleNamespace(name="iclr2024"), None)  # type: ignore[arg-type]


def _meta(pid: str, abstract: str = "", year: int = 2024) -> dict:
    return {
        "paper_id": pid,
        "label": pid,
        "source": "fake.txt",
        "line": 2,
        "abstract": abstract,
        "year": year,
    }


def test_merging_keeps_the_best_rows_of_each_ranking_over_all_collections():
    from_a = ([(0.9, "p1#0", A), (0.5, "p2#0", A)], [(3.0, "p2#0", A)])
    from_b = ([(0.7, "q1#0", B), (0.6, "q2#0", B)], [(9.0, "q1#0", B), (1.0, "q2#0", B)])
    dense, lexical = merge_parts([from_a, from_b], 2)
    assert [row[1] for row in dense] == ["p1#0", "q1#0"]
    assert [row[1] for row in lexical] == ["q1#0", "p2#0"]


def test_a_paper_is_one_candidate_ranked_by_its_first_chunk_in_each_ranking():
    dense = [(0.9, "p1#0", A), (0.8, "p2#0", A), (0.7, "p1#1", A)]
    lexical = [(12.0, "p2#1", A), (10.0, "p3#0", A), (5.0, "p1#0", A)]
    metas = {(A, cid): _meta(cid.split("#")[0]) for cid in ("p1#0", "p2#0", "p1#1", "p2#1", "p3#0")}
    found = paper_candidates(dense, lexical, metas, None)
    assert [(c.meta["paper_id"], c.chunk_id) for c in found] == [
        ("p1", "p1#0"),
        ("p2", "p2#0"),
        ("p3", "p3#0"),
    ]
    assert [(c.dense_rank, c.bm25_rank) for c in found] == [(1, 3), (2, 1), (None, 2)]
    assert (found[0].similarity, found[1].bm25, found[2].similarity) == (0.9, 12.0, None)


def test_bm25_only_papers_outside_the_filter_or_without_metadata_take_no_rank():
    lexical = [(9.0, "old#0", A), (8.0, "gone#0", A), (7.0, "new#0", A)]
    metas = {(A, "old#0"): _meta("old", year=2023), (A, "new#0"): _meta("new", year=2024)}
    found = paper_candidates([], lexical, metas, {"year": 2024})
    assert [(c.meta["paper_id"], c.bm25_rank) for c in found] == [("new", 1)]


def _candidate(pid: str, abstract: str = "", similarity=None, dense_rank=None, bm25=None, bm25_rank=None):
    return _Candidate(f"{pid}#0", _meta(pid, abstract), A, similarity, bm25, dense_rank, bm25_rank)


def test_fusion_adds_one_over_k_plus_rank_per_ranking_and_single_modes_keep_their_own_score():
    both = _candidate("p1", similarity=0.4, dense_rank=2, bm25=7.5, bm25_rank=3)
    assert fused_score(both, "hybrid", 60) == pytest.approx(1 / 62 + 1 / 63)
    assert (fused_score(both, "dense", 60), fused_score(both, "bm25", 60)) == (0.4, 7.5)


def test_a_small_rrf_k_favours_a_top_rank_and_the_default_favours_two_rankings_that_agree():
    top_once = _candidate("top", dense_rank=1, bm25_rank=4)
    agreed = _candidate("agreed", dense_rank=2, bm25_rank=2)
    by_default = ranked_hits([top_once, agreed], "hybrid", RetrievalSettings().rrf_k)
    assert [h.paper.id for h in by_default] == ["agreed", "top"]
    assert [h.paper.id for h in ranked_hits([top_once, agreed], "hybrid", 1)] == ["top", "agreed"]
    assert by_default[0].collection == "icml2024"


def test_a_name_of_the_question_keeps_a_paper_the_margin_below_the_best_match_drops():
    query = "What does Adalina minimize?"
    terms = lexical_terms(query)
    weights = TermWeights({t: 1.0 for t in terms}, rare=frozenset({"adalina"}))
    named = _candidate("named", "We introduce Adalina, which minimizes the error.", similarity=0.1)
    unnamed = _candidate("unnamed", "Our method minimizes the error of what it does.", similarity=0.3)
    tuning = RetrievalSettings()
    assert is_relevant(named, query, terms, weights, 0.9, tuning)
    assert not is_relevant(unnamed, query, terms, weights, 0.9, tuning)  # 0.6 below the best match
    assert is_relevant(unnamed, query, terms, weights, 0.3, tuning)  # the best match itself
