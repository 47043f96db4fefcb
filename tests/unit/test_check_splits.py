"""Integrity of the claim-checking benchmark (eval/check-{dev,test}.jsonl), read from the files.

What can go wrong is in the data: a row whose gold verdict does not follow from its kind, a
wrong-paper row cited to its own paper, a paper that moved or left its file, a claim copied from
the abstract (a copied sentence is trivially supported, so it measures nothing), a paper checked
in both splits (tuning on dev would tune test), a draft longer than the 30 claims the timing
target speaks of, and a test claim copied into code, tests or prompts. No claim text here.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest

from rag.index.corpus import parse_source
from rag.resources import bundled_corpus
from rag.text import numbers_in, plain_text

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ("dev", "test")
KINDS = {"correct": "supported", "wrong": "not supported", "altered": "not supported", "uncited": "uncited"}
ALTERATIONS = {"number", "method", "direction"}
STYLES = {"default": {"key", "none"}, "check-colm": {"cite", "author-year", "numbered", "none"}}
CODE = ("tests", "rag", "cli.py", "bench", "prompts")
LONGEST_COPY = 8  # words a claim may share in a row with its paper's abstract


def _rows(split: str) -> list[dict]:
    path = ROOT / "eval" / f"check-{split}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _corpora() -> Path | None:
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "corpora").is_dir():
            return base / "shared" / "corpora"
    return None


@pytest.fixture(scope="module")
def abstracts() -> dict[tuple[str, str], str]:
    """(source, id) → abstract, for the bundled papers and the corpus files the rows name."""
    found = {}
    for path in bundled_corpus():
        for paper in parse_source(path, path.name).papers:
            found[(paper.source, paper.id)] = paper.abstract
    named = [ref for split in SPLITS for r in _rows(split) for ref in (r["gold"], r["cited"]) if ref]
    files = {ref["source"] for ref in named} - {source for source, _ in found}
    corpora = _corpora()
    if files and corpora is None:
        pytest.skip("the shared corpora are not beside this checkout")
    for name in sorted(files):
        with gzip.open(corpora / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                found[(name, record["id"])] = record["abstract"]
    return found


@pytest.mark.parametrize("split", SPLITS)
def test_every_row_is_well_formed_and_its_gold_follows_from_its_kind(split):
    for r in _rows(split):
        assert {"id", "draft", "collection", "kind", "claim", "citation", "cited", "gold", "verdict",
                "suggestion"} <= set(r), r.get("id")  # fmt: skip
        assert r["draft"].startswith(f"{split}-"), r["id"]
        assert r["kind"] in KINDS and r["verdict"] == KINDS[r["kind"]], r["id"]
        assert r["citation"] in STYLES[r["collection"]], r["id"]
        assert (r["citation"] == "none") == (r["kind"] == "uncited") == (r["cited"] is None), r["id"]
        assert ("alteration" in r) == (r["kind"] == "altered"), r["id"]
        if r["kind"] == "altered":
            assert r["alteration"] in ALTERATIONS, r["id"]
        if r["kind"] == "wrong":
            assert r["cited"] != r["gold"], f"{r['id']}: a wrong citation names another paper"
        elif r["kind"] in ("correct", "altered"):
            assert r["cited"] == r["gold"], r["id"]
        expected = [r["gold"]] if r["kind"] in ("wrong", "uncited") else []
        assert r["suggestion"] == expected, r["id"]
        assert r["claim"] == r["claim"].strip() and not r["claim"].endswith("."), r["id"]


def test_ids_are_unique_and_no_paper_is_checked_in_both_splits():
    rows = {split: _rows(split) for split in SPLITS}
    ids = [r["id"] for split in SPLITS for r in rows[split]]
    assert len(ids) == len(set(ids))
    papers = {split: {(r["gold"]["source"], r["gold"]["id"]) for r in rows[split]} for split in SPLITS}
    assert not papers["dev"] & papers["test"]


@pytest.mark.parametrize("split", SPLITS)
def test_drafts_hold_at_most_30_claims_of_one_collection(split):
    drafts: dict[str, list[dict]] = {}
    for r in _rows(split):
        drafts.setdefault(r["draft"], []).append(r)
    for name, rows in drafts.items():
        assert len(rows) <= 30, name
        assert len({r["collection"] for r in rows}) == 1, name


@pytest.mark.parametrize("split", SPLITS)
def test_cited_and_gold_papers_exist_in_their_files(split, abstracts):
    for r in _rows(split):
        for ref in filter(None, [r["gold"], r["cited"], *r["suggestion"]]):
            assert (ref["source"], ref["id"]) in abstracts, f"{r['id']}: no {ref}"


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", plain_text(text).lower())


def _copies(claim: list[str], abstract: list[str], n: int) -> bool:
    """True when ``n`` words of the claim occur in a row in the abstract."""
    runs = {tuple(abstract[i : i + n]) for i in range(len(abstract) - n + 1)}
    return any(tuple(claim[i : i + n]) in runs for i in range(len(claim) - n + 1))


@pytest.mark.parametrize("split", SPLITS)
def test_claims_paraphrase_rather_than_copy_their_abstract(split, abstracts):
    for r in _rows(split):
        abstract = _words(abstracts[(r["gold"]["source"], r["gold"]["id"])])
        copied = _copies(_words(r["claim"]), abstract, LONGEST_COPY + 1)
        assert not copied, f"{r['id']}: more than {LONGEST_COPY} words in a row from the abstract"


@pytest.mark.parametrize("split", SPLITS)
def test_an_altered_number_is_not_in_the_paper_and_a_correct_claims_numbers_are(split, abstracts):
    for r in _rows(split):
        abstract = plain_text(abstracts[(r["gold"]["source"], r["gold"]["id"])])
        claimed = numbers_in(plain_text(r["claim"]))
        if r.get("alteration") == "number":
            assert claimed - numbers_in(abstract), f"{r['id']}: every number of the claim is in the paper"
        elif r["kind"] == "correct":
            assert claimed <= numbers_in(abstract), f"{r['id']}: {claimed - numbers_in(abstract)}"


def test_no_test_claim_is_quoted_in_code_tests_or_prompts():
    files = subprocess.run(
        ["git", "ls-files", *CODE], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    if not files:
        pytest.skip("not a git checkout")
    text = " " + " ".join(" ".join(_words((ROOT / f).read_text(encoding="utf-8", errors="replace")))
                          for f in files) + " "  # fmt: skip
    quoted = []
    for r in _rows("test"):
        words = _words(r["claim"])
        # any 8-word stretch of the claim counts: a test that reworded the rest still leaks it
        if any(f" {' '.join(words[i : i + 8])} " in text for i in range(max(1, len(words) - 7))):
            quoted.append(r["id"])
    assert not quoted, f"test claims quoted in code or tests: {quoted}"
