"""Integrity of the bundled eval splits, read from the files themselves (no question text here).

The test split is frozen and report-only, so what can go wrong is in the data: a gold paper that
moved (its line no longer matches the seed file), a fact the abstract does not state, a question
present in both splits or a test topic the dev split already tunes (same gold set), and a test
question copied into code, tests or prompts, which is how the split leaked before (issue #19).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rag.eval.harness import KINDS, LISTING_KINDS, eval_set, load_eval_set
from rag.index.corpus import parse_source
from rag.resources import bundled_corpus
from rag.text import plain_text

SPLITS = ("dev", "test")
TAGS = {"near-miss": "unanswerable", "entity": "answerable", "acronym": "answerable"}
ROOT = Path(__file__).resolve().parents[2]
CODE = ("tests", "rag", "cli.py", "bench", "prompts")


def _records(split: str) -> list[dict]:
    return _rows(eval_set(split))


def _rows(path: Path) -> list[dict]:
    """The records of a JSONL eval file, blank lines skipped."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def corpus() -> dict:
    papers = {}
    for path in bundled_corpus():
        for paper in parse_source(path, path.name).papers:
            papers[paper.id] = paper
    return papers


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


@pytest.mark.parametrize("split", SPLITS)
def test_every_line_is_a_well_formed_item_the_loader_accepts(split):
    records = _records(split)
    assert len(load_eval_set(eval_set(split))) == len(records)
    for r in records:
        assert {"id", "question", "kind", "gold", "facts"} <= set(r), r.get("id")
        assert r["kind"] in KINDS and isinstance(r["facts"], list), r["id"]
        assert set(r.get("tags", [])) <= set(TAGS), r["id"]
        if r["kind"] == "unanswerable":
            assert r["gold"] == [] and r["facts"] == [], r["id"]
        for tag in r.get("tags", []):
            assert (r["kind"] == "unanswerable") == (TAGS[tag] == "unanswerable"), r["id"]
            if TAGS[tag] == "answerable":
                assert r["facts"], f"{r['id']}: an {tag} question needs the facts that answer it"


def test_ids_are_unique_across_both_splits():
    ids = [r["id"] for split in SPLITS for r in _records(split)]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("split", SPLITS)
def test_gold_papers_exist_at_their_source_line(split, corpus):
    for r in _records(split):
        for gold in r["gold"]:
            paper = corpus.get(gold["id"])
            assert paper is not None, f"{r['id']}: no paper {gold['id']}"
            assert (gold["source"], gold["line"]) == (paper.source, paper.line), r["id"]


def _unmarked(text: str) -> str:
    """Lower case without LaTeX markup, as fact coverage reads answers (``70\\%`` is ``70%``)."""
    return " ".join(plain_text(text).replace("\\%", "%").lower().split())


@pytest.mark.parametrize("split", SPLITS)
def test_facts_occur_verbatim_in_a_gold_abstract(split, corpus):
    for r in _records(split):
        abstracts = [corpus[g["id"]].abstract for g in r["gold"]]
        for fact in r["facts"]:
            found = any(fact.lower() in a.lower() or _unmarked(fact) in _unmarked(a) for a in abstracts)
            assert found, f"{r['id']}: {fact!r} not in a gold abstract"


def test_no_question_appears_twice_in_or_across_the_splits():
    questions = [_norm(r["question"]) for split in SPLITS for r in _records(split)]
    assert len(questions) == len(set(questions))


def test_test_split_repeats_no_dev_topic_or_fact():
    """A listing topic with the same gold set, or the same paper asked for the same fact, is
    the dev question again (in other words or another language), so tuning on dev tunes it."""
    dev = _records("dev")
    listings = {frozenset(g["id"] for g in r["gold"]) for r in dev if r["kind"] in LISTING_KINDS}
    facts: dict[tuple[str, str], list[str]] = {}
    for r in dev:
        for g in r["gold"]:
            for f in r["facts"]:
                facts.setdefault((g["id"], f.lower()), []).append(r["id"])
    repeated = []  # the dev questions to drop, named by id: the failure must not show a test fact
    for r in _records("test"):
        gold = frozenset(g["id"] for g in r["gold"])
        if r["kind"] in LISTING_KINDS and gold in listings:
            repeated += [d["id"] for d in dev if frozenset(g["id"] for g in d["gold"]) == gold]
        repeated += [i for p in gold for fact in r["facts"] for i in facts.get((p, fact.lower()), [])]
    if repeated:
        pytest.fail(f"dev questions repeating a test question's fact or gold set: {sorted(set(repeated))}")


@pytest.mark.parametrize("frozen", ["icml2026-test", "colm2024-test"])
def test_no_test_question_is_quoted_in_code_tests_or_prompts(frozen):
    files = subprocess.run(
        ["git", "ls-files", *CODE], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    if not files:
        pytest.skip("not a git checkout")
    text = " ".join(_norm((ROOT / f).read_text(encoding="utf-8", errors="replace")) for f in files)
    records = _records("test") if frozen.startswith("icml") else _colm("test")
    quoted = [r["id"] for r in records if f" {_norm(r['question'])} " in f" {text} "]
    assert not quoted, f"{frozen} questions quoted in code or tests: {quoted}"


# The external QA set over COLM 2024 (eval/colm2024-{dev,test}.jsonl): gold is plain paper ids of
# ../shared/corpora/colm2024.jsonl.gz, which the checks read when it is there.
COLM_PARTS = ("dev", "test")
COLM_TAGS = {**TAGS, "synonym": "answerable"}


def _colm(part: str) -> list[dict]:
    return _rows(ROOT / "eval" / f"colm2024-{part}.jsonl")


@pytest.fixture(scope="module")
def colm_abstracts() -> dict[str, str]:
    import gzip

    from ..conftest import SHARED

    path = SHARED / "corpora" / "colm2024.jsonl.gz"
    if not path.exists():
        pytest.skip("../shared/corpora is not beside this checkout")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return {r["id"]: r["abstract"] for r in map(json.loads, lines)}


@pytest.mark.parametrize("part", COLM_PARTS)
def test_the_colm_set_is_well_formed_and_its_facts_are_in_their_gold_abstracts(part, colm_abstracts):
    records = _colm(part)
    assert len(load_eval_set(ROOT / "eval" / f"colm2024-{part}.jsonl")) == len(records)
    for r in records:
        assert r["kind"] in KINDS and set(r.get("tags", [])) <= set(COLM_TAGS), r["id"]
        assert (r["kind"] == "unanswerable") == (r["gold"] == []), r["id"]
        assert all(g in colm_abstracts for g in r["gold"]), r["id"]
        for fact in r["facts"]:
            assert any(fact in colm_abstracts[g] for g in r["gold"]), f"{r['id']}: {fact!r}"


def test_the_colm_parts_share_no_id_question_or_fact():
    dev, test = _colm("dev"), _colm("test")
    assert not {r["id"] for r in dev} & {r["id"] for r in test}
    assert not {_norm(r["question"]) for r in dev} & {_norm(r["question"]) for r in test}
    assert not _facts(dev) & _facts(test)


def _facts(records: list[dict]) -> set[tuple[str, str]]:
    """(gold paper, fact) pairs: the same fact of the same paper is the same question."""
    return {(g, f.lower()) for r in records for g in r["gold"] for f in r["facts"]}
