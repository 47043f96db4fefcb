import gzip
import json
from pathlib import Path

import pytest

from rag.errors import CitelineError
from rag.index.corpus import parse_source
from rag.resources import bundled_corpus

from ..conftest import ICML2024


def _seed(prefix: str) -> Path:
    return next(p for p in bundled_corpus() if p.name.startswith(prefix))


def test_seed_list_ids_follow_file_and_entry_position_and_keep_physical_lines():
    parsed = parse_source(_seed("000_"))
    assert len(parsed.papers) == 19
    ada = parsed.papers[1]
    assert (ada.id, ada.line, ada.label) == ("000-02", 5, "AdaSCALE")
    assert (ada.venue, ada.year) == ("ICML", 2026)
    lines = _seed("000_").read_text(encoding="utf-8").splitlines()
    assert all(lines[p.line - 1].strip() == p.abstract for p in parsed.papers)


def test_chinese_header_gives_venue_and_every_seed_file_parses():
    papers = [p for path in bundled_corpus() for p in parse_source(path).papers]
    assert len(papers) == 57
    assert len({p.id for p in papers}) == 57
    assert {p.venue for p in papers} == {"ICML"}


def test_a_txt_list_without_its_header_line_keeps_its_first_abstract_as_a_paper_and_says_so(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("We propose ZebraNet, a detector reaching 88% recall. It is fast.\n\nWe study graphs.\n")
    parsed = parse_source(path)
    assert [(p.line, p.label, p.venue) for p in parsed.papers] == [
        (1, "ZebraNet", ""),
        (3, "We study graphs", ""),
    ]
    (problem,) = parsed.problems
    assert problem.line == 1 and not problem.skipped and "not the venue header" in problem.message
    path.write_text("We propose ZebraNet.\n\nWe study graphs.\n")  # one short sentence: read as the venue
    (problem,) = parse_source(path).problems
    assert problem.line == 1 and not problem.skipped and "names no venue and year" in problem.message


def test_abstract_text_is_kept_faithfully_with_only_whitespace_normalised(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text(
        "ICML 2026 Papers\n\nWe propose \\textbf{FooNet},   a **bold**\tmodel with $O(n^2)$ cost.\n"
    )
    paper = parse_source(path).papers[0]
    assert paper.abstract == "We propose \\textbf{FooNet}, a **bold** model with $O(n^2)$ cost."
    assert paper.id == "list-01"
    assert paper.line == 3


def test_untitled_paper_without_method_name_gets_truncated_first_sentence(tmp_path):
    path = tmp_path / "x.txt"
    first = "Training with differential privacy guarantees dataset members that they cannot be identified."
    path.write_text(f"Header 2026\n{first} Second sentence.\n")
    label = parse_source(path).papers[0].label
    assert label.startswith("Training with differential privacy") and label.endswith("…")
    assert len(label) <= 61


def test_jsonl_gz_from_the_shared_corpus_keeps_record_ids_titles_and_authors():
    if not ICML2024.exists():
        pytest.skip("../shared/corpora is not beside this checkout")
    parsed = parse_source(ICML2024)
    assert len(parsed.papers) == 2634 and not parsed.problems
    with gzip.open(ICML2024, "rt") as fh:
        first = json.loads(fh.readline())
    paper = parsed.papers[0]
    assert paper.id == first["id"] and paper.title == first["title"].strip()
    assert paper.authors == tuple(first["authors"]) and paper.year == 2024 and paper.line == 1


def test_json_array_and_csv_records_parse(tmp_path):
    records = [{"id": "a1", "title": "T1", "abstract": "Abstract one.", "authors": ["X", "Y"], "year": 2025}]
    (tmp_path / "p.json").write_text(json.dumps({"papers": records}))
    (tmp_path / "p.csv").write_text(
        'id,title,abstract,authors,venue,year\nc1,T2,"Abstract, two.","A; B",NeurIPS,2024\n'
    )
    paper = parse_source(tmp_path / "p.json").papers[0]
    assert (paper.id, paper.authors, paper.year) == ("a1", ("X", "Y"), 2025)
    row = parse_source(tmp_path / "p.csv").papers[0]
    assert (row.id, row.abstract, row.authors, row.venue, row.line) == (
        "c1",
        "Abstract, two.",
        ("A", "B"),
        "NeurIPS",
        2,
    )


def test_bad_entries_are_reported_with_file_and_line_and_good_ones_kept(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"id": "ok1", "title": "Good", "abstract": "Fine."}\n'
        "{not json\n"
        '{"id": "noabs", "title": "Missing"}\n'
        '{"id": "ok1", "title": "Dup", "abstract": "Again."}\n'
        '{"id": "ok2", "abstract": "Also fine."}\n'
    )
    parsed = parse_source(path)
    assert [p.id for p in parsed.papers] == ["ok1", "ok2"]
    messages = [str(p) for p in parsed.problems]
    assert messages[0].startswith("mixed.jsonl:2: malformed JSON")
    assert messages[1] == "mixed.jsonl:3: missing abstract"
    assert messages[2].startswith("mixed.jsonl:4: duplicate id 'ok1'")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bin.txt", b"\x00\x01\x02binary", "binary file"),
        ("latin.txt", "ICML 2026\nCaf\xe9 abstract\n".encode("latin-1"), "not UTF-8"),
        ("list.pdf", b"%PDF", "unsupported file type"),
        ("broken.json", b"[{", "malformed JSON"),
    ],
)
def test_unusable_files_raise_one_clear_error(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(CitelineError, match=message):
        parse_source(path)


def test_unicode_line_separators_inside_an_entry_do_not_split_it(tmp_path):
    # NeurIPS 2012 has U+2029 inside an abstract; str.splitlines() would cut that record in pieces.
    jsonl = tmp_path / "p.jsonl"
    records = [{"id": "a", "title": "T", "abstract": "First part.\u2029 Second part."},
               {"id": "b", "title": "U", "abstract": "Another abstract."}]  # fmt: skip
    jsonl.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    parsed = parse_source(jsonl)
    assert not parsed.problems and [(p.id, p.line) for p in parsed.papers] == [("a", 1), ("b", 2)]
    seeds = tmp_path / "001_x.txt"
    seeds.write_text("ICML 2026\nOne abstract\u2028with a line separator.\r\n\nSecond abstract.\n")
    papers = parse_source(seeds).papers
    assert [(p.id, p.line) for p in papers] == [("001-01", 2), ("001-02", 4)]
    assert papers[0].abstract == "One abstract with a line separator."


def test_a_json_file_of_other_records_is_one_warning_not_one_per_record(tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps([{"file": "a.jsonl.gz", "count": 3}, {"file": "b.jsonl.gz", "count": 4}]))
    parsed = parse_source(manifest)
    assert not parsed.papers
    assert [str(p) for p in parsed.problems] == [
        "manifest.json: no record has an 'abstract' field; not a paper list"
    ]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": 1,\n{oops\n')
    assert [p.line for p in parse_source(broken).problems] == [1, 2]  # malformed lines keep their numbers


def test_a_stray_quote_in_a_csv_row_is_reported_instead_of_swallowing_the_next_rows(tmp_path):
    path = tmp_path / "list.csv"
    path.write_text(
        "id,title,abstract\n"
        'a1,Good,"A quoted abstract\nthat spans two lines."\n'
        'a2,Bad,"An unclosed quote.\n'
        'a3,Lost,"Read as part of the bad row."\n'
        "a4,Fine,Plain abstract.\n"
        'a5,Tail,"unclosed at the end\n'
    )
    parsed = parse_source(path)
    assert [(p.id, p.line) for p in parsed.papers] == [("a1", 2), ("a4", 6)]
    assert parsed.papers[0].abstract == "A quoted abstract that spans two lines."
    assert [str(p) for p in parsed.problems] == [
        "list.csv:4: malformed CSV (',' expected after '\"')",
        "list.csv:7: malformed CSV (unexpected end of data)",
    ]


def test_an_empty_list_is_one_clear_error(tmp_path, seed_settings):
    from .test_cli import run

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = run(["ingest", str(empty), "--collection", "empty-list"], seed_settings)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "error: nothing could be ingested: empty.jsonl: holds no papers"
    ]
