"""Venue/year filters on retrieval, against embedded Chroma and a Chroma server."""

import json

import pytest

from rag.index.ingest import ingest
from rag.retrieval.retriever import Retriever

RECORDS = [
    {"id": pid, "title": f"Graph networks for {what}", "abstract": f"Graph neural networks for {what}.",
     "venue": venue, "year": year}
    for pid, what, venue, year in [("a", "molecules", "ICML", 2024), ("b", "proteins", "NeurIPS", 2023),
                                   ("c", "crystals", "ICML", 2023)]
]  # fmt: skip


@pytest.fixture
def retriever(store_settings, tmp_path):
    path = tmp_path / "graphs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in RECORDS))
    ingest([path], store_settings)
    return Retriever(store_settings)


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_venue_and_year_filters_restrict_every_mode(retriever, mode):
    everything = {h.paper.id for h in retriever.search("graph neural networks", k=5, mode=mode, floor=False)}
    assert everything == {"a", "b", "c"}
    icml = {
        h.paper.id
        for h in retriever.search("graph neural networks", k=5, mode=mode, floor=False, venue="ICML")
    }
    assert icml == {"a", "c"}
    both = retriever.search("graph neural networks", k=5, mode=mode, floor=False, venue="ICML", year=2023)
    assert [h.paper.id for h in both] == ["c"]


def test_filters_from_settings_apply_by_default(retriever):
    scoped = Retriever(retriever.settings.replace(year=2023), embedder=retriever.embedder)
    assert {h.paper.id for h in scoped.search("graph neural networks", k=5, floor=False)} == {"b", "c"}


def test_topic_selection_filters_by_venue_in_any_case_and_by_year(retriever):
    assert {h.paper.id for h in retriever.select_topic("graph neural networks").hits} == {"a", "b", "c"}
    assert {h.paper.id for h in retriever.select_topic("graph neural networks", venue="icml").hits} == {
        "a",
        "c",
    }
    only = retriever.select_topic("graph neural networks", venue="ICML", year=2023)
    assert [h.paper.id for h in only.hits] == ["c"] and only.candidates == 1


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_the_venue_filter_matches_in_any_case_in_every_mode(retriever, mode):
    for spelling in ("icml", "Icml", " ICML "):
        found = retriever.search("graph neural networks", k=5, mode=mode, floor=False, venue=spelling)
        assert {h.paper.id for h in found} == {"a", "c"}, spelling
    scoped = Retriever(retriever.settings.replace(venue="neurips"), embedder=retriever.embedder)
    assert [h.paper.id for h in scoped.search("graph neural networks", k=5, mode=mode, floor=False)] == ["b"]


def test_a_venue_no_paper_records_finds_nothing_and_the_library_says_why(retriever):
    from rag import Library

    assert retriever.search("graph neural networks", k=5, floor=False, venue="ICLR") == []
    assert retriever.venues() == ["ICML", "NeurIPS"]
    library = Library(retriever.settings.replace(venue="ICLR"), retriever=retriever)
    assert library.filter_problem() == (
        f"no paper in collection {retriever.settings.collection!r} records the venue 'ICLR' "
        "(its papers record: ICML, NeurIPS)"
    )
    assert Library(retriever.settings.replace(venue="icml"), retriever=retriever).filter_problem() is None


def test_a_year_no_paper_records_finds_nothing_and_the_library_says_which_years_there_are(retriever):
    from rag import Library

    recorded = retriever.years()
    assert recorded and 1999 not in recorded
    assert retriever.search("graph neural networks", k=5, floor=False, year=1999) == []
    library = Library(retriever.settings.replace(year=1999), retriever=retriever)
    assert library.filter_problem() == (
        f"no paper in collection {retriever.settings.collection!r} records the year 1999 "
        f"(its papers record: {', '.join(map(str, recorded))})"
    )
    assert Library(retriever.settings.replace(year=recorded[0]), retriever=retriever).filter_problem() is None
