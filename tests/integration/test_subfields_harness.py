"""The subfield harness end to end on a small synthetic corpus: real ingest, real asks, real Chroma.

What is checked is the bookkeeping (collections per conference, recall/precision per question and
their means), not how well topic selection does.
"""

from __future__ import annotations

import gzip
import json
import statistics

import pytest

from rag.errors import CitelineError
from rag.eval.subfields import run_subfields, write_subfields
from rag.settings import Settings

from .test_cli import run

SUBJECTS = {
    "gnn": (
        "graph neural networks",
        "We propose a message passing graph neural network that aggregates node features over the edges of "
        "a graph, and study over-smoothing of deep graph convolutional layers on node classification "
        "benchmarks such as citation graphs. Variant {n}.",
    ),
    "fl": (
        "federated learning",
        "We study federated learning where many clients train a shared model without sending their private "
        "data to the server; our aggregation rule handles heterogeneous client data and reduces "
        "communication rounds in federated averaging. Variant {n}.",
    ),
    "diff": (
        "diffusion models",
        "We train a denoising diffusion model that generates images by reversing a noising process; our "
        "sampler cuts the number of score network evaluations of diffusion models at equal sample "
        "quality. Variant {n}.",
    ),
}


def _papers(prefix: str, key: str, year: int, tagged: int) -> list[dict]:
    """Ten papers on one subject; only the first ``tagged`` carry the subject's author keyword."""
    keyword, abstract = SUBJECTS[key]
    return [
        {
            "id": f"{prefix}-{key}-{n}",
            "title": f"{keyword.title()} study {n}",
            "abstract": abstract.format(n=n),
            "authors": ["A. Author"],
            "venue": "ICLR",
            "year": year,
            "keywords": [keyword] if n < tagged else ["deep learning"],
        }
        for n in range(10)
    ]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """Two fake conference files (20 + 10 papers), a three-topic subfields file, and one harness run."""
    root = tmp_path_factory.mktemp("subfields")
    corpora = root / "corpora"
    corpora.mkdir()
    files = {
        "fake2031.jsonl.gz": _papers("a", "gnn", 2031, 8) + _papers("a", "fl", 2031, 10),
        "fake2032.jsonl.gz": _papers("b", "diff", 2032, 6),
    }
    for name, records in files.items():
        with gzip.open(corpora / name, "wt", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in records)
    topics = []
    for n, (file, key, year) in enumerate(
        [
            ("fake2031.jsonl.gz", "gnn", 2031),
            ("fake2031.jsonl.gz", "fl", 2031),
            ("fake2032.jsonl.gz", "diff", 2032),
        ]
    ):
        keyword = SUBJECTS[key][0]
        gold = [r["id"] for r in files[file] if keyword in r["keywords"]]
        questions = [f"Which papers work on {keyword}?", f"{keyword} papers at ICLR {year}"]
        row = {"id": f"sf-d{n + 1:02d}", "file": file, "venue": "ICLR", "year": year, "topic": keyword}
        topics.append({**row, "keywords": [keyword], "questions": questions, "gold": gold})
    topics_file = root / "subfields.jsonl"
    topics_file.write_text("".join(json.dumps(t) + "\n" for t in topics), encoding="utf-8")
    settings = Settings(data_dir=root / "data", llm="none")
    stages = []
    results = run_subfields(settings, corpora, "dev", lambda *a: stages.append(a), topics_file)
    return {"root": root, "corpora": corpora, "files": files, "topics": topics, "topics_file": topics_file,
            "settings": settings, "results": results, "stages": stages}  # fmt: skip


def test_every_question_is_scored_against_its_topics_gold(synthetic):
    results, topics = synthetic["results"], {t["id"]: t for t in synthetic["topics"]}
    rows = results["questions"]
    assert len(rows) == 6 and [r["id"] for r in rows] == ["sf-d01"] * 2 + ["sf-d02"] * 2 + ["sf-d03"] * 2
    assert any(r["listed"] for r in rows)  # otherwise the arithmetic below would check nothing
    for row in rows:
        gold, listed = set(topics[row["id"]]["gold"]), set(row["listed_ids"])
        conference = {r["id"] for r in synthetic["files"][row["file"]]}
        assert listed <= conference  # each conference is asked in its own collection
        assert row["gold"] == len(gold) and row["listed"] == len(listed) and row["hits"] == len(listed & gold)
        assert row["recall"] == pytest.approx(len(listed & gold) / len(gold))
        assert row["precision"] == (pytest.approx(len(listed & gold) / len(listed)) if listed else None)
        assert row["seconds"] > 0 and isinstance(row["mode"], str)


def test_conference_and_overall_means_are_over_questions(synthetic):
    results = synthetic["results"]
    rows = results["questions"]
    by_file = {c["file"]: c for c in results["conferences"]}
    assert [c["collection"] for c in results["conferences"]] == ["sf-fake2031", "sf-fake2032"]
    for part, mine in [
        (results["overall"], rows),
        *((by_file[f], [r for r in rows if r["file"] == f]) for f in by_file),
    ]:
        precisions = [r["precision"] for r in mine if r["precision"] is not None]
        assert part["questions"] == len(mine) and part["topics"] == len({r["id"] for r in mine})
        assert part["recall"] == pytest.approx(statistics.fmean(r["recall"] for r in mine))
        assert part["precision"] == (pytest.approx(statistics.fmean(precisions)) if precisions else None)
        assert part["seconds_median"] == pytest.approx(statistics.median(r["seconds"] for r in mine))
        assert part["not_listing_share"] == pytest.approx(
            statistics.fmean(r["mode"] != "listing" for r in mine)
        )
    assert by_file["fake2031.jsonl.gz"]["topics"] == 2 and results["overall"]["topics"] == 3
    assert {s[0] for s in synthetic["stages"]} >= {"ingest fake2031.jsonl.gz", "ask fake2032.jsonl.gz"}


def test_results_round_trip_through_the_written_json(synthetic, tmp_path):
    [path] = write_subfields(synthetic["results"], tmp_path)
    assert path.name == "subfields-dev.json"
    assert json.loads(path.read_text(encoding="utf-8")) == synthetic["results"]


def test_eval_subfields_command_prints_the_table_and_writes_json(synthetic, tmp_path):
    args = ["eval", "--subfields", str(synthetic["corpora"]), "--set", str(synthetic["topics_file"]),
            "--llm", "none", "--out", str(tmp_path)]  # fmt: skip
    result = run(args, synthetic["settings"])
    assert result.returncode == 0, result.stderr
    assert "fake2031" in result.stdout and "fake2032" in result.stdout and "overall" in result.stdout
    written = json.loads((tmp_path / "subfields-dev.json").read_text(encoding="utf-8"))
    assert written["llm"] == "none" and written["overall"]["questions"] == 6


def test_bad_split_and_missing_corpus_are_one_line_errors(synthetic, tmp_path):
    bad = run(["eval", "--subfields", str(synthetic["corpora"]), "--split", "nope"], synthetic["settings"])
    assert (
        bad.returncode == 1 and bad.stderr.strip() == "error: unknown subfield split 'nope' (use dev, test)"
    )
    missing = run(["eval", "--subfields", str(tmp_path), "--set", str(synthetic["topics_file"])],
                  synthetic["settings"])  # fmt: skip
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith("error: ") and "fake2031.jsonl.gz not found" in missing.stderr
    with pytest.raises(CitelineError, match="not a subfield topic"):
        (tmp_path / "broken.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
        run_subfields(
            synthetic["settings"], synthetic["corpora"], "dev", topics_file=tmp_path / "broken.jsonl"
        )
