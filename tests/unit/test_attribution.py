"""Attribution of answer sentences to the papers whose text supports them."""

from rag.answer.attribution import attribute
from rag.settings import AnswerSettings

from ..fakes import paper

TUNING = AnswerSettings()  # the defaults

CONTEXT = {
    "000-02": paper("000-02", "AdaSCALE outperforms the rival OptFS by 14.94% in near-OOD FPR@95."),
    "004-16": paper("004-16", "PlugGuard uses only 20M parameters and adds less than 0.5 ms per token."),
}


def test_a_supported_sentence_keeps_its_key():
    result = attribute("AdaSCALE outperforms OptFS by 14.94% in near-OOD [000-02].", CONTEXT, tuning=TUNING)
    assert result.text == "AdaSCALE outperforms OptFS by 14.94% in near-OOD [000-02]." and not result.changed


def test_a_wrong_key_moves_to_the_paper_that_supports_the_sentence():
    result = attribute("PlugGuard uses only 20M parameters [000-02].", CONTEXT, tuning=TUNING)
    assert result.text == "PlugGuard uses only 20M parameters [004-16]."
    assert result.sentences[0].status == "reattributed" and result.invalid(CONTEXT) == []


def test_an_invented_key_is_reported_and_replaced():
    result = attribute("PlugGuard uses only 20M parameters [KEY-A].", CONTEXT, tuning=TUNING)
    assert result.text.endswith("[004-16].") and result.invalid(CONTEXT) == ["KEY-A"]


def test_an_unsupported_sentence_is_dropped():
    result = attribute(
        "AdaSCALE beats OptFS by 14.94% [000-02]. It was trained on Mars [000-02].", CONTEXT, tuning=TUNING
    )
    assert "Mars" not in result.text and [s.status for s in result.sentences] == ["cited", "unsupported"]


def test_ordinary_brackets_survive():
    result = attribute(
        "PlugGuard uses only 20M parameters [in streaming mode] [004-16].", CONTEXT, tuning=TUNING
    )
    assert result.text == "PlugGuard uses only 20M parameters [in streaming mode] [004-16]."


def test_a_sentence_in_another_language_is_backed_by_its_names_and_numbers():
    result = attribute(
        "PlugGuard verwendet nur 20M Parameter [KEY-004-16].", CONTEXT, english=False, tuning=TUNING
    )
    assert result.text.endswith("[004-16].") and result.sentences[0].status == "reattributed"
    wrong = attribute("PlugGuard verwendet 90M Parameter.", CONTEXT, english=False, tuning=TUNING)
    assert wrong.sentences[0].status == "unsupported" and "90M" in wrong.text  # marked, not dropped
