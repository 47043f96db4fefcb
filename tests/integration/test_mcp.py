"""``citeline mcp`` through the official SDK's client, over a real stdio subprocess."""

from __future__ import annotations

import json
import os
import tempfile

import anyio
import pytest

from rag import __version__
from rag.text import plain_text

from ..conftest import copy_index
from .test_cli import run

pytest.importorskip("mcp")


def _server(data_dir, env):
    """How the SDK's client starts ``citeline mcp`` on ``data_dir`` (extractive answers by default)."""
    from mcp.client.stdio import StdioServerParameters

    environment = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    environment.update({"CITELINE_DATA_DIR": str(data_dir), "CITELINE_LLM": "none", **env})
    return StdioServerParameters(command="citeline", args=["mcp"], env=environment)


async def _session_calls(data_dir, env, calls):
    """``calls`` one after another; their results, the tools listed, and the server's stderr."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    results = {}
    with tempfile.TemporaryFile("w+") as stderr:
        client = stdio_client(_server(data_dir, env), errlog=stderr)
        async with client as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            results["tools"] = (await session.list_tools()).tools
            for name, (tool, arguments) in calls.items():
                results[name] = await session.call_tool(tool, arguments)
        stderr.seek(0)
        results["stderr"] = stderr.read()
    return results


async def _parallel_calls(data_dir, env, calls):
    """``calls`` (tool, arguments) all at once, right after ``initialize``; the results and stderr."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    with tempfile.TemporaryFile("w+") as stderr:
        client = stdio_client(_server(data_dir, env), errlog=stderr)
        async with client as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            results = [None] * len(calls)

            async def call(index, tool, arguments):
                results[index] = await session.call_tool(tool, arguments)

            async with anyio.create_task_group() as group:
                for index, (tool, arguments) in enumerate(calls):
                    group.start_soon(call, index, tool, arguments)
        stderr.seek(0)
        return results, stderr.read()


def _data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_every_tool_answers_over_stdio_and_failures_are_one_line_tool_errors(seed_settings):
    calls = {
        "search": (
            "search_papers",
            {"query": "adaptive percentile threshold for OOD activation scaling", "k": 3},
        ),
        "ask": ("ask", {"question": "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"}),
        "listing": ("ask", {"question": "Which papers study watermarking?", "max_papers": 2}),
        "paper": ("get_paper", {"id": "000-02"}),
        "summary": ("summarize_topic", {"topic": "watermarking", "max_papers": 5}),
        "collections": ("list_collections", {}),
        "bad_id": ("get_paper", {"id": "nope"}),
        "bad_collection": ("search_papers", {"query": "x", "collection": "icml2042"}),
        "bad_name": ("ask", {"question": "x?", "collection": "../../etc"}),
    }
    results = anyio.run(_session_calls, seed_settings.data_dir, {"CITELINE_LOG": "false"}, calls)
    tools = {t.name: t for t in results["tools"]}
    assert set(tools) == {
        "search_papers", "ask", "get_paper", "summarize_topic", "list_collections", "check_claims",
    }  # fmt: skip
    assert all(len(t.description) > 80 for t in tools.values())  # descriptions a model can act on
    assert set(tools["search_papers"].input_schema["properties"]) == {
        "query",
        "k",
        "venue",
        "year",
        "collection",
    }

    hits = _data(results["search"])["papers"]
    assert (
        hits[0]["id"] == "000-02" and hits[0]["source"] == "000_888317b1d60d9493.txt" and hits[0]["line"] == 5
    )
    answer = _data(results["ask"])
    assert "14.94" in answer["answer"] and not answer["abstained"]
    assert (
        answer["citations"][0] | {"id": "000-02", "line": 5, "venue": "ICML", "year": 2026}
        == answer["citations"][0]
    )
    listing = _data(results["listing"])  # an agent can ask for fewer (or more) papers than 30
    assert listing["mode"] == "listing" and len(listing["citations"]) == 2
    assert listing["found"] > 2 and answer["found"] is None  # the count, without parsing the prose
    assert "showing the 2 closest" in listing["answer"].splitlines()[0]
    assert "max_papers" in tools["ask"].input_schema["properties"]
    paper = _data(results["paper"])
    assert paper["label"] == "AdaSCALE" and "OptFS" in paper["abstract"]
    summary = _data(results["summary"])
    assert summary["markdown"].startswith("# watermarking") and summary["citations"]
    assert {"name": "default", "chunks": 104} in _data(results["collections"])["collections"]

    for name, message in [
        ("bad_id", "error: no paper with id 'nope' in collection 'default'"),
        ("bad_collection", "error: no collection named 'icml2042'"),
        ("bad_name", "error: bad collection name '../../etc'"),
    ]:
        result = results[name]
        text = result.content[0].text  # the CLI's line, one "error:" prefix and nothing before it
        assert result.is_error and text.startswith(message) and "\n" not in text


