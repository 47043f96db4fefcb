"""Theme names in listings read as the papers write them: whole terms, acronyms in capitals."""

from rag.answer.themes import PaperNote, term_name
from tests.fakes import paper


def _notes(titles: list[str]) -> list[PaperNote]:
    papers = [paper(f"p{n}", "An abstract.", title) for n, title in enumerate(titles)]
    return [PaperNote(p.id, p, "", -n) for n, p in enumerate(papers)]


OTHERS = [f"Sparse Autoencoders for {thing}" for thing in ("Vision", "Speech", "Proteins", "Robotics")]


def test_a_term_ends_with_the_common_word_its_papers_write_after_it():
    theme = _notes([
        "Large Language Models as Optimizers",
        "Aligning Large Language Models with Human Preferences",
        "Large Language Models Can Self-Correct",
    ])  # fmt: skip
    assert term_name(theme, theme + _notes(OTHERS), "sparse autoencoders").startswith("Large language models")


def test_an_acronym_keeps_its_capitals_in_a_theme_name():
    theme = _notes(["Scaling GNNs to Large Graphs", "Expressive GNNs via Subgraphs", "GNNs Meet Attention"])
    assert "GNNs" in term_name(theme, theme + _notes(OTHERS), "graph learning")
