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


DRAFT = "AdaSCALE wins by 14.94%. [000-02]"  # the key after the period, as a small model writes it


def test_a_check_that_only_moves_a_citation_says_so_and_nothing_else():
    assert render.check_changes(DRAFT, "AdaSCALE wins by 14.94% [000-02].") == [
        "citations moved to the end of the sentence each supports; the text is unchanged"
    ]


def test_a_check_that_changes_which_paper_a_sentence_cites_names_both():
    changes = render.check_changes(
        "AdaSCALE wins. [000-05] It is fast [000-02].", "AdaSCALE wins [000-02]. It is fast [000-02]."
    )
    assert changes == ["sentence 1 now cites [000-02], the paper whose text supports it (it cited [000-05])"]


def test_a_removed_sentence_is_counted_and_other_rewording_means_show_it_whole():
    assert render.check_changes("A wins [000-02]. B loses [000-02].", "A wins [000-02].") == [
        "removed 1 sentence(s) no retrieved paper supports"
    ]
    assert render.check_changes("A wins [000-02].", "The papers quote: A won [000-02].") is None


def test_on_a_terminal_a_revised_streamed_answer_is_rewritten_in_place_once(capsys, monkeypatch):
    from rich.console import Console

    monkeypatch.setattr(render, "console", Console(force_terminal=True, width=40, height=20, highlight=False))
    render.stream_reset()
    render.stream_token(DRAFT)
    render.answer_footer(_answer(revised=True), streamed=True)
    captured = capsys.readouterr()
    assert captured.out.startswith(DRAFT + "\r\x1b[J")  # the streamed line erased, one row up to none
    assert captured.out.count("14.94%") == 2 and "checked answer" not in captured.out  # draft, then checked
    assert "checked: citations moved to the end of the sentence each supports" in captured.err
    assert "attributed" not in captured.err


def test_a_piped_chat_prints_each_checked_answer_once(capsys, monkeypatch, tmp_path):
    from rag.ui.chat import ChatSession

    class Library:
        def ask(self, question, history, on_token=None, **_):
            if on_token:
                on_token(DRAFT)
            return _answer(revised=True)

    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)
    session = ChatSession(Library(), tmp_path / "history")
    session.handle("By how much does AdaSCALE win?")
    out = capsys.readouterr().out
    assert out.count("AdaSCALE wins by 14.94%") == 1 and "checked answer" not in out


def test_math_in_quoted_evidence_reaches_the_terminal_as_text(capsys):
    quoted = r"We formalize severity as $\gamma = \|\boldsymbol{\mu}\|$ (Spearman $\rho = 0.89$) [000-02]."
    render.answer_footer(_answer(text=quoted, mode="quoted"), streamed=False)
    out = capsys.readouterr().out
    assert "γ = ‖μ‖" in out and "Spearman ρ = 0.89" in out and "\\" not in out


def test_a_lower_case_citation_key_is_shown_in_the_sources_not_read_as_markup(capsys):
    # "[sx-9]" and "[bold]" are also Rich tags: the key vanished from its line (or styled it).
    for key in ("sx-9", "bold", "a0mFRgadGO"):
        paper = Paper(id=key, abstract="Plumbus reaches 91%.", label="Plumbus", source="ids.jsonl", line=1)
        render.sources(_answer(text=f"Plumbus reaches 91% [{key}].", citations=[Citation(key, paper)]))
        out = capsys.readouterr().out
        assert f" 1. [{key}] Plumbus  ids.jsonl:1" in out, out


def test_a_positional_key_is_shown_with_the_id_it_stands_for(capsys):
    long_id = "iclr2024-34f9a343f945196b66f807e0eb6249fd"
    paper = Paper(id=long_id, abstract="Plumbus reaches 91%.", label="Plumbus", source="ids.jsonl", line=1)
    render.sources(_answer(text="Plumbus reaches 91% [S1].", citations=[Citation("S1", paper)]))
    assert f" 1. [S1] {long_id} Plumbus" in " ".join(capsys.readouterr().out.split())


def test_a_logged_answer_shows_its_lower_case_keys(capsys):
    from types import SimpleNamespace

    cited = [{"key": "sx-9", "label": "Plumbus", "source": "ids.jsonl", "line": 1}]
    entry = SimpleNamespace(id=1, time=0, kind="ask", collection="c", model="none", conversation="x",
                            question="q", standalone=None, answer="A [sx-9].", citations=cited)  # fmt: skip
    render.log_entry(entry)
    assert " 1. [sx-9] Plumbus  ids.jsonl:1" in capsys.readouterr().out


def test_the_log_table_gives_each_answer_one_line_at_80_columns(capsys, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(render.console, "width", 80)
    question = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95 on ImageNet-1k, and why?"
    entries = [SimpleNamespace(id=n, time=0, kind="ask", collection="default", conversation="1f1a2f4f879a",
                               question=question, citations=[1], model="none") for n in (1, 2)]  # fmt: skip
    render.log_table(entries)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert len(lines) == 3 and all(len(line) <= 80 for line in lines)  # the header and one line each
    assert lines[1].startswith("1 ") and "By how" in lines[1] and lines[1].rstrip().endswith("none")
