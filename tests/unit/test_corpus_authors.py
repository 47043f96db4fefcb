"""Authors given as one string are split the ways lists and BibTeX join names."""

import json

import pytest

from rag.index.corpus import parse_source


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
