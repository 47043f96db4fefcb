"""Metric functions on hand-made cases with known values."""

import pytest

from rag.eval import metrics as m
from rag.eval.judges import LexicalJudge

ADA = "AdaSCALE outperforms the latest rival OptFS by 14.94% in near-OOD datasets in average FPR@95."


def test_recall_and_reciprocal_rank_known_values():
    assert m.recall_at_k(["a", "b", "c"], ["a", "c"], 2) == 0.5
    assert m.recall_at_k(["a", "c"], ["a", "c"], 2) == 1.0
    assert m.recall_at_k(["x"], ["a"], 1) == 0.0
    assert m.reciprocal_rank(["x", "y", "a"], ["a"]) == pytest.approx(1 / 3)
    assert m.reciprocal_rank(["x"], ["a"]) == 0.0


def test_fact_coverage_ignores_case_and_markup():
    assert m.fact_coverage("It wins by $\\textbf{14.94}$% [1].", ["14.94%"]) == 1.0
    assert m.fact_coverage("Countdown only", ["countdown", "Sudoku"]) == 0.5
    assert m.fact_coverage("nothing", ["x"]) == 0.0


def test_abstention_precision_and_recall():
    assert m.abstention_scores([True, True, False, False], [True, False, True, False]) == (0.5, 0.5)
    assert m.abstention_scores([True, False], [True, False]) == (1.0, 1.0)
    assert m.abstention_scores([False, False], [True, False]) == (None, 0.0)


def test_lexical_judge_is_strict_about_numbers():
    judge = LexicalJudge()
    evidence = "Our approach outperforms the latest rival OptFS by 14.94% in near-OOD datasets."
    assert judge.supports("AdaSCALE outperforms OptFS by 14.94% on near-OOD datasets.", evidence)
    assert not judge.supports("AdaSCALE outperforms OptFS by 19.94% on near-OOD datasets.", evidence)
    assert not judge.supports("Diffusion models learn to sample molecules.", evidence)


def test_citation_precision_and_recall_perfect_and_zero():
    texts = {"K1": ADA, "K2": "We study linear dueling bandits with delayed feedback."}
    ids = {"K1": "000-02", "K2": "004-05"}
    perfect = m.citation_scores(f"{ADA[:-1]} [K1].", texts, ids, ["000-02"], LexicalJudge())
    assert perfect == (1.0, 1.0)
    wrong = m.citation_scores(f"{ADA[:-1]} [K2].", texts, ids, ["000-02"], LexicalJudge())
    assert wrong == (0.0, 0.0)
    half = m.citation_scores(f"{ADA[:-1]} [K1][K2].", texts, ids, ["000-02"], LexicalJudge())
    assert half == (0.5, 1.0)


def test_keys_after_the_full_stop_belong_to_the_sentence_before():
    assert m.cited_sentences("One fact. [A] Two facts [B].") == [("One fact.", ["A"]), ("Two facts .", ["B"])]


def test_faithfulness_counts_supported_sentences():
    context = ADA + " We study linear dueling bandits."
    assert m.faithfulness(f"{ADA} [K1] Mars is red [K1].", context, LexicalJudge()) == 0.5
    assert m.faithfulness("", context, LexicalJudge()) is None


def test_figures_per_tag_show_what_an_overall_mean_hides():
    from rag.eval.report import by_tag, markdown

    def row(kind, abstained, tags=(), facts=None, gold=(None, None), mode="extractive"):
        return {"kind": kind, "abstained": abstained, "tags": list(tags), "fact_coverage": facts,
                "gold_citation_precision": gold[0], "gold_citation_recall": gold[1],
                "answer_mode": mode}  # fmt: skip

    rows = [
        row("unanswerable", True, ["near-miss"]),
        row("unanswerable", False, ["near-miss"], mode="quoted"),
        row("unanswerable", True),
        row("factoid", False, ["acronym"], facts=1.0, gold=(1.0, 1.0)),
        row("factoid", True, ["acronym"], facts=0.0),
    ]
    figures = by_tag(rows)
    assert figures["near-miss"]["abstention_on_unanswerable"] == 0.5
    assert figures["near-miss"]["quoted_fallbacks"] == 1 and figures["kind: unanswerable"]["questions"] == 3
    assert figures["acronym"]["refusal_on_answerable"] == 0.5 and figures["acronym"]["fact_coverage"] == 0.5
    assert figures["acronym"]["gold_citation_recall"] == 1.0
    results = {"eval_set": "e", "questions": 5, "kinds": {"factoid": 2}, "collection": "c", "top_k": 4,
               "judge": "lexical", "retrieval": [{"mode": "hybrid", "recall@4": 1.0}],
               "answers": [{"llm": "none", "questions": rows}]}  # fmt: skip
    assert "| near-miss | 2 | 0.500 |" in markdown(results)
