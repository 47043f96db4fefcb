"""Terminal output: corpus text is printed as text (never as markup), and the footer says what changed."""

from rag.records import Answer, Citation, Paper
from rag.ui import render

PAPER = Paper(
    id="000-02", abstract="AdaSCALE wins by 14.94%.", label="[bold]AdaSCALE[/bold]", source="s.txt", line=5
)


def _answer(**changes):
    base = dict(question="q", text="AdaSCALE wins by 14.94% [000-02].", abstained=False,
                citations=[Citation("000-02", PAPER)], retrieved=[], model="m")  # fmt: skip
    return Answer(**(base | changes))


def test_rich_markup_in_a_label_is_shown_literally(capsys):
    render.answer_footer(_answer(), streamed=False)
    out = capsys.readouterr().out
    assert "[bold]AdaSCALE[/bold]" in out and "s.txt:5" in out


def test_the_footer_says_when_the_answer_is_quoted_evidence(capsys):
    render.answer_footer(_answer(mode="quoted"), streamed=False)
    assert "quoted from the papers" in capsys.readouterr().err


def test_a_revised_streamed_answer_is_shown_again_checked(capsys):
    dropped = [{"sentence": "x", "keys": [], "status": "unsupported"}]
    render.answer_footer(_answer(revised=True, attribution=dropped), streamed=True)
    captured = capsys.readouterr()
    assert (
        "checked answer:" in captured.out and "1 sentence(s) that no retrieved paper supports" in captured.err
    )


def test_math_in_quoted_evidence_reaches_the_terminal_as_text(capsys):
    quoted = r"We formalize severity as $\gamma = \|\boldsymbol{\mu}\|$ (Spearman $\rho = 0.89$) [000-02]."
    render.answer_footer(_answer(text=quoted, mode="quoted"), streamed=False)
    out = capsys.readouterr().out
    assert "γ = ‖μ‖" in out and "Spearman ρ = 0.89" in out and "\\" not in out
