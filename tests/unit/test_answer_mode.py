"""Answer modes are an enum that still reads and serialises as the strings they always were."""

from __future__ import annotations

import json

import pytest

from rag import AnswerMode
from rag.records import Answer


def _answer(mode: object) -> Answer:
    return Answer("q?", "text", False, [], [], "none", mode=mode)  # type: ignore[arg-type]


def test_a_mode_given_as_a_string_becomes_the_enum_and_still_equals_the_string():
    answer = _answer("quoted")
    assert answer.mode is AnswerMode.QUOTED
    assert answer.mode == "quoted" and f"{answer.mode}" == "quoted"


def test_the_json_document_carries_the_plain_value():
    document = json.loads(json.dumps(_answer(AnswerMode.LISTING).to_dict()))
    assert document["mode"] == "listing"


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError):
        _answer("improvised")


def test_the_default_is_generated():
    assert Answer("q?", "text", False, [], [], "none").mode is AnswerMode.GENERATED
