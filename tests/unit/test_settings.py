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
    ],
)
def test_bad_settings_give_one_clear_error(tmp_path, env, toml, message):
    config = tmp_path / "c.toml"
    config.write_text(toml)
    with pytest.raises(CitelineError, match=message):
        load_settings(env=env, config_file=config)
