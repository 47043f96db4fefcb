"""Listings over the real bundled index: how many papers a topic holds, a display cap that says so,
venue/year phrases as filters, and the paper table kept with the BM25 index."""

from __future__ import annotations

import json

from rag.index.lexical import LAYOUT, lexical_index

from ..conftest import copy_index
from .test_cli import run, run_each


def test_a_capped_listing_says_how_many_it_found_and_how_to_see_all(seed_settings):
    capped = json.loads(
        run(["ask", "Which papers study watermarking?", "-n", "2", "--json"], seed_settings).stdout
    )
    assert capped["mode"] == "listing" and capped["found"] == 4 and len(capped["citations"]) == 2
    assert capped["answer"].splitlines()[0] == (
        "4 papers on watermarking (showing the 2 closest; --all or -n N shows more):"
    )
    everything = json.loads(
        run(["ask", "Which papers study watermarking?", "--all", "--json"], seed_settings).stdout
    )
    assert len(everything["citations"]) == 4 and "showing" not in everything["answer"]
    both = run(["ask", "Which papers study watermarking?", "--all", "-n", "2"], seed_settings)
    assert both.returncode == 2 and both.stderr.strip() == (
        "error: --all lists every paper and -n N at most N: give one of them (see `citeline ask --help`)"
    )  # a usage error, not -n quietly ignored


def test_terminal_escapes_in_a_question_are_spaces_so_what_is_searched_is_what_is_shown(seed_settings):
    plain, escaped = (
        json.loads(run(["ask", q, "--json", "--no-log"], seed_settings).stdout)
        for q in ("Which papers study watermarking?", "Which papers study \x1b[31mwatermarking\x1b[0m?")
    )
    assert escaped["answer"] == plain["answer"] and escaped["found"] == plain["found"] == 4


def test_a_question_for_the_papers_themselves_names_them_in_indexed_order_and_counts_them(seed_settings):
    listed = json.loads(run(["papers", "list", "--json"], seed_settings).stdout)
    asked, elsewhere = run_each(
        [["ask", "Which papers are from ICML 2026?", "-n", "5", "--json", "--no-log"],
         ["ask", "list all papers", "--all", "--json", "--no-log"]],
        seed_settings,
    )  # fmt: skip
    answer = json.loads(asked.stdout)
    assert answer["mode"] == "listing" and not answer["abstained"] and answer["found"] == len(listed)
    assert [c["id"] for c in answer["citations"]] == [p["id"] for p in listed[:5]]
    assert answer["answer"].splitlines()[0] == (
        f"{len(listed)} papers are indexed at ICML 2026 (the first 5 shown; --all or -n N for more, "
        "`citeline papers list` for all):"
    )
    everything = json.loads(elsewhere.stdout)
    assert len(everything["citations"]) == len(listed)
    assert everything["answer"].splitlines()[0] == f"{len(listed)} papers are indexed:"


def test_a_venue_and_year_no_indexed_paper_is_from_are_answered_with_what_they_are_from(seed_settings):
    listing, catalogue = run_each(
        [["ask", "the NeurIPS 2019 work on watermarking", "--json", "--no-log"],
         ["ask", "Which papers are from ICML 2025?", "--json", "--no-log"]],
        seed_settings,
    )  # fmt: skip
    for result, place in ((listing, "NeurIPS 2019"), (catalogue, "ICML 2025")):
        answer = json.loads(result.stdout)
        assert answer["abstained"] and not answer["citations"]  # not every paper of another venue
        assert answer["answer"] == f"No indexed paper is from {place}; the papers here are from ICML (2026)."


def test_filler_words_leave_the_topic_of_a_summary_and_a_listing(seed_settings):
    listing = run(["ask", "Give me an overview of the recent watermarking papers."], seed_settings).stdout
    assert listing.startswith("4 papers on watermarking:")
    summary = json.loads(
        run(["summarize", "the recent watermarking papers", "--format", "json"], seed_settings).stdout
    )
    assert summary["topic"] == "watermarking" and summary["found"] == 4


def test_the_paper_table_is_saved_with_the_bm25_index_and_an_older_layout_is_rebuilt(seed_settings, tmp_path):
    settings = copy_index(seed_settings, tmp_path / "data", log=True)
    index = lexical_index(settings)
    manifest = json.loads((index.directory / "citeline.json").read_text())
    assert manifest["layout"] == LAYOUT and {"papers.npy", "papers.json"} <= set(manifest["files"])
    del manifest["layout"]  # as an index written before the paper table existed
    (index.directory / "citeline.json").write_text(json.dumps(manifest))
    result = run(["ask", "Which papers study watermarking?", "--json"], settings)
    listing = json.loads(result.stdout)
    assert listing["found"] == 4 and listing["likely"] == 4  # a short list is never split into likely and not
    assert json.loads((index.directory / "citeline.json").read_text())["layout"] == LAYOUT


def test_a_summary_topic_of_filler_or_a_venue_alone_is_one_clear_error(seed_settings):
    topics = ("the recent papers", "ICLR 2024")
    results = run_each([["summarize", topic, "--llm", "none", "--no-log"] for topic in topics], seed_settings)
    for topic, result in zip(topics, results, strict=True):
        assert result.returncode == 1 and result.stderr.strip().splitlines() == [
            f"error: the topic {topic!r} names no subject; name one, e.g. 'graph neural networks'"
        ]


def test_an_unknown_id_is_echoed_cut_not_whole(seed_settings):
    result = run(["papers", "show", "x" * 5000], seed_settings)
    assert result.returncode == 1 and len(result.stderr) < 300 and "x" * 80 + "…" in result.stderr