def test_check_claims_over_stdio_returns_the_cli_verdicts_with_evidence_and_suggestions(
    seed_settings, tmp_path
):
    from .test_check_cli import DRAFT

    calls = {
        "check": ("check_claims", {"draft": DRAFT, "kind": "md"}),
        "bad_bib": (
            "check_claims",
            {"draft": "A claim \\cite{a}.", "kind": "tex", "bib": "@article{a, title={x}"},
        ),
        "bad_kind": ("check_claims", {"draft": DRAFT, "kind": "docx"}),
        "no_citation": ("check_claims", {"draft": "Nothing is cited here."}),
    }
    results = anyio.run(_session_calls, seed_settings.data_dir, {"CITELINE_LOG": "false"}, calls)
    tool = next(t for t in results["tools"] if t.name == "check_claims")
    assert tool.output_schema and all(
        spec.get("description") for spec in tool.output_schema["$defs"]["CheckedClaim"]["properties"].values()
    )
    checked = _data(results["check"])
    draft = tmp_path / "related.md"
    draft.write_text(DRAFT, encoding="utf-8")
    cli = json.loads(run(["check", str(draft), "--json", "--llm", "none"], seed_settings).stdout)
    assert checked["failed"] is True
    assert [(c["line"], c["verdict"]) for c in checked["claims"]] == [
        (c["line"], c["verdict"]) for c in cli["claims"]
    ]
    supported, wrong, altered = checked["claims"]
    assert supported["evidence"]["source"].endswith(".txt") and supported["evidence"]["line"] > 0
    assert (supported["evidence"]["venue"], supported["evidence"]["year"]) == ("ICML", 2026)  # as any paper
    assert DRAFT[supported["start"] : supported["end"]].startswith("AdaSCALE adapts")
    assert wrong["suggestions"][0]["id"] == "000-07" and "25.00" in altered["missing"]
    for name, message in [
        ("bad_bib", "error: refs.bib: line 1"),
        ("bad_kind", "error: unknown draft kind 'docx'"),
        ("no_citation", "error: draft: no citations found"),
    ]:
        result = results[name]
        assert result.is_error and result.content[0].text.startswith(message), result.content[0].text


def test_an_answer_through_mcp_is_the_cli_answer(seed_settings):
    question = "What does the sandbagging detection framework exploit?"
    results = anyio.run(
        _session_calls,
        seed_settings.data_dir,
        {"CITELINE_LOG": "false"},
        {"ask": ("ask", {"question": question})},
    )
    through_mcp = _data(results["ask"])
    cli = json.loads(run(["ask", question, "--json", "--no-log"], seed_settings).stdout)
    assert through_mcp["answer"] == plain_text(cli["answer"], symbols=True)  # the same answer, math typeset
    assert [c["id"] for c in through_mcp["citations"]] == [c["id"] for c in cli["citations"]]


def test_the_embedded_models_server_answers_through_mcp(seed_settings, llm_server_url):
    env = {"CITELINE_LLM": "openai", "CITELINE_LLM_BASE_URL": llm_server_url, "CITELINE_LOG": "false"}
    question = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"
    results = anyio.run(_session_calls, seed_settings.data_dir, env, {"ask": ("ask", {"question": question})})
    answer = _data(results["ask"])
    assert "14.94" in answer["answer"] and any(c["id"] == "000-02" for c in answer["citations"])


