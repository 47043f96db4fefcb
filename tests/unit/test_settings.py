import pytest

from rag.errors import CitelineError
from rag.settings import Settings, load_settings


def test_environment_overrides_config_file_which_overrides_defaults(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('[citeline]\ncollection = "from-file"\ntop_k = 7\nllm = "none"\n')
    settings = load_settings(
        env={"CITELINE_TOP_K": "3", "CITELINE_DATA_DIR": str(tmp_path)}, config_file=config
    )
    assert (settings.collection, settings.top_k, settings.llm, settings.data_dir) == (
        "from-file",
        3,
        "none",
        tmp_path,
    )


def test_api_key_is_read_from_env_but_never_shown_in_repr(tmp_path):
    (tmp_path / "empty.toml").write_text("")
    settings = load_settings(env={"OPENAI_API_KEY": "sk-secret-123"}, config_file=tmp_path / "empty.toml")
    assert settings.api_key == "sk-secret-123"
    assert "sk-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("env", "toml", "message"),
    [
        ({"CITELINE_TOP_K": "many"}, "", "CITELINE_TOP_K: top_k must be int"),
        ({"CITELINE_LLM": "gpt"}, "", "llm must be one of"),
        ({}, "unknown_key = 1\n", "unknown setting 'unknown_key'"),
        ({}, "not toml [", "not valid TOML"),
        ({"CITELINE_TOP_K": "0"}, "", "CITELINE_TOP_K: top_k must be between 1 and 200, got 0"),
        ({"CITELINE_MIN_SIMILARITY": "2"}, "", "min_similarity must be between 0 and 1, got 2.0"),
        ({"CITELINE_MIN_SIMILARITY": "nan"}, "", "min_similarity must be a finite number"),
        ({"CITELINE_CHROMA_TIMEOUT": "-1"}, "", "chroma_timeout must be at least 0.1"),
        ({"CITELINE_CHUNK_TOKENS": "0"}, "", "chunk_tokens must be between 16 and 8192"),
        ({"CITELINE_CHUNK_TOKENS": "32"}, "", "chunk_overlap must be smaller than chunk_tokens"),
        ({}, "top_k = -1\n", "c.toml: top_k must be between 1 and 200"),
        ({}, "top_k = true\n", "top_k must be int"),
        ({"CITELINE_COLLECTION": "../../../tmp/x"}, "", "bad collection name '../../../tmp/x'"),
        ({"CITELINE_COLLECTION": "a..b"}, "", "bad collection name 'a..b'"),
        ({"CITELINE_COLLECTION": "ok-name,x/y*"}, "", "bad collection name 'x/y\\*'"),
    ],
)
def test_bad_settings_give_one_clear_error(tmp_path, env, toml, message):
    config = tmp_path / "c.toml"
    config.write_text(toml)
    with pytest.raises(CitelineError, match=message):
        load_settings(env=env, config_file=config)


def test_out_of_range_values_are_refused_however_they_are_set(tmp_path):
    from rag.settings import Settings

    with pytest.raises(CitelineError, match="top_k must be between 1 and 200, got 0"):
        Settings(data_dir=tmp_path).replace(top_k=0)
    with pytest.raises(CitelineError, match="bad collection name 'ab'"):
        Settings(data_dir=tmp_path, collection="ab")
    assert Settings(data_dir=tmp_path, collection="icml*,iclr2024").collection_names == ["icml*", "iclr2024"]


def test_a_relative_data_dir_is_made_absolute_so_every_process_names_one_state_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELINE_DATA_DIR", "rel/data")
    from rag.settings import load_settings

    settings = load_settings()
    assert settings.data_dir == tmp_path / "rel" / "data" and settings.data_dir.is_absolute()
    assert settings.replace(log=False).data_dir == tmp_path / "rel" / "data"


