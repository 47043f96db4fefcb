"""Metric functions on hand-made cases with known values, and the harness end to end."""

from __future__ import annotations

import json

import pytest

from rag.answer.pipeline import AnswerChain
from rag.errors import CitelineError
from rag.eval.harness import load_eval_set, run_eval
from rag.eval.report import compare_results as compare
from rag.eval.report import write_results as write
from rag.llm.client import LLMHandle
from rag.resources import resource_dir

from ..fakes import ScriptedChatModel
from .test_cli import run

EVAL_SET = resource_dir("eval") / "icml2026-dev.jsonl"
ADA = "AdaSCALE outperforms the latest rival OptFS by 14.94% in near-OOD datasets in average FPR@95."


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