def test_stdout_carries_protocol_messages_only_even_on_first_use_ingest(tmp_path):
    import subprocess

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
         "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_papers",
         "arguments": {"query": "watermarking", "k": 2}}},
    ]  # fmt: skip
    env = {**os.environ, "CITELINE_DATA_DIR": str(tmp_path / "fresh"), "CITELINE_LLM": "none"}
    process = subprocess.Popen(["citeline", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        replies = []
        while len(replies) < 2:  # every stdout line must be a JSON-RPC message
            line = process.stdout.readline()
            assert line, process.stderr.read()
            replies.append(json.loads(line))
    finally:
        process.stdin.close()
        process.wait(timeout=60)
    assert [r.get("id") for r in replies] == [1, 2]
    assert "watermark" in replies[1]["result"]["content"][0]["text"].lower()
    assert process.stdout.read() == ""


def test_parallel_calls_right_after_initialize_all_answer(seed_settings):
    calls = [("get_paper", {"id": paper_id}) for paper_id in ("000-02", "003-01", "000-01")]
    results, stderr = anyio.run(_parallel_calls, seed_settings.data_dir, {"CITELINE_LOG": "false"}, calls)
    assert not any(r.is_error for r in results), stderr
    assert [_data(r)["id"] for r in results] == ["000-02", "003-01", "000-01"]
    assert "Traceback" not in stderr


def test_every_one_of_ten_concurrent_asks_is_logged(seed_settings, tmp_path):
    import sqlite3

    data_dir = copy_index(seed_settings, tmp_path / "data").data_dir  # a private copy: its log is its own
    questions = [f"What does AdaSCALE do, asked for the {n}th time?" for n in range(10)]
    calls = [("ask", {"question": question}) for question in questions]
    results, stderr = anyio.run(_parallel_calls, data_dir, {"CITELINE_LOG": "true"}, calls)
    assert not any(r.is_error for r in results), stderr
    assert "warning" not in stderr.lower()
    rows = sqlite3.connect(data_dir / "logs.sqlite").execute("SELECT kind, question FROM entries").fetchall()
    assert sorted(rows) == sorted(("mcp", question) for question in questions)


def test_out_of_range_numbers_are_one_line_tool_errors_and_every_argument_is_described(seed_settings):
    calls = {
        "k_negative": ("search_papers", {"query": "watermarking", "k": -1}),
        "k_zero": ("search_papers", {"query": "watermarking", "k": 0}),
        "k_huge": ("search_papers", {"query": "watermarking", "k": 10**9}),
        "k_text": ("search_papers", {"query": "watermarking", "k": "many"}),
        "ask_k_negative": ("ask", {"question": "By how much does AdaSCALE beat OptFS?", "k": -1}),
        "ask_k_huge": ("ask", {"question": "By how much does AdaSCALE beat OptFS?", "k": 10**9}),
        "no_papers": ("summarize_topic", {"topic": "watermarking", "max_papers": 0}),
        "negative_papers": ("summarize_topic", {"topic": "watermarking", "max_papers": -3}),
        "too_many_papers": ("summarize_topic", {"topic": "watermarking", "max_papers": 10**6}),
        "ask_too_many": ("ask", {"question": "Which papers study watermarking?", "max_papers": 10**6}),
        "year_huge": ("search_papers", {"query": "watermarking", "year": 10**30}),
    }
    results = anyio.run(_session_calls, seed_settings.data_dir, {"CITELINE_LOG": "false"}, calls)
    expected = {
        "k_negative": "error: k must be between 1 and 200, got -1",
        "k_zero": "error: k must be between 1 and 200, got 0",
        "k_huge": "error: k must be between 1 and 200, got 1000000000",
        "k_text": "error: k must be an integer, got 'many'",
        "ask_k_negative": "error: k must be between 1 and 200, got -1",
        "ask_k_huge": "error: k must be between 1 and 200, got 1000000000",
        "no_papers": "error: max_papers must be between 1 and 100000, got 0",
        "negative_papers": "error: max_papers must be between 1 and 100000, got -3",
        "too_many_papers": "error: max_papers must be between 1 and 100000, got 1000000",
        "ask_too_many": "error: max_papers must be between 1 and 100000, got 1000000",
        "year_huge": f"error: year must be between 1 and 9999, got {10**30}",
    }
    assert {name: (results[name].is_error, results[name].content[0].text) for name in expected} == {
        name: (True, message) for name, message in expected.items()
    }
    assert "Traceback" not in results["stderr"]

    tools = {t.name: t.input_schema for t in results["tools"]}
    for name, schema in tools.items():
        for argument, spec in schema["properties"].items():
            assert len(spec.get("description", "")) > 10, (name, argument)
    for name in ("search_papers", "ask"):
        k = tools[name]["properties"]["k"]
        assert (k["minimum"], k["maximum"], k["default"]) == (1, 200, seed_settings.top_k)
    max_papers = tools["summarize_topic"]["properties"]["max_papers"]
    assert (max_papers["minimum"], max_papers["maximum"], max_papers["default"]) == (1, 100_000, 30)
    listed = tools["ask"]["properties"]["max_papers"]  # optional: the configured listing_max_papers
    assert {"minimum": 1, "maximum": 100_000, "type": "integer"} in listed["anyOf"]


def _raw_session(env, messages, close_stdout=False):
    """``citeline mcp`` fed ``messages`` on stdin, which is then closed at once (a script's client);
    the replies, the stderr and the exit code."""
    import subprocess

    process = subprocess.Popen(["citeline", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    lines = "".join(json.dumps(m) + "\n" for m in messages)
    if close_stdout:  # the client goes away before reading anything
        process.stdout.close()
        process.stdin.write(lines)
        process.stdin.close()
        stderr = process.stderr.read()
        return [], stderr, process.wait(timeout=120)
    out, stderr = process.communicate(lines, timeout=120)
    return [json.loads(line) for line in out.splitlines()], stderr, process.returncode


_HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
     "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_papers",
     "arguments": {"query": "watermarking", "k": 2}}},
]  # fmt: skip


def test_a_request_is_answered_when_the_client_closes_stdin_right_after_sending_it(seed_settings):
    env = {**os.environ, "CITELINE_DATA_DIR": str(seed_settings.data_dir), "CITELINE_LLM": "none",
           "CITELINE_LOG": "false"}  # fmt: skip
    replies, stderr, code = _raw_session(env, _HANDSHAKE)
    assert [r.get("id") for r in replies] == [1, 2], stderr
    assert replies[1]["result"]["structuredContent"]["papers"] and code == 0


def test_a_client_gone_before_the_reply_ends_the_server_quietly(seed_settings):
    env = {**os.environ, "CITELINE_DATA_DIR": str(seed_settings.data_dir), "CITELINE_LLM": "none",
           "CITELINE_LOG": "false"}  # fmt: skip
    _, stderr, code = _raw_session(env, _HANDSHAKE, close_stdout=True)
    assert code == 0 and "error" not in stderr.lower() and "Traceback" not in stderr, stderr


def test_the_printed_client_config_starts_the_server_as_printed_without_the_virtualenv_on_path(
    seed_settings, tmp_path
):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    printed = run(["mcp", "--print-config", "--llm", "none", "--no-log"], seed_settings)
    block = json.loads(printed.stdout)["mcpServers"]["citeline"]
    assert os.path.isabs(block["command"]) and block["args"][-1] == "mcp"
    assert block["env"] == {"CITELINE_DATA_DIR": str(seed_settings.data_dir), "CITELINE_LLM": "none",
                            "CITELINE_LOG": "false"}  # fmt: skip
    assert "CITELINE_LLM chooses the model: none" in " ".join(printed.stderr.split())

    # As a desktop client starts it: the printed block, and a PATH without the virtualenv's bin
    # (PYTHONPATH only so that a worktree under test runs its own code).
    env = {**block["env"], "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]

    async def session():
        params = StdioServerParameters(command=block["command"], args=block["args"], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            info = await client.initialize()
            result = await client.call_tool("search_papers", {"query": "sandbagging detection", "k": 1})
            return info, result

    info, result = anyio.run(session)
    assert info.server_info.name == "citeline" and info.server_info.version == __version__ != ""
    assert result.structured_content["papers"][0]["id"] == "003-01"


def test_results_are_structured_plain_text_with_every_field_explained(seed_settings):
    calls = {
        "search": ("search_papers", {"query": "sandbagging detection", "k": 2, "venue": "icml"}),
        "other_venue": ("search_papers", {"query": "sandbagging detection", "venue": "NeurIPS"}),
        "ask_other_venue": ("ask", {"question": "What does C3 exploit?", "venue": "neurips"}),
        "summary_other_venue": ("summarize_topic", {"topic": "watermarking", "venue": "NeurIPS"}),
        "paper": ("get_paper", {"id": "000-02"}),
        "ask": ("ask", {"question": "What does the sandbagging detection framework exploit?"}),
    }
    results = anyio.run(_session_calls, seed_settings.data_dir, {"CITELINE_LOG": "false"}, calls)
    for name in calls:
        result = results[name]
        assert not result.is_error and result.structured_content == json.loads(result.content[0].text)

    papers = results["search"].structured_content["papers"]
    assert papers[0]["id"] == "003-01" and papers[0]["venue"] == "ICML"  # "icml" matches "ICML"
    assert papers[0]["label"] == "C³" and papers[0]["rank"] == 1  # not "$C^3$"
    assert "$" not in papers[0]["abstract"] and "score" not in papers[0]
    for name in ("other_venue",):
        assert results[name].structured_content == {
            "papers": [],
            "note": "no paper in collection 'default' records the venue 'NeurIPS' (its papers record: ICML)",
        }
    assert "records the venue 'neurips'" in results["ask_other_venue"].structured_content["note"]
    elsewhere = results["summary_other_venue"].structured_content
    assert elsewhere["citations"] == [] and "records the venue 'NeurIPS'" in elsewhere["note"]
    answer = results["ask"].structured_content
    assert "**" not in answer["answer"] and "$" not in answer["answer"] and answer["model"] == "none"
    paper = results["paper"].structured_content
    assert (paper["label"], paper["title"], paper["authors"]) == ("AdaSCALE", None, None)

    tools = {t.name: t for t in results["tools"]}
    for tool in tools.values():
        assert tool.output_schema and "\n" not in tool.description and "  " not in tool.description
    ranked = tools["search_papers"].output_schema["$defs"]["Ranked"]["properties"]
    assert "Cosine similarity" in ranked["similarity"]["description"]
    assert "any case" in tools["search_papers"].input_schema["properties"]["venue"]["description"]


def test_get_paper_gives_a_listed_papers_title_and_authors_as_plain_text(tmp_path):
    records = [{"id": "p1", "title": "$C^3$: **Consistency** checks for sandbagging",
                "authors": ["Ada Lovelace", "Alan Turing"], "venue": "ICML", "year": 2025,
                "abstract": "We detect sandbagging with $C^3$, a consistency check."}]  # fmt: skip
    path = tmp_path / "titled.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    from rag.settings import Settings

    settings = Settings(data_dir=tmp_path / "data", llm="none")
    assert run(["ingest", str(path), "-c", "titled"], settings).returncode == 0
    calls = {"paper": ("get_paper", {"id": "p1", "collection": "titled"})}
    results = anyio.run(_session_calls, settings.data_dir, {"CITELINE_LOG": "false"}, calls)
    paper = results["paper"].structured_content
    assert paper["title"] == "C³: Consistency checks for sandbagging" == paper["label"]
    assert paper["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert paper["abstract"] == "We detect sandbagging with C³, a consistency check."


def test_the_server_keeps_a_bounded_number_of_scopes_open_and_reuses_recent_ones(seed_settings, tmp_path):
    # A client trying venues and years one by one grew the server by ~0.85 MB per scope, forever.
    from rag.ui.mcp_server import Tools

    tools = Tools(copy_index(seed_settings, tmp_path / "data"))
    first = tools.library(None, None, 2000)
    for year in range(2001, 2001 + Tools.SCOPES + 3):
        assert tools.search_papers("watermarking", k=3, venue=None, year=year, collection=None).papers == []
    latest = tools.library(None, None, 2000 + Tools.SCOPES + 3)
    assert tools.library(None, None, 2000 + Tools.SCOPES + 3) is latest  # recent scopes stay open
    assert tools.library(None, None, 2000) is not first  # the oldest was closed, and opens again
    assert tools.library(None, None, 2000) is tools.library(None, None, 2000)
