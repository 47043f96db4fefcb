"""citeline's BibTeX entries through the real ``bibtex`` and ``pdflatex``: case and math kept,
LaTeX specials and commands from corpus text typeset as text, never run (the entries' own logic
is unit-tested in tests/unit/test_bibtex.py)."""

from rag.records import Paper
from rag.ui.bibtex import base_key, bibliography
from tests.latex import compile_bibliography
from tests.unit.test_bibtex import SEED, TITLED


def test_titles_protect_case_and_math_and_an_author_less_entry_has_a_key_field(tmp_path):
    cased = Paper(id="c", abstract="a", label="x", source="s", line=1, authors=("Xi Chen",), venue="ICML",
                  year=2024, title="AquaLoRA meets KV-cache: $C^3$ Transformers for 3D")  # fmt: skip
    text = bibliography([cased, SEED])
    assert "title = {{AquaLoRA} meets {KV}-cache: {$C^3$} Transformers for {3D}}" in text
    assert "@misc{adascale2026,\n  key = {AdaSCALE}," in text and "howpublished = {ICML}" in text
    compiled = compile_bibliography(text, tmp_path)
    assert compiled.pdf and compiled.latex_errors == [] and compiled.bibtex_warnings == []
    assert "{AquaLoRA} meets {KV}-cache: {$C^3$} transformers for {3D}" in compiled.bbl  # plain lower-cased


def test_a_field_ending_in_a_backslash_does_not_swallow_the_closing_brace_or_the_next_entry(tmp_path):
    import bibtexparser

    slash = Paper(id="s1", abstract="a", label="x", source="s", line=1, title="About diffusion models \\",
                  authors=("Ann Lee",), year=2024)  # fmt: skip
    text = bibliography([slash, TITLED])
    assert "\\}" not in text
    parsed = bibtexparser.parse_string(text)
    assert [e.key for e in parsed.entries] == [base_key(slash), base_key(TITLED)] and not parsed.failed_blocks
    compiled = compile_bibliography(text, tmp_path)
    assert compiled.pdf and not compiled.latex_errors and not compiled.bibtex_errors


def test_underscores_and_other_latex_specials_in_any_field_typeset_without_error(tmp_path):
    odd = Paper(id="o_1", abstract="a", label="snake_case ~home ^caret $5 #1", source="000_88.txt", line=31,
                authors=("A_B Smith",), venue="ICML_2026 & co", year=2026)  # fmt: skip
    text = bibliography([odd, SEED])
    assert "000\\_888317b1d60d9493.txt:5" in text and "snake\\_case" in text
    compiled = compile_bibliography(text, tmp_path)
    assert compiled.pdf and compiled.latex_errors == [] and compiled.bibtex_errors == []


def test_latex_commands_in_corpus_text_are_typeset_as_text_never_run(tmp_path):
    titles = [r"Using \input{/etc/hostname} and \undefinedmacro here", r"Break out }} \end{document} {{",
              r"A safe \textbf{bold} last entry"]  # fmt: skip
    hostile = [
        Paper(f"h{n}", "An abstract.", f"l{n}", "f.jsonl", n, title=title, authors=(f"Eve Macro{n}",),
              venue="ICML", year=2024)
        for n, title in enumerate(titles, start=1)
    ]  # fmt: skip
    bib = bibliography(hostile)
    assert r"\input" not in bib and r"\undefinedmacro" not in bib and r"\end" not in bib
    assert r"\textbf{bold}" in bib  # formatting commands stay
    compiled = compile_bibliography(bib, tmp_path)
    assert compiled.pdf and compiled.latex_errors == [] and compiled.bibtex_errors == []
    assert "(/etc/hostname)" not in (tmp_path / "doc.log").read_text(errors="replace")  # no file was read
