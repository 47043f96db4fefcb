"""Metric functions on hand-made cases with known values, and the harness end to end."""

from __future__ import annotations

import json

import pytest

from rag import eval_metrics as m
from rag.chain import AnswerChain
from rag.errors import CitelineError
from rag.eval_harness import load_eval_set, run_eval
from rag.eval_report import compare, write
from rag.judges import LexicalJudge
from rag.llm import LLMHandle
from rag.resources import resource_dir

from .fakes import ScriptedChatModel
from .test_cli import run

EVAL_SET = resource_dir("eval") / "icml2026-dev.jsonl"
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


def test_bundled_eval_set_has_the_required_shape():
    items = load_eval_set(EVAL_SET)
    kinds = [i.kind for i in items]
    assert len(items) >= 60 and kinds.count("unanswerable") >= 10 and kinds.count("cross-lingual") >= 5
    assert len({i.id for i in items}) == len(items)
    for line in EVAL_SET.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        assert all({"id", "source", "line"} <= set(g) for g in record["gold"])


def test_bad_eval_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "question": "q", "kind": "factoid", "gold": []}\n')
    with pytest.raises(CitelineError, match=r"bad\.jsonl:1: an answerable question needs gold papers"):
        load_eval_set(bad)


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    lines = EVAL_SET.read_text(encoding="utf-8").splitlines()
    chosen = [lines[0], lines[5], *[ln for ln in lines if '"unanswerable"' in ln][:2]]
    path = tmp_path_factory.mktemp("eval") / "small.jsonl"
    path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    return path


def test_harness_with_the_fake_model_scores_a_known_good_run(seed_settings, small_set):
    replies = [
        "AdaSCALE beats OptFS by 14.94% in near-OOD FPR@95 [000-02].",
        "ActHook achieves an average detection AUC of 94.3 on Qwen-2.5-Coder-7B [000-14].",
        "AdaSCALE's learning rate is not mentioned in the abstracts.",
    ]
    model = ScriptedChatModel(replies=replies * 2, prompts=[])

    def factory(settings, retriever):
        return AnswerChain(settings, retriever, LLMHandle("openai", model, "scripted"))

    results = run_eval(seed_settings, small_set, ["hybrid", "bm25"], ["openai"], chain_factory=factory)
    answers = results["answers"][0]
    assert results["retrieval"][0]["recall@4"] == 1.0 and results["retrieval"][1]["mode"] == "bm25"
    assert answers["fact_coverage"] == 1.0
    assert answers["citation_precision"] == 1.0 and answers["citation_recall"] == 1.0
    assert answers["abstention_recall"] == 1.0 and answers["abstention_precision"] == 1.0
    assert answers["judge"] == results["judge"] == "lexical"


def test_eval_command_without_llm_writes_report_chart_and_compares(seed_settings, small_set, tmp_path):
    result = run(
        ["eval", "--set", str(small_set), "--llm", "none", "--out", str(tmp_path / "a")], seed_settings
    )
    assert result.returncode == 0, result.stderr
    assert "recall@4" in result.stdout and "citation_precision" in result.stdout
    for name in ("results.json", "report.md", "chart.png"):
        assert (tmp_path / "a" / name).stat().st_size > 100
    data = json.loads((tmp_path / "a" / "results.json").read_text())
    assert data["answers"][0]["llm"] == "none (extractive)" and data["judge"] == "lexical"
    other = dict(data, retrieval=[dict(r, mrr=0.0) for r in data["retrieval"]])
    write(other, tmp_path / "b")
    rows = compare(data, other)
    assert ["retrieval", "hybrid", "mrr", f"{data['retrieval'][0]['mrr']:.3f}", "0.000"] == rows[2][:5]
    shown = run(
        ["eval", "--compare", str(tmp_path / "a/results.json"), str(tmp_path / "b/results.json")],
        seed_settings,
    )
    assert shown.returncode == 0 and "mrr" in shown.stdout
