"""Loading an eval file: optional tags are kept per question; malformed lines are one clear error."""

import pytest

from rag.errors import CitelineError
from rag.eval.harness import load_eval_set

GOLD = '[{"id": "p1", "source": "a.txt", "line": 3}]'


def test_tags_are_kept_and_default_to_none(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text(
        '{"id": "1", "question": "What does XYZ stand for?", "kind": "factoid", "gold": ' + GOLD + ", "
        '"facts": ["x y z"], "tags": ["acronym"]}\n'
        '{"id": "2", "question": "What FID does XYZ reach?", "kind": "unanswerable", "gold": []}\n',
        encoding="utf-8",
    )
    tagged, untagged = load_eval_set(path)
    assert tagged.tags == ("acronym",) and tagged.gold == ("p1",)
    assert untagged.tags == () and not untagged.answerable


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "1", "question": "q", "kind": "factoid", "gold": ' + GOLD + ', "tags": "acronym"}',
         "tags must be a list of strings"),
        ('{"id": "1", "question": "q", "kind": "factoid", "gold": ' + GOLD + ', "tags": [1]}',
         "tags must be a list of strings"),
        ('["id", "question"]', "a line must be a JSON object"),
    ],
)  # fmt: skip
def test_bad_tags_or_a_non_object_line_is_one_file_line_error(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(CitelineError, match=rf"bad\.jsonl:1: not an eval item \(TypeError: {message}\)"):
        load_eval_set(path)
