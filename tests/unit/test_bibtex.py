from rag.records import Paper
from rag.ui.bibtex import base_key, bibliography, cite_keys
from tests.latex import CASED, HOSTILE, ODD, SEED, SLASHED, TITLED


def _keys(text: str) -> list[str]:
    return [line.split("{")[1].rstrip(",") for line in text.splitlines() if line.startswith("@")]


def test_a_papers_key_comes_from_the_paper_alone_whatever_else_the_bibliography_holds():
    assert base_key(TITLED) == "yang2023datasetpruning"
    assert base_key(SEED) == "adascale2026"
    macro = Paper(id="m", abstract="a", label="x", source="s", line=1, authors=("Lirui Zhao",), year=2024,
                  title="$\\mathtt{DiffAgent}$: Fast and \\texttt{Accurate}")  # fmt: skip
    assert base_key(macro) == "zhao2024diffagentfast"  # macro names are no title words
    escaped = Paper(id="e", abstract="a", label="x", source="s", line=1, authors=("Ann Lee",), year=2025,
                    title="\x1b[5mBlink\x1b[0m Nets for \x1b[31mcolored\x1b[0m lines")  # fmt: skip
    assert base_key(escaped) == "lee2025blinknets"  # escape sequences are no title words ("5mblink")
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


def test_titles_protect_case_and_math_and_an_author_less_entry_has_a_key_field():
    text = bibliography([CASED, SEED])
    assert "title = {{AquaLoRA} meets {KV}-cache: {$C^3$} Transformers for {3D}}" in text
    assert "@misc{adascale2026,\n  key = {AdaSCALE}," in text and "howpublished = {ICML}" in text


def test_a_field_ending_in_a_backslash_does_not_swallow_the_closing_brace_or_the_next_entry():
    import bibtexparser

    text = bibliography([SLASHED, TITLED])
    assert "\\}" not in text
    parsed = bibtexparser.parse_string(text)
    assert [e.key for e in parsed.entries] == [base_key(SLASHED), base_key(TITLED)]
    assert not parsed.failed_blocks


def test_underscores_and_other_latex_specials_in_any_field_are_escaped():
    text = bibliography([ODD, SEED])
    assert "000\\_888317b1d60d9493.txt:5" in text and "snake\\_case" in text


def test_latex_commands_in_corpus_text_are_dropped_and_formatting_commands_stay():
    bib = bibliography(HOSTILE)
    assert r"\input" not in bib and r"\undefinedmacro" not in bib and r"\end" not in bib
    assert r"\textbf{bold}" in bib
