"""The summary document's counts and lists, from a Summary record (no index, no model)."""

from rag.answer.summary import PaperNote, Summary, Theme
from tests.fakes import paper


def _summary(covered: int, others: int, vocabulary_only: int) -> Summary:
    notes = [
        PaperNote(f"k{n}", paper(f"c{n}", "We propose X."), "We propose X.", 0.9) for n in range(covered)
    ]
    named = [paper(f"o{n}", "We study Y.") for n in range(others)]
    return Summary(
        "X", "Lead.", [Theme("X methods", notes)], "none", others=named, vocabulary_only=vocabulary_only
    )


def test_the_last_line_counts_one_covered_paper_in_the_singular():
    assert _summary(1, 0, 0).to_markdown().splitlines()[-1] == "_1 paper · none_"
    assert _summary(2, 0, 0).to_markdown().splitlines()[-1] == "_2 papers · none_"
    assert _summary(1, 2, 1).to_markdown().splitlines()[-1] == "_1 of 2 papers · none_"


def test_the_json_tells_papers_on_the_topic_from_those_only_sharing_its_vocabulary():
    data = _summary(1, 3, 2).to_dict()
    assert [(o["id"], o["likely"]) for o in data["others"]] == [("o0", True), ("o1", False), ("o2", False)]
    assert (data["found"], data["likely"]) == (4, 2)


def test_the_markdown_names_every_paper_on_the_topic_but_only_the_first_of_a_long_vocabulary_tail():
    from rag.answer.summary import VOCABULARY_SHOWN

    text = _summary(1, 40 + VOCABULARY_SHOWN + 5, VOCABULARY_SHOWN + 5).to_markdown()
    assert all(f"(id o{n}," in text for n in range(40 + VOCABULARY_SHOWN))  # on the topic: all 40
    assert f"(id o{40 + VOCABULARY_SHOWN}," not in text
    assert "- … and 5 more (`--format json` lists them all)" in text
