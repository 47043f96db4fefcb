"""The installed ``citeline`` command, run as a user would (subprocess, real index)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from ..conftest import SEED_DIR_VARIABLE, copy_index


def run(args, settings, stdin=None, extra_env=None, timeout=600):
    """``citeline ARGS`` on ``settings``' data dir; on the session's seed index, query commands go
    to its warm process (see ``seed_settings``)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}  # the tests' own keys only
    if str(settings.data_dir) == os.environ.get(SEED_DIR_VARIABLE):
        env["CITELINE_SERVE_IDLE_MINUTES"] = "10"
    env.update({"CITELINE_DATA_DIR": str(settings.data_dir), "CITELINE_LLM": "none", **(extra_env or {})})
    return subprocess.run(
        ["citeline", *args], input=stdin, capture_output=True, text=True, env=env, timeout=timeout
    )


def at_once(calls):
    """Each of ``calls`` (functions of no arguments, such as a lambda around :func:`run`) at the same
    time, as many as there are cores; their results in the order given. Only for commands that are
    independent of each other: none reads what another writes, and they share no answer log (pass
    ``--no-log``, or run commands that log nothing). Each command is still its own process and is
    checked as before; only their start-ups overlap."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(lambda call: call(), calls))


def run_each(commands, settings, extra_env=None) -> list[subprocess.CompletedProcess]:
    """:func:`run` for every argument list in ``commands``, :func:`at_once`."""
    return at_once([lambda args=args: run(args, settings, extra_env=extra_env) for args in commands])


def test_help_answers_quickly_without_importing_heavy_libraries(seed_settings):
    started = time.perf_counter()
    result = run(["--help"], seed_settings)
    assert result.returncode == 0 and "ingest" in result.stdout and "chat" in result.stdout
    assert time.perf_counter() - started < 5  # the real figure is in bench/; this only catches regressions
    heavy = "('chromadb', 'langchain_core', 'onnxruntime', 'llama_cpp', 'xllamacpp')"
    probe = f"import sys, cli; print(sorted(m for m in {heavy} if m in sys.modules))"
    assert subprocess.run(["python", "-c", probe], capture_output=True, text=True).stdout.strip() == "[]"


def test_search_json_ranks_adascale_first(seed_settings):
    result = run(
        ["search", "adaptive percentile threshold for OOD activation scaling", "--json"], seed_settings
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert (
        hits[0]["id"] == "000-02" and hits[0]["source"] == "000_888317b1d60d9493.txt" and hits[0]["line"] == 5
    )


def test_papers_list_and_show_one_or_several(seed_settings):
    listed, shown, several, several_json = run_each(
        [["papers", "list", "--json"], ["papers", "show", "003-01"], ["papers", "show", "003-01", "000-02"],
         ["papers", "show", "003-01", "000-02", "003-01", "--json"]],
        seed_settings,
    )  # fmt: skip
    listed = json.loads(listed.stdout)
    assert len(listed) == 57
    assert (
        shown.returncode == 0
        and "sandbagging" in shown.stdout
        and "003_354298e4bcd67e6b.txt:3" in shown.stdout
    )
    assert several.stdout.startswith(shown.stdout) and "000_888317b1d60d9493.txt:5" in several.stdout
    assert [p["id"] for p in json.loads(several_json.stdout)] == ["003-01", "000-02"]  # each once, in order


def test_an_abstract_with_inline_math_is_shown_as_readable_text(seed_settings):
    shown = run(["papers", "show", "000-07"], seed_settings)
    assert shown.returncode == 0, shown.stderr
    assert "γ = ‖μ‖/‖σ‖" in shown.stdout and "Spearman ρ = 0.89" in shown.stdout
    assert "\\boldsymbol" not in shown.stdout and "\\rho" not in shown.stdout


def test_papers_show_takes_openreview_ids_starting_with_a_dash_in_the_order_given(seed_settings, tmp_path):
    records = [
        {
            "id": "-mWcQVLPSPy",
            "title": "Isometric propagation",
            "abstract": "We propose IPN for zero-shot learning.",
        },
        {"id": "zz1", "title": "Another paper", "abstract": "We study graph coarsening."},
    ]
    (tmp_path / "dash.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert run(["ingest", str(tmp_path / "dash.jsonl"), "-c", "dash"], seed_settings).returncode == 0
    for args in (
        ["-mWcQVLPSPy", "zz1", "-c", "dash", "--json"],
        ["-c", "dash", "-mWcQVLPSPy", "--json", "zz1"],
    ):
        shown = run(["papers", "show", *args], seed_settings)
        assert shown.returncode == 0, shown.stderr  # not "-m -W -c QVLPSPy"
        assert [p["id"] for p in json.loads(shown.stdout)] == ["-mWcQVLPSPy", "zz1"]  # as given
    reversed_ = run(["papers", "show", "zz1", "-mWcQVLPSPy", "--collection", "dash", "--json"], seed_settings)
    assert [p["id"] for p in json.loads(reversed_.stdout)] == ["zz1", "-mWcQVLPSPy"]


def test_bad_input_gives_one_line_error_and_nonzero_exit(seed_settings, tmp_path):
    for ids in (["nope"], ["000-02", "nope"]):  # with a known one: nothing of it is printed either
        missing = run(["papers", "show", *ids], seed_settings)
        assert missing.returncode == 1 and missing.stdout == ""
        assert missing.stderr.strip() == "error: no paper with id 'nope' in collection 'default'"
    for dashed in ("-qh0M9XWxnv", "-mWcQVLPSPy"):  # OpenReview ids, not options (not "-m -W -c QVLPSPy")
        shown = run(["papers", "show", dashed, "-c", "default"], seed_settings)
        # (another test may have put it in a collection of its own: then the error says which)
        said = f"error: no paper with id '{dashed}' in collection 'default'"
        assert re.fullmatch(
            re.escape(said) + r"(; it is in collection '[\w-]+' \(-c [\w-]+\))?", shown.stderr.strip()
        )
    typo = run(["papers", "show", "000-02", "--jsn"], seed_settings)  # a mistyped option is still one
    assert typo.returncode != 0 and "No such option: --jsn" in typo.stderr
    binary = tmp_path / "x.txt"
    binary.write_bytes(b"\x00\x01")
    result = run(["ingest", str(binary), "--collection", "bad"], seed_settings)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "nothing could be ingested" in result.stderr.strip().splitlines()[-1]
    unknown = run(["search", "x", "--collection", "bad"], seed_settings)  # no empty collection was left
    assert unknown.returncode == 1 and "no collection named 'bad'" in unknown.stderr
    mode = run(["search", "x", "--mode", "fuzzy"], seed_settings)  # a usage error, as typer's are
    assert mode.returncode == 2 and "'fuzzy' is not one of hybrid, dense, bm25" in mode.stderr


def test_ask_json_without_llm_cites_the_entry_with_provenance(seed_settings):
    result = run(["ask", "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?", "--json"], seed_settings)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert not answer["abstained"] and "14.94" in answer["answer"]
    assert {(c["id"], c["source"], c["line"]) for c in answer["citations"]} == {
        ("000-02", "000_888317b1d60d9493.txt", 5)
    }
    assert set(answer) >= {"answer", "abstained", "citations", "retrieved", "model", "timings"}
    assert answer["prompt_tokens"] == 0  # no model read a prompt


def test_a_mixed_case_name_is_matched_as_a_name_and_its_acronym_spelled_out(seed_settings):
    # "TraCeS" stems to the common word "trace": only its shape makes it a name.
    result = run(["ask", "What is TraCeS short for?", "--json"], seed_settings)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert not answer["abstained"] and [c["id"] for c in answer["citations"]] == ["003-13"]
    assert "Trajectory-based Constraint Estimation for Safety" in answer["answer"]


def test_a_near_miss_sharing_only_a_name_is_declined_not_quoted(seed_settings):
    # A paper reports death rates "on AlphaFold3"; none proposes a model that outperforms it.
    question = "Which paper proposes a new protein structure prediction model that outperforms AlphaFold3?"
    answer = json.loads(run(["ask", question, "--json"], seed_settings).stdout)
    assert answer["abstained"] and answer["citations"] == []


def test_ask_abstains_on_a_question_the_papers_cannot_answer(seed_settings):
    answer = json.loads(
        run(["ask", "What accuracy does GPT-5 reach on MMLU?", "--json"], seed_settings).stdout
    )
    assert answer["abstained"] and answer["citations"] == []


def test_chat_is_drivable_through_a_pipe(seed_settings):
    lines = [
        "/help",
        "What is sandbagging detection based on?",
        "/sources",
        "/show 003-01",
        "/reset",
        "/bogus",
    ]
    script = "\n".join([*lines, "/exit", "never read", ""])
    result = run(["chat"], seed_settings, stdin=script)
    assert result.returncode == 0, result.stderr
    assert "/sources" in result.stdout and "[003-01]" in result.stdout
    assert "Conversation cleared." in result.stdout and "unknown command /bogus" in result.stderr
    assert "never read" not in result.stdout
    assert "What is sandbagging detection based on?" in (seed_settings.data_dir / "chat_history").read_text()


def test_first_command_on_an_empty_data_dir_ingests_the_bundled_corpus(tmp_path):
    from rag.settings import Settings

    settings = Settings(data_dir=tmp_path / "fresh")
    result = run(["search", "sandbagging", "--json"], settings)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["id"] == "003-01"
    assert "indexed the bundled ICML 2026 corpus: 57 papers" in result.stderr


def test_answers_are_logged_searchable_and_continued_unless_logging_is_off(seed_settings, tmp_path):
    settings = copy_index(seed_settings, tmp_path / "data")  # a private copy: this test's log is its own
    first = json.loads(run(["ask", "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?", "--json"],
                           settings).stdout)  # fmt: skip
    follow, _, _ = at_once(  # the two that log nothing alongside the follow-up
        [lambda: run(["ask", "--continue", "Which dataset was that on?", "--json"], settings),
         lambda: run(["summarize", "watermarking", "--no-log"], settings),
         lambda: run(["ask", "What is OptFS?", "--json"], settings, extra_env={"CITELINE_LOG": "false"})]
    )  # fmt: skip
    assert follow.returncode == 0, follow.stderr
    listed = json.loads(run(["log", "--json"], settings).stdout)
    assert [e["question"] for e in listed] == [
        "Which dataset was that on?",
        "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?",
    ]
    assert listed[0]["conversation"] == listed[1]["conversation"]  # --continue kept the conversation
    found = json.loads(run(["log", "-q", "adascale optfs", "--json"], settings).stdout)
    # Newest first; the follow-up is logged with its standalone question, which names both methods.
    assert [e["id"] for e in found] == [listed[0]["id"], listed[1]["id"]]
    assert listed[0]["standalone"].startswith("By how much does AdaSCALE beat OptFS")
    shown = run(["log", "show", str(listed[1]["id"])], settings, extra_env={"COLUMNS": "200"})
    assert first["answer"].split()[0] in shown.stdout and "000_888317b1d60d9493.txt:5" in shown.stdout
    run(["chat"], settings, stdin="What is AdaSCALE?\nWhat does OptFS do?\n")
    chat = json.loads(run(["log", "-n", "2", "--json"], settings).stdout)
    assert [e["kind"] for e in chat] == ["chat", "chat"] and chat[0]["conversation"] == chat[1][
        "conversation"
    ]
    assert chat[0]["conversation"] != listed[0]["conversation"]
    missing = run(["log", "show", "999"], settings)
    assert missing.returncode == 1 and missing.stderr.startswith("error: no log entry 999")


def test_bibtex_for_a_paper_an_answer_and_a_summary(seed_settings):
    question = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"
    entry, answer, summary, bad = run_each(
        [
            ["papers", "show", "000-02", "--bibtex"],
            ["ask", question, "--cite", "bibtex", "--json", "--no-log"],
            ["summarize", "watermarking", "--cite", "bibtex", "--no-log"],
            ["ask", "x?", "--cite", "ris"],  # refused before it could answer or log
        ],
        seed_settings,
    )
    entry, summary = entry.stdout, summary.stdout
    assert entry.startswith("@misc{adascale2026,") and "note = {citeline entry 000-02, " in entry
    answer = json.loads(answer.stdout)
    assert answer["bibtex"].count("@misc{") == len({c["id"] for c in answer["citations"]}) >= 1
    assert "BibTeX" in summary and "@misc{" in summary
    assert bad.returncode == 2 and "bibtex" in bad.stderr


def _private_copy(seed_settings, tmp_path):
    """Settings over a copy of the seed index with an empty log (the test's log is its own)."""
    return copy_index(seed_settings, tmp_path / "data")


def test_a_follow_up_without_a_model_is_answered_from_the_papers_cited_before_or_refused(
    seed_settings, tmp_path
):
    settings = _private_copy(seed_settings, tmp_path)
    first = json.loads(run(["ask", "What is GenAlign?", "--json"], settings).stdout)
    assert [c["id"] for c in first["citations"]] == ["000-01"]
    follow = json.loads(run(["ask", "-C", "Does it use reinforcement learning?", "--json"], settings).stdout)
    assert [c["id"] for c in follow["citations"]] == ["000-01"] and "reinforcement learning" in follow[
        "answer"
    ]
    assert follow["standalone_question"] == "What is GenAlign? Does it use reinforcement learning?"
    fragment = json.loads(
        run(["ask", "-C", "and how many MLLMs does it improve?", "--json"], settings).stdout
    )
    assert [c["id"] for c in fragment["citations"]] == ["000-01"] and "three MLLMs" in fragment["answer"]
    # A follow-up the papers cited before do not speak to is refused, not answered from others.
    elsewhere = json.loads(run(["ask", "-C", "What about watermarking?", "--json"], settings).stdout)
    assert elsewhere["abstained"] and elsewhere["citations"] == []
    assert elsewhere["answer"].startswith("The papers cited before (000-01) do not answer this follow-up")


def test_a_follow_up_with_no_conversation_to_lean_on_is_refused_with_how_to_ask_not_answered(
    seed_settings, tmp_path
):
    settings = _private_copy(seed_settings, tmp_path)  # an empty log: nothing to continue
    fresh = run(["ask", "-C", "and on which benchmark?", "--json"], settings)
    assert "no logged conversation to continue" in fresh.stderr
    for result in (fresh, run(["ask", "does it need retraining?", "--json"], settings)):
        answer = json.loads(result.stdout)
        assert (
            answer["abstained"]
            and answer["citations"] == []
            and "ask it as a full question" in answer["answer"]
        )
    # A full question that says "it" is answered as before.
    full = json.loads(run(["ask", "Does Neural Honeytrace need to retrain the model it protects?", "--json"],
                          settings).stdout)  # fmt: skip
    assert [c["id"] for c in full["citations"]] == ["003-09"]


def test_piped_chat_leaves_at_exit_and_shows_an_over_long_line_cut(seed_settings):
    script = "x" * 5000 + "\nexit\nnever asked\n"
    result = run(["chat", "--no-log"], seed_settings, stdin=script)
    assert "the question is 5,000 characters long" in result.stderr
    assert "x" * 500 + "…" in result.stdout.replace("\n", "") and "x" * 600 not in result.stdout.replace(
        "\n", ""
    )
    assert "never asked" not in result.stdout


def test_chat_without_a_model_takes_the_second_one_as_the_second_paper_listed(seed_settings):
    script = "Which papers study differential privacy?\nwhat does the second one do?\nand the tenth one?\n"
    result = run(["chat", "--no-log"], seed_settings, stdin=script, extra_env={"COLUMNS": "300"})
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split("> what does the second one do?")[0]
    lines = [line for line in listed.splitlines() if line.startswith("- ")]
    key = lines[1].rsplit("[", 1)[1].split("]")[0]
    follow_up, tenth = result.stdout.split("> what does the second one do?")[1].split("> and the tenth one?")
    assert f"[{key}]" in follow_up and "Sources\n 1. " in follow_up and " 2. " not in follow_up
    # Past the end of the list: said so, not the listing asked again with the follow-up as its topic
    assert f"The latest list named {len(lines)} papers, so there is no tenth one" in tenth
    assert "- " not in tenth


def test_chat_without_a_model_resolves_an_elliptic_follow_up_against_the_conversation(seed_settings):
    script = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?\nand on which benchmark?\n"
    result = run(["chat", "--no-log"], seed_settings, stdin=script, extra_env={"COLUMNS": "300"})
    assert result.returncode == 0, result.stderr
    follow_up = result.stdout.split("> and on which benchmark?")[1]
    assert "ImageNet-1k benchmark" in follow_up and "[000-02]" in follow_up
    assert "Sources\n 1. [000-02] AdaSCALE" in follow_up and " 2. " not in follow_up


def test_log_shows_collection_and_conversation_filters_and_cid_continues_any_conversation(
    seed_settings, tmp_path
):
    settings = _private_copy(seed_settings, tmp_path)
    run(["ask", "What is GenAlign?"], settings)
    first = json.loads(run(["log", "--json"], settings).stdout)[0]
    run(["ask", "What does the sandbagging detection framework exploit?"], settings)  # now the last one
    follow = run(["ask", "--cid", first["conversation"], "Does it use reinforcement learning?", "--json"],
                 settings)  # fmt: skip
    assert [c["id"] for c in json.loads(follow.stdout)["citations"]] == ["000-01"], follow.stderr
    run(["chat", "--cid", first["conversation"]], settings, stdin="and how many MLLMs does it improve?\n")
    talk = json.loads(run(["log", "--cid", first["conversation"], "--json"], settings).stdout)
    assert [(e["kind"], e["question"]) for e in talk] == [
        ("chat", "and how many MLLMs does it improve?"),
        ("ask", "Does it use reinforcement learning?"),
        ("ask", "What is GenAlign?"),
    ]
    # Reads and refusals from here on: none changes the log, so they run at once.
    chats, other, table, bad, missing = at_once(
        [lambda: run(["log", "--kind", "chat", "--json"], settings),
         lambda: run(["log", "-c", "icml2024", "--json"], settings),
         lambda: run(["log"], settings, extra_env={"COLUMNS": "250"}),
         lambda: run(["log", "--kind", "talk"], settings),
         lambda: run(["ask", "--cid", "0123456789ab", "x?"], settings)]
    )  # fmt: skip
    assert [e["id"] for e in json.loads(chats.stdout)] == [talk[0]["id"]]
    assert json.loads(other.stdout) == []
    table = table.stdout
    header = table.splitlines()[0].split()
    assert header == ["#", "Time", "Kind", "Collection", "Conversation", "Question", "Papers", "Model"]
    row = next(line for line in table.splitlines() if "What is GenAlign?" in line).split()
    assert row[4:6] == ["default", first["conversation"]] and row[-1] == "none"
    assert "none (extractive)" not in table and "no model call" not in table
    assert bad.returncode != 0 and "use one of ask, chat, mcp, summarize" in bad.stderr
    assert missing.returncode == 1 and missing.stderr.startswith(
        "error: no logged conversation '0123456789ab'"
    )
