"""Papers asked for by who wrote them ("papers by Yejin Choi"), through the real CLI and index."""

from __future__ import annotations

import json

from rag.settings import Settings

from .test_cli import run, run_each

RECORDS = [
    {"id": "a1", "title": "Sparse attention for long documents", "authors": ["Ada Lovelace", "Alan Turing"],
     "abstract": "We propose a sparse attention pattern that scales transformers to long documents.",
     "venue": "COLM", "year": 2024},
    {"id": "a2", "title": "Watermarks that survive paraphrasing", "authors": ["José Núñez", "Ada Lovelace"],
     "abstract": "A statistical watermark for generated text survives paraphrasing attacks.",
     "venue": "COLM", "year": 2024},
    {"id": "a3", "title": "Graph networks for molecules", "authors": ["Grace Hopper"],
     "abstract": "Message passing networks predict molecular properties from atoms and bonds.",
     "venue": "COLM", "year": 2024},
]  # fmt: skip


def _ask(question):
    return ["ask", question, "-c", "people", "--json", "--no-log"]


def test_papers_asked_for_by_author_are_listed_cited_in_list_order(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", llm="none")
    records = tmp_path / "people.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in RECORDS))
    assert run(["ingest", str(records), "--collection", "people"], settings).returncode == 0
    questions = (
        "Which papers did Ada Lovelace write?",
        "papers by A. Lovelace",
        "What has Lovelace published?",
        "Ada Lovelace's papers at COLM 2024",
        "papers by Jose Nunez",
        "Which papers are by Alan Kay?",
        "papers by Ada Lovelace at ICLR 2024",
        "papers by Alan Kay at COLM 2024",  # a venue the papers are from, none of them his
        "How many papers did Ada Lovelace write?",
    )
    results = run_each([_ask(q) for q in questions], settings)
    answers = [json.loads(r.stdout) for r in results]
    for answer in answers[:4]:
        assert answer["mode"] == "listing" and [c["id"] for c in answer["citations"]] == ["a1", "a2"]
    assert answers[0]["answer"].splitlines() == [
        "2 papers by Ada Lovelace are indexed:",
        "- Sparse attention for long documents [a1]",
        "- Watermarks that survive paraphrasing [a2]",
    ]
    assert answers[3]["answer"].splitlines()[0] == "2 papers by Ada Lovelace are indexed at COLM 2024:"
    assert [c["id"] for c in answers[4]["citations"]] == ["a2"]  # accents as the list writes them
    assert (
        answers[5]["abstained"]
        and answers[5]["answer"] == "No indexed paper lists Alan Kay among its authors."
    )
    assert answers[6]["answer"] == "No indexed paper is from ICLR 2024; the papers here are from COLM (2024)."
    assert answers[7]["answer"] == "No indexed paper at COLM 2024 lists Alan Kay among its authors."
    assert answers[8]["answer"].splitlines()[0] == "2 papers by Ada Lovelace are indexed:"


def test_a_list_without_authors_says_so_rather_than_listing_nothing(seed_settings):
    answer = json.loads(
        run(["ask", "Which papers did Ada Lovelace write?", "--json", "--no-log"], seed_settings).stdout
    )
    assert answer["abstained"] and not answer["citations"]
    assert answer["answer"] == "The papers here record no authors, so none can be found by Ada Lovelace."
