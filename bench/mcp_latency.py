"""``citeline mcp``: start-up to the first tool answer, and one ``ask`` through MCP vs the CLI.

    python bench/mcp_latency.py                # --llm none, then the embedded model (same run)
    python bench/mcp_latency.py --llm none     # one setting

Uses the index in CITELINE_DATA_DIR (the bundled corpus is ingested if it is missing). The MCP
side runs the server as a client would (the official SDK's stdio client, a subprocess): spawn →
initialize → list_tools → search_papers is the start-up figure; then the same question is asked
three times through the one MCP session (the server keeps the model warm) and three times with
``citeline ask --json`` (a new process each time, the CLI's baseline). Writes
bench/results/mcp-<llm>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag import ensure_index
from rag.settings import load_settings

QUESTION = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"
REPEATS = 3


async def _mcp(env: dict[str, str]) -> dict:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    started = time.perf_counter()
    params = StdioServerParameters(command="citeline", args=["mcp", "--no-log"], env=env)
    figures: dict = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        figures["initialize_s"] = time.perf_counter() - started
        await session.list_tools()
        result = await session.call_tool("search_papers", {"query": "OOD activation scaling", "k": 3})
        assert not result.is_error, result.content[0].text
        figures["first_tool_answer_s"] = time.perf_counter() - started
        asks = []
        for _ in range(REPEATS):
            t = time.perf_counter()
            result = await session.call_tool("ask", {"question": QUESTION})
            assert not result.is_error, result.content[0].text
            asks.append(time.perf_counter() - t)
        figures["ask_s"] = asks
    return figures


def _cli(env: dict[str, str]) -> list[float]:
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        command = ["citeline", "ask", QUESTION, "--json", "--no-log"]
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        json.loads(out.stdout)
        times.append(time.perf_counter() - t)
    return times


def measure(llm: str) -> dict:
    """Both sides with one LLM setting; prints and returns the figures."""
    settings = load_settings().replace(llm=llm)
    ensure_index(settings)
    env = {**os.environ, "CITELINE_LLM": llm}
    mcp = anyio.run(_mcp, env)
    cli = _cli(env)
    figures = {"llm": llm, **mcp, "cli_ask_s": cli}
    print(
        f"{llm}: mcp start-up to first tool answer {mcp['first_tool_answer_s']:.2f}s "
        f"(initialize {mcp['initialize_s']:.2f}s); ask via mcp first {mcp['ask_s'][0]:.2f}s, "
        f"then median {statistics.median(mcp['ask_s'][1:]):.2f}s; "
        f"via the CLI (new process each) median {statistics.median(cli):.2f}s"
    )
    out = Path(__file__).resolve().parent / "results" / f"mcp-{llm}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="none,local", help="comma-separated LLM settings")
    for llm in parser.parse_args().llm.split(","):
        measure(llm.strip())


if __name__ == "__main__":
    main()
