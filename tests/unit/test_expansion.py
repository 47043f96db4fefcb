"""A model names a subfield's terms once per topic and collection (scripted model, temp data dir)."""

import pytest

from rag.answer.expansion import CACHE_FILE, parse_terms, subfield_terms
from rag.errors import CitelineError
from rag.llm.client import LLMHandle
from rag.settings import Settings

from ..fakes import ScriptedChatModel


def test_terms_are_parsed_from_lines_commas_bullets_and_parenthesised_abbreviations():
    reply = (
        "1. Deep Q-Network (DQN)\n- policy gradient, actor-critic\n* reinforcement learning\n"
        "A sentence that goes on and on forever"
    )
    assert parse_terms(reply, "Reinforcement Learning", limit=12) == [
        "Deep Q-Network",
        "DQN",
        "policy gradient",
        "actor-critic",
    ]
    assert parse_terms(reply, "Reinforcement Learning", limit=2) == ["Deep Q-Network", "DQN"]


def test_a_topics_terms_are_asked_once_then_read_from_the_cache(tmp_path):
    settings = Settings(data_dir=tmp_path, llm="openai")
    model = ScriptedChatModel(replies=["probing\nsaliency map"], prompts=[])
    llm = LLMHandle("openai", model, "scripted")
    assert subfield_terms(llm, "Interpretability", settings) == ["probing", "saliency map"]
    assert subfield_terms(llm, "interpretability ", settings) == ["probing", "saliency map"]
    assert len(model.prompts) == 1 and (tmp_path / CACHE_FILE).is_file()
    other = Settings(data_dir=tmp_path, llm="openai", collection="iclr2024")
    assert subfield_terms(LLMHandle("openai", ScriptedChatModel(replies=["x"], prompts=[]), "scripted"),
                          "interpretability", other) == ["x"]  # fmt: skip


def test_a_failing_model_or_a_damaged_cache_costs_only_the_terms(tmp_path):
    settings = Settings(data_dir=tmp_path, llm="openai")
    (tmp_path / CACHE_FILE).write_text('{"not": "a list"', encoding="utf-8")
    silent = LLMHandle("openai", ScriptedChatModel(replies=[], prompts=[]), "scripted")  # raises on use
    assert subfield_terms(silent, "interpretability", settings) == []
    with pytest.raises(CitelineError):  # a caller that would call the model again is told
        subfield_terms(silent, "interpretability", settings, strict=True)
    assert subfield_terms(LLMHandle("none", None, "none"), "interpretability", settings) == []
    again = LLMHandle("openai", ScriptedChatModel(replies=["probing"], prompts=[]), "scripted")
    assert subfield_terms(again, "interpretability", settings) == ["probing"]  # the damaged cache is replaced
