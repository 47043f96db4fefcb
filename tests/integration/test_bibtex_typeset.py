"""citeline's BibTeX entries through the real ``bibtex`` and ``pdflatex``: case and math kept,
LaTeX specials and commands from corpus text typeset as text, never run. The entries' text is
checked in tests/unit/test_bibtex.py; these typeset the same entries (tests/latex.py)."""

from rag.ui.bibtex import bibliography
from tests.latex import CASED, HOSTILE, ODD, SEED, SLASHED, TITLED, compile_bibliography


def test_a_title_keeps_its_case_and_math_and_an_author_less_entry_typesets_without_warnings(tmp_path):
    compiled = compile_bibliography(bibliography([CASED, SEED]), tmp_path)
    assert compiled.pdf and compiled.latex_errors == [] and compiled.bibtex_warnings == []
    assert "{AquaLoRA} meets {KV}-cache: {$C^3$} transformers for {3D}" in compiled.bbl  # plain lower-cased


def test_a_field_ending_in_a_backslash_typesets_with_the_next_entry_intact(tmp_path):
    compiled = compile_bibliography(bibliography([SLASHED, TITLED]), tmp_path)
    assert compiled.pdf and not compiled.latex_errors and not compiled.bibtex_errors


def test_underscores_and_other_latex_specials_in_any_field_typeset_without_error(tmp_path):
    compiled = compile_bibliography(bibliography([ODD, SEED]), tmp_path)
    assert compiled.pdf and compiled.latex_errors == [] and compiled.bibtex_errors == []


def test_latex_commands_in_corpus_text_are_typeset_as_text_never_run(tmp_path):
    compiled = compile_bibliography(bibliography(HOSTILE), tmp_path)
    assert compiled.pdf and compiled.latex_errors == [] and compiled.bibtex_errors == []
    assert "(/etc/hostname)" not in (tmp_path / "doc.log").read_text(errors="replace")  # no file was read
