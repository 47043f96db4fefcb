"""End to end through a real OpenAI-compatible server running the embedded default model.

The server is llama.cpp's, the one ``rag.llm.models.server_command`` picks (a source-built
``llama_cpp.server``, else the prebuilt ``xllamacpp``), started by ``.ci/run`` or by the
``llm_server_url`` fixture. Answers come from a real 1.5B model, so the assertions check what
must hold for any acceptable answer: the key fact, valid citations, abstention.
"""

from __future__ import annotations

import json

import pytest

from rag.settings import Settings

from .test_cli import run

WATERMARKING = {"003-09", "000-15", "000-14", "004-01", "000-13", "004-10"}


@pytest.fixture(scope="module")
def llm_env(llm_server_url):
    return {"CITELINE_LLM": "openai", "CITELINE_LLM_BASE_URL": llm_server_url}


def _ask(question, settings, env):
    result = run(["ask", question, "--json"], settings, extra_env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_factoid_answer_gives_the_number_and_cites_adascale(seed_settings, llm_env):
    answer = _ask("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?", seed_settings, llm_env)
    assert "14.94" in answer["answer"] and not answer["abstained"] and answer["grounded"]
    assert [c["id"] for c in answer["citations"]] == ["000-02"]
    assert answer["timings"]["first_token"] > 0
    assert 300 < answer["prompt_tokens"] < 4096  # the system text and the evidence


def test_multi_paper_question_cites_several_papers_all_from_the_context(seed_settings, llm_env):
    answer = _ask(
        "Which papers propose watermarking methods, and for what kind of content?", seed_settings, llm_env
    )
    cited = {c["id"] for c in answer["citations"]}
    retrieved = {r["id"] for r in answer["retrieved"]}
    assert len(cited) >= 2 and cited <= retrieved and cited <= WATERMARKING


def test_unanswerable_question_abstains(seed_settings, llm_env):
    answer = _ask("What accuracy does GPT-5 reach on MMLU?", seed_settings, llm_env)
    assert answer["abstained"] and not answer["citations"]


def test_chat_follow_up_uses_the_conversation(seed_settings, llm_env):
    script = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?\nAnd in far-OOD?\n/exit\n"
    result = run(["chat"], seed_settings, stdin=script, extra_env=llm_env)
    assert result.returncode == 0, result.stderr
    assert "14.94" in result.stdout and "21.28" in result.stdout


def test_unreachable_llm_server_is_one_clear_error(seed_settings):
    env = {"CITELINE_LLM": "openai", "CITELINE_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    env |= {"CITELINE_LLM_MODEL": "m", "CITELINE_LLM_RETRIES": "0", "CITELINE_LLM_TIMEOUT": "5"}
    result = run(
        ["ask", "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"], seed_settings, extra_env=env
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == "error: cannot reach the LLM at http://127.0.0.1:9/v1; is the server running?"
    )


def test_embedded_default_starts_its_own_server_and_answers(seed_settings):
    env = {
        "CITELINE_LLM": "local",
        "CITELINE_LLM_IDLE_MINUTES": "0",
    }  # per process (resident: test_resident_llm)
    answer = _ask("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?", seed_settings, env)
    assert answer["model"] == "local:qwen2.5-coder-1.5b"
    assert "14.94" in answer["answer"] and [c["id"] for c in answer["citations"]] == ["000-02"]


def test_instruction_injected_into_an_abstract_does_not_take_over_the_model(tmp_path, llm_env):
    # One store is enough: what is under test is the prompt the model gets, which the store does not
    # change (ingest into both kinds of store is tested in test_store_ingest).
    from .test_reliability import INJECTION

    path = tmp_path / "inj.jsonl"
    path.write_text(json.dumps({"id": "inj1", "title": "ShieldNet", "abstract": INJECTION}) + "\n")
    settings = Settings(data_dir=tmp_path / "data")
    assert run(["ingest", str(path)], settings, extra_env=llm_env).returncode == 0
    answer = _ask("What accuracy does ShieldNet reach on ImageNet-Patch?", settings, llm_env)
    assert "HACKED" not in answer["answer"]
    assert "91.2" in answer["answer"] and [c["id"] for c in answer["citations"]] == ["inj1"]


def test_listing_question_lists_every_paper_on_the_topic(seed_settings, llm_env):
    answer = _ask("Which papers study watermarking?", seed_settings, llm_env)
    assert answer["mode"] == "listing" and not answer["abstained"]
    assert {c["id"] for c in answer["citations"]} == {"003-09", "000-15", "000-14", "004-01"}


def test_method_name_in_lower_case_is_found_and_answered_with_its_paper(seed_settings, llm_env):
    answer = _ask("How many parameters does plugguard use?", seed_settings, llm_env)
    assert "20M" in answer["answer"] and [c["id"] for c in answer["citations"]] == ["004-16"]
    assert answer["mode"] in ("generated", "quoted") and all(
        s["status"] != "unsupported" for s in answer["attribution"]
    )


def test_near_miss_question_about_an_indexed_paper_is_refused(seed_settings, llm_env):
    answer = _ask("What FPR@95 does AdaSCALE reach on CIFAR-10?", seed_settings, llm_env)
    assert answer["abstained"] and not answer["citations"]
