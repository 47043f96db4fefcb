"""The command line's own help: a version, an example under every verb, defaults that are shown."""

import re

import typer
from typer.testing import CliRunner

import cli
from rag import __version__

RUNNER = CliRunner()


def _verbs(group: typer.Typer, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the app: ("ask",), ("papers", "show"), ("log",) ..."""
    found = [(*prefix, c.name or c.callback.__name__) for c in group.registered_commands]
    for sub in group.registered_groups:
        found.append((*prefix, sub.name))
        found += _verbs(sub.typer_instance, (*prefix, sub.name))
    return found


def _help(*path: str) -> str:
    result = RUNNER.invoke(cli.app, [*path, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_version_prints_the_package_version():
    result = RUNNER.invoke(cli.app, ["--version"])
    assert result.exit_code == 0 and result.output == f"citeline {__version__}\n"


def test_every_verbs_help_ends_with_an_example_command():
    verbs = _verbs(cli.app)
    assert {("ask",), ("search",), ("papers", "show"), ("log",), ("log", "show"), ("mcp",)} <= set(verbs)
    for path in verbs:
        assert re.search(r"Examples?: citeline ", _help(*path)), path


def test_the_k_and_llm_defaults_and_their_variables_are_shown_alike_in_every_verb():
    for verb in ("search", "ask", "chat"):
        assert "Papers to retrieve, 1-200. Default: CITELINE_TOP_K, else 4." in _help(verb), verb
    for verb in ("ask", "summarize", "chat", "mcp"):
        assert "Default: CITELINE_LLM, else auto." in _help(verb), verb


def test_ask_all_asks_for_the_top_of_the_listing_settings_range():
    import cli
    from rag.settings import MAX_PAPERS_RANGE

    assert MAX_PAPERS_RANGE[1] == cli.MOST_PAPERS


def test_a_collection_option_given_twice_reads_both_collections():
    """ "-c a -c b" read only b (the last value of a plain option): now both, as "-c a,b"."""
    assert cli._settings(collection=["iclr2022", "iclr2023"]).collection == "iclr2022,iclr2023"
    assert cli._settings(collection=None).collection == cli._settings().collection


def test_an_unknown_retrieval_mode_is_a_usage_error_before_any_work_and_case_does_not_matter():
    from rag.retrieval import MODES

    assert cli.RETRIEVAL_MODES == MODES
    bad = RUNNER.invoke(cli.app, ["ask", "x", "--mode", "foo"], env={"NO_COLOR": "1"})
    assert bad.exit_code == 2 and "'foo' is not one of hybrid, dense, bm25" in " ".join(bad.output.split())
    assert cli._retrieval_mode("BM25") == "bm25" and cli._retrieval_modes("Hybrid, dense") == "hybrid,dense"
    bad = RUNNER.invoke(cli.app, ["eval", "--mode", "hybrid,fuzzy", "--llm", "NONE"], env={"NO_COLOR": "1"})
    assert bad.exit_code == 2 and "'fuzzy' is not one of" in " ".join(bad.output.split())


def test_an_unknown_llm_setting_is_a_usage_error_before_any_work_and_case_does_not_matter():
    from rag.settings import LLM_CHOICES

    assert cli.LLM_KINDS == LLM_CHOICES
    bad = RUNNER.invoke(cli.app, ["ask", "x", "--llm", "foo"], env={"NO_COLOR": "1"})
    assert bad.exit_code == 2 and "'foo' is not one of auto, local, openai, none" in " ".join(
        bad.output.split()
    )
    assert cli._llm_kind(" NONE ") == "none" and cli._llm_kind(None) is None
    bad = RUNNER.invoke(cli.app, ["eval", "--llm", "none,foo"], env={"NO_COLOR": "1"})  # eval's list too
    assert bad.exit_code == 2 and "'foo' is not one of" in " ".join(bad.output.split())
    assert cli._llm_kinds("NONE, Local") == "none,local"


def test_the_citation_format_is_read_in_any_case_as_the_model_kind_is():
    assert cli._cite_format("BibTeX") == "bibtex" and cli._cite_format(None) is None
    bad = RUNNER.invoke(cli.app, ["ask", "x", "--cite", "ris"], env={"NO_COLOR": "1"})
    assert bad.exit_code == 2 and "the one citation format is bibtex" in " ".join(bad.output.split())
