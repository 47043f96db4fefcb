from rag.records import Paper
from rag.ui.bibtex import base_key, bibliography, cite_keys

TITLED = Paper(id="x1", abstract="a", label="Dataset Pruning", source="icml.jsonl", line=3,
               title="Dataset Pruning: Reducing Training Data by 50% & more",
               authors=("Shuo Yang", "Zeke Xie"), venue="ICML", year=2023,
               url="https://openreview.net/forum?id=4wZiAXD29TQ#top")  # fmt: skip
SEED = Paper(id="000-02", abstract="a", label="AdaSCALE", source="000_888317b1d60d9493.txt", line=5,
             venue="ICML", year=2026)  # fmt: skip


def _keys(text: str) -> list[str]:
    return [line.split("{")[1].rstrip(",") for line in text.splitlines() if line.startswith("@")]


def test_a_papers_key_comes_from_the_paper_alone_whatever_else_the_bibliography_holds():
    assert base_key(TITLED) == "yang2023datasetpruning"
    assert base_key(SEED) == "adascale2026"
    macro = Paper(id="m", abstract="a", label="x", source="s", line=1, authors=("Lirui Zhao",), year=2024,
                  title="$\\mathtt{DiffAgent}$: Fast and \\texttt{Accurate}")  # fmt: skip
    assert base_key(macro) == "zhao2024diffagentfast"  # macro names are no title words
    assert _keys(bibliography([TITLED, SEED, SEED])) == ["yang2023datasetpruning", "adascale2026"]
    assert _keys(bibliography([SEED, macro, TITLED])) == ["adascale2026", "zhao2024diffagentfast",
                                                          "yang2023datasetpruning"]  # fmt: skip


def test_two_different_papers_with_one_key_each_get_a_suffix_from_their_own_id_not_their_order():
    import hashlib

    twin = Paper(**{**TITLED.__dict__, "id": "x2"})
    expected = {
        p.id: "yang2023datasetpruning" + hashlib.sha1(p.id.encode()).hexdigest()[:4] for p in (TITLED, twin)
    }
    assert cite_keys([TITLED, twin]) == cite_keys([twin, TITLED]) == expected
    assert len(set(expected.values())) == 2


def test_the_answers_citation_keys_are_mapped_to_bibtex_keys_in_comments_bibtex_ignores():
    text = bibliography([TITLED, SEED], cited_as={"000-02": ["000-02"], "x1": ["000-15", "001-03"]})
    assert text.startswith("% [000-15] -> \\cite{yang2023datasetpruning}\n% [001-03] -> \\cite{yang2023")
    assert "% [000-02] -> \\cite{adascale2026}\n@misc{adascale2026," in text


def test_an_entry_escapes_latex_specials_but_not_the_url_and_a_seed_entry_says_where_it_is():
    text = bibliography([TITLED, SEED])
    assert "title = {Dataset Pruning: Reducing Training Data by 50\\% \\& more}" in text
    assert "author = {Shuo Yang and Zeke Xie}" in text and "booktitle = {ICML}" in text
    assert "url = {https://openreview.net/forum?id=4wZiAXD29TQ#top}" in text
    assert "title = {{AdaSCALE}}" in text
    assert "note = {citeline entry 000-02, 000\\_888317b1d60d9493.txt:5}" in text


def test_control_characters_and_unbalanced_braces_cannot_break_the_file():
    bad = Paper(id="b", abstract="a", label="x", source="s", line=1, title="Evil}\x1b[2J title {", year=2024)
    entry = bibliography([bad])
    assert "\x1b" not in entry and "title = {Evil title }" in entry and entry.startswith("@misc{")
