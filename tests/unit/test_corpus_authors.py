"""Authors given as one string are split the ways lists and BibTeX join names."""

import json

import pytest

from rag.index.corpus import parse_source
from rag.records import Paper


@pytest.mark.parametrize(
    ("authors", "expected"),
    [
        ("Grace Hopper and Émile Zola-Müller", ["Grace Hopper", "Émile Zola-Müller"]),
        ("A. Turing, G. Hopper, and E. Zola", ["A. Turing", "G. Hopper", "E. Zola"]),
        ("Hopper, Grace and Zola-Müller, Émile", ["Grace Hopper", "Émile Zola-Müller"]),  # BibTeX
        ("Ada Lovelace; Alan Turing", ["Ada Lovelace", "Alan Turing"]),
        ("Sandy Anderson & Andy Sand", ["Sandy Anderson", "Andy Sand"]),
        (["Ada Lovelace", "Alan Turing"], ["Ada Lovelace", "Alan Turing"]),
        ("Johnson & Johnson", ["Johnson & Johnson"]),  # "and" between single words is in a name
        ("Research and Development Team", ["Research and Development Team"]),
        ("Procter & Gamble Research, Jane Doe", ["Procter & Gamble Research", "Jane Doe"]),
        ("Smith, John and others", ["John Smith"]),  # BibTeX's "others" is nobody
        ("Hopper, Grace", ["Grace Hopper"]),
        ("Doe, Jr., John and Smith, Jane", ["John Doe Jr.", "Jane Smith"]),
        ("Grace Hopper et al.", ["Grace Hopper"]),
        ("Ada Lovelace, Alan Turing", ["Ada Lovelace", "Alan Turing"]),
    ],
)
def test_an_author_string_is_split_into_people(tmp_path, authors, expected):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"id": "p1", "title": "T", "abstract": "A.", "authors": authors}) + "\n")
    assert list(parse_source(path).papers[0].authors) == expected


def test_values_of_the_wrong_type_are_left_out_with_a_warning_never_stored_as_python_repr(tmp_path):
    records = [
        {"id": "t1", "title": ["list", "title"], "authors": [1, None, {"n": "x"}, "Ann Lee"],
         "abstract": "An abstract about graphs.", "year": "twenty"},
        {"id": "t2", "title": "Fine", "abstract": {"x": 1}},
        {"id": ["a"], "title": "Id list", "abstract": "Another abstract about trees.", "venue": {"v": 1}},
        {"id": "t4", "title": True, "abstract": "A third abstract.", "year": 2024},
    ]  # fmt: skip
    path = tmp_path / "types.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    parsed = parse_source(path)
    one, three, four = parsed.papers
    assert (one.title, one.authors, one.year) == ("", ("Ann Lee",), None)
    assert (three.id, three.venue) == ("types-0003", "") and (four.title, four.year) == ("", 2024)
    assert [str(p) for p in parsed.problems] == [
        "types.jsonl:1: title is a list, not text; left out",
        "types.jsonl:1: 3 author entries are not names; left out",
        "types.jsonl:1: year 'twenty' is not a year; left out",
        "types.jsonl:2: abstract is an object, not text",
        "types.jsonl:3: id is a list, not text; numbered by position",
        "types.jsonl:3: venue is an object, not text; left out",
        "types.jsonl:4: title is true or false, not text; left out",
    ]


@pytest.mark.parametrize(
    ("name", "written_by"),
    [("Yejin Choi", True), ("Y. Choi", True), ("Choi", True), ("Choi, Yejin", True),
     ("Zico Kolter", True), ("J. Z. Kolter", True), ("Jose Garcia-Perez", True), ("John Doe", True),
     ("Lukasz Kaiser", True), ("Soren Hauberg", True), ("Иван Петров", True),
     ("Yejin", False), ("Zico Choi", False), ("Choi Yejin", False), ("", False)],
)  # fmt: skip
def test_a_paper_is_by_an_author_named_in_full_by_initials_or_surname(name, written_by):
    people = ("J Zico Kolter", "Yejin Choi", "José García-Pérez", "John Doe Jr.", "Łukasz Kaiser",
              "Søren Hauberg", "Иван Петров")  # fmt: skip
    paper = Paper("p", "", "p", "s", 1, authors=people)
    assert paper.is_by(name) is written_by
