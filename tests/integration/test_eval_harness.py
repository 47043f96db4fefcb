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
from rag.records import Answer, AnswerMode, Citation
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


class _CannedChain:
    """Stands in for the answer pipeline: replays a fixed answer per question, so the harness's
    scoring is checked against values worked out by hand from the metric definitions."""

    def __init__(self, answers: dict[str, Answer]) -> None:
        self.answers = answers
        self.llm = LLMHandle("openai", None, "canned")

    def ask(self, question: str, mode: str = "hybrid") -> Answer:
        return self.answers[question]


def _abstained(question: str) -> Answer:
    return Answer(question, "The papers here do not answer this question.", True, [], [], "canned",
                  mode=AnswerMode.ABSTAINED)  # fmt: skip


def test_the_harness_scores_each_flaw_of_a_run_where_it_belongs(seed_settings, seed_retriever, small_set):
    first, second, unanswerable, other_unanswerable = load_eval_set(small_set)
    gold, wrong = seed_retriever.paper(first.gold[0]), seed_retriever.paper(second.gold[0])
    # 1st: states its fact, cites its gold paper and a wrong one; 2nd: refuses an answerable
    # question; 3rd: answers an unanswerable one; 4th: abstains rightly.
    answers = {
        first.question: Answer(
            first.question, f"{' '.join(first.facts)} [000-01]. Also [000-02].", False,
            [Citation("000-01", gold), Citation("000-02", wrong)], [], "canned",
            context={"000-01": gold, "000-02": wrong},
        ),
        second.question: _abstained(second.question),
        unanswerable.question: Answer(
            unanswerable.question, f"{wrong.abstract.split('.')[0]} [000-01].", False,
            [Citation("000-01", wrong)], [], "canned", context={"000-01": wrong},
        ),
        other_unanswerable.question: _abstained(other_unanswerable.question),
    }  # fmt: skip
    results = run_eval(seed_settings, small_set, ["hybrid"], ["openai"],
                       chain_factory=lambda settings, retriever: _CannedChain(answers))  # fmt: skip
    scored = results["answers"][0]
    assert scored["fact_coverage"] == 0.5  # the 1st states its fact, the refusal does not
    assert scored["refusal_on_answerable"] == 0.5
    assert scored["abstention_precision"] == 0.5  # of two abstentions, one was on an unanswerable
    assert scored["abstention_recall"] == 0.5  # of two unanswerables, one was abstained on
    assert scored["gold_citation_precision"] == 0.5  # one of the 1st's two papers is gold
    assert scored["gold_citation_recall"] == 0.5  # the 2nd cited nothing
    assert [r["cited"] for r in scored["questions"]] == [[gold.id, wrong.id], [], [wrong.id], []]
    assert scored["llm"] == "canned" and scored["quoted_fallbacks"] == 0


def test_an_answer_that_leaves_out_its_fact_lowers_fact_coverage_end_to_end(seed_settings, small_set):
    replies = [
        "AdaSCALE beats OptFS by 21.28% [000-02].",  # the paper's far-OOD figure, not the 14.94% asked
        "ActHook achieves an average detection AUC of 94.3 on Qwen-2.5-Coder-7B [000-14].",
        "AdaSCALE's learning rate is not mentioned in the abstracts.",
    ]
    model = ScriptedChatModel(replies=replies * 2, prompts=[])

    def factory(settings, retriever):
        return AnswerChain(settings, retriever, LLMHandle("openai", model, "scripted"))

    results = run_eval(seed_settings, small_set, ["hybrid", "bm25"], ["openai"], chain_factory=factory)
    answers = results["answers"][0]
    assert results["retrieval"][0]["recall@4"] == 1.0 and results["retrieval"][1]["mode"] == "bm25"
    assert [r["fact_coverage"] for r in answers["questions"]] == [0.0, 1.0, None, None]
    assert answers["fact_coverage"] == 0.5
    assert answers["abstention_recall"] == 1.0 and answers["judge"] == results["judge"] == "lexical"


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
