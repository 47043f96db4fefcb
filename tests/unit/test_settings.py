import pytest

from rag.errors import CitelineError
from rag.settings import load_settings


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