# Every variable citeline read before the settings were grouped: each must keep its name.
EARLIER_VARIABLES = {
    "CITELINE_DATA_DIR": "data_dir",
    "CITELINE_COLLECTION": "collection",
    "CITELINE_CHROMA_URL": "chroma_url",
    "CITELINE_CHROMA_TIMEOUT": "chroma_timeout",
    "CITELINE_EMBEDDING": "embedding",
    "CITELINE_EMBEDDING_CACHE": "embedding_cache",
    "CITELINE_CHUNK_TOKENS": "chunk_tokens",
    "CITELINE_CHUNK_OVERLAP": "chunk_overlap",
    "CITELINE_TOP_K": "top_k",
    "CITELINE_VENUE": "venue",
    "CITELINE_YEAR": "year",
    "CITELINE_STRONG_SIMILARITY": "strong_similarity",
    "CITELINE_MIN_SIMILARITY": "min_similarity",
    "CITELINE_MIN_COVERAGE": "min_coverage",
    "CITELINE_LISTING_MAX_PAPERS": "listing_max_papers",
    "CITELINE_SIMILARITY_MARGIN": "similarity_margin",
    "CITELINE_LLM": "llm",
    "CITELINE_VERIFY_ANSWERS": "verify_answers",
    "CITELINE_LLM_BASE_URL": "llm_base_url",
    "CITELINE_LLM_MODEL": "llm_model",
    "CITELINE_LOCAL_MODEL": "local_model",
    "CITELINE_LLM_IDLE_MINUTES": "llm_idle_minutes",
    "CITELINE_LLM_TIMEOUT": "llm_timeout",
    "CITELINE_LLM_RETRIES": "llm_retries",
    "CITELINE_LLM_MAX_TOKENS": "llm_max_tokens",
    "CITELINE_CONTEXT_TOKENS": "context_tokens",
    "CITELINE_LOG": "log",
    "OPENAI_API_KEY": "api_key",
}


def test_every_earlier_environment_variable_still_sets_its_setting():
    from rag.settings import ENVIRONMENT

    assert {var: ENVIRONMENT.get(var) for var in EARLIER_VARIABLES} == EARLIER_VARIABLES


def test_a_tuned_number_is_set_by_its_derived_variable_or_a_group_table_and_read_flat_or_grouped(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(
        "[citeline]\ntop_k = 6\n[citeline.topics]\nfence = 2.5\n[answer]\nanswer_coverage = 0.6\n"
    )
    settings = load_settings(env={"CITELINE_RRF_K": "30"}, config_file=config)
    assert (settings.rrf_k, settings.retrieval.rrf_k, settings.top_k) == (30, 30, 6)
    assert (settings.topic_fence, settings.topics.fence) == (2.5, 2.5)
    config.write_text("[topics]\nfence = 2.5\n[answer]\nanswer_coverage = 0.6\n")
    settings = load_settings(env={"CITELINE_TOPIC_FENCE": "3"}, config_file=config)
    assert (settings.topics.fence, settings.answer.answer_coverage) == (3.0, 0.6)


@pytest.mark.parametrize(
    ("env", "toml", "message"),
    [
        ({}, "[topics]\ntopic_fence = 2\n", "unknown setting 'topics.topic_fence'"),
        ({}, "[retrieval]\nfence = 2\n", "unknown setting 'retrieval.fence'"),
        ({}, 'api_key = "sk-x"\n', "unknown setting 'api_key'"),
        ({"CITELINE_TOPIC_FENCE": "-1"}, "", "CITELINE_TOPIC_FENCE: topic_fence must be between 0 and 100"),
        ({}, "[topics]\nneighbours = 0\n", "c.toml: topic_neighbours must be between 1 and 1000, got 0"),
        ({"CITELINE_RRF_K": "1.5"}, "", "CITELINE_RRF_K: rrf_k must be int, got '1.5'"),
    ],
)
def test_bad_grouped_settings_give_one_clear_error(tmp_path, env, toml, message):
    config = tmp_path / "c.toml"
    config.write_text(toml)
    with pytest.raises(CitelineError, match=message):
        load_settings(env=env, config_file=config)


def test_every_setting_is_described_and_every_number_bounded():
    from rag.settings import SPECS

    assert [name for name, spec in SPECS.items() if not spec.description] == []
    numbers = [s for s in SPECS.values() if s.kind in (int, float) and s.name != "year"]
    assert [s.flat for s in numbers if s.low is None and s.high is None] == []


def test_settings_are_frozen_and_replace_ignores_none(tmp_path):
    import dataclasses

    settings = Settings(data_dir=tmp_path, topic_fence=2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.topics.fence = 3.0  # type: ignore[misc]
    changed = settings.replace(top_k=9, topic_fence=None, llm=None)
    assert (changed.top_k, changed.topic_fence, changed.llm, settings.top_k) == (9, 2.0, "auto", 4)
    assert changed.replace() == changed and changed != settings


def test_the_readme_lists_the_settings_as_declared():
    from pathlib import Path

    from rag.settings import readme_with_table

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert readme == readme_with_table(readme), (
        "the README's settings table is stale: python -m rag.settings README.md"
    )
