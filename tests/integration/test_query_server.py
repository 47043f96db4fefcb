"""The warm process (``rag.ui.query_server``) with the installed ``citeline``, as a user runs it:
a query command leaves it behind, the next ones are served by it with the output they have when
they run in-process, and nothing it loaded is ever used after the index or the settings changed."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import copy_index
from .test_cli import run

SERVING = {"CITELINE_SERVE_IDLE_MINUTES": "2"}
IN_PROCESS = {"CITELINE_SERVE_IDLE_MINUTES": "0"}


def status(settings) -> dict:
    result = run(["serve", "status", "--json"], settings, extra_env=SERVING)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def wait_for(settings, running: bool, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = status(settings)
        if found["running"] == running and (not running or "served" in found):
            return found
        time.sleep(0.5)
    raise AssertionError(f"the warm process did not {'start' if running else 'stop'} in {timeout}s")


@pytest.fixture
def served(seed_settings, tmp_path):
    """A private copy of the seed index with a warm process serving it (left by a first search)."""
    settings = copy_index(seed_settings, tmp_path / "data")
    first = run(["search", "adascale", "-k", "1"], settings, extra_env=SERVING)
    assert first.returncode == 0, first.stderr
    wait_for(settings, running=True)
    yield settings
    run(["serve", "stop"], settings, extra_env=SERVING)  # asked over its socket: nothing is signalled


def without_timings(text: str) -> str:
    """An answer names the seconds it took (its footer, its JSON ``timings``), the one part that
    differs from run to run."""
    try:
        data = json.loads(text)
    except ValueError:
        return re.sub(r"\d+(\.\d+)?s\b", "Ns", text)
    if isinstance(data, dict):
        data.pop("timings", None)
    return json.dumps(data)


COMMANDS = [
    ["search", "activation scaling for OOD detection", "-k", "3"],
    ["search", "watermarking", "--json", "--mode", "bm25"],
    ["search", "x", "--venue", "NeurIPS"],
    ["papers", "list"],
    ["papers", "show", "003-01", "--bibtex"],
    ["papers", "show", "nope-99"],  # an error: one line, exit 1
    ["search", "x", "-k", "0"],  # a usage error: exit 2
    ["ask", "By how much does AdaSCALE beat OptFS?", "--no-log"],
    ["ask", "Which papers study watermarking?", "--no-log", "--json"],
    ["summarize", "watermarking", "--max-papers", "3", "--no-log"],
]


def test_later_query_commands_are_served_warm_with_the_output_they_have_in_process(served):
    before = status(served)["served"]
    for args in COMMANDS:
        here = run(args, served, extra_env=IN_PROCESS)
        warm = run(args, served, extra_env=SERVING)
        assert (warm.returncode, without_timings(warm.stdout), without_timings(warm.stderr)) == (
            here.returncode,
            without_timings(here.stdout),
            without_timings(here.stderr),
        ), args
    after = status(served)
    # Every command was served warm, although each in-process run opened (and so rewrote) the
    # Chroma files the warm process has open: reading is not a change of the index.
    assert after["served"] == before + len(COMMANDS)
    assert after["pid"] == status(served)["pid"]


def test_the_client_environment_working_directory_and_umask_apply_to_each_served_command(served, tmp_path):
    before = status(served)["served"]
    one = run(["search", "language models", "--json"], served, extra_env={**SERVING, "CITELINE_TOP_K": "1"})
    three = run(["search", "language models", "--json"], served, extra_env={**SERVING, "CITELINE_TOP_K": "3"})
    assert (len(json.loads(one.stdout)), len(json.loads(three.stdout))) == (1, 3)
    work = tmp_path / "work"
    work.mkdir()
    written = subprocess.run(
        ["citeline", "summarize", "watermarking", "--max-papers", "2", "--no-log", "--out", "w.md"],
        cwd=work,
        capture_output=True,
        text=True,
        env={**os.environ, "CITELINE_DATA_DIR": str(served.data_dir), "CITELINE_LLM": "none", **SERVING},
        preexec_fn=lambda: os.umask(0o077),
    )
    assert written.returncode == 0, written.stderr
    assert "watermark" in (work / "w.md").read_text().lower()
    assert (work / "w.md").stat().st_mode & 0o777 == 0o600  # the client's umask, not the server's
    assert status(served)["served"] == before + 3


def test_an_ingest_from_another_process_is_seen_by_the_next_search(served, tmp_path):
    paper = {
        "title": "Zorblax: herding llamas with octopus reinforcement",
        "abstract": "We propose Zorblax, which herds llamas by octopus reinforcement learning.",
    }
    source = tmp_path / "new.jsonl"
    source.write_text(json.dumps(paper) + "\n")
    old = status(served)["pid"]
    ingested = run(["ingest", str(source)], served, extra_env=IN_PROCESS)
    assert ingested.returncode == 0, ingested.stderr
    found = run(["search", "Zorblax octopus llamas", "--json"], served, extra_env=SERVING)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["label"] == paper["title"]
    # The stale process declined and left; the search ran here and left a new one.
    assert wait_for(served, running=True)["pid"] != old


def _servers_of(settings) -> list[str]:
    """The pids of warm processes started for ``settings``' data dir."""
    pattern = f"--query-server {settings.data_dir}"
    return subprocess.run(["pgrep", "-f", "--", pattern], capture_output=True, text=True).stdout.split()


def test_no_warm_process_is_started_while_an_ingest_holds_a_collection(served):
    run(["serve", "stop"], served, extra_env=SERVING)
    holder = subprocess.Popen(  # the lock an ingest holds for its whole run, taken as it takes it
        [sys.executable, "-c", "import sys, time; from rag.index.lexical import collection_lock; "
         "from rag.settings import Settings; from pathlib import Path; "
         "lock = collection_lock(Settings(data_dir=Path(sys.argv[1]))); lock.acquire(); "
         "print('held', flush=True); time.sleep(120)", str(served.data_dir)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        assert run(["search", "adascale", "-k", "1"], served, extra_env=SERVING).returncode == 0
        assert _servers_of(served) == []  # a start would have happened before the search returned
    finally:
        holder.terminate()
        holder.wait(timeout=20)
    assert run(["search", "adascale", "-k", "1"], served, extra_env=SERVING).returncode == 0
    assert wait_for(served, running=True)["pid"] == int(*_servers_of(served))


def test_one_running_when_serving_is_turned_off_is_still_shown_and_stopped(served):
    turned_off = run(["serve", "status", "--json"], served, extra_env=IN_PROCESS)
    shown = json.loads(turned_off.stdout)
    assert shown["running"] and shown["idle_shutdown_s"] == 120  # its own idle time, not the client's
    stopped = run(["serve", "stop"], served, extra_env=IN_PROCESS)
    assert stopped.stdout.strip() == "stopped" and not status(served)["running"]
    off = json.loads(run(["serve", "status", "--json"], served, extra_env=IN_PROCESS).stdout)
    assert not off["running"] and off["problem"].startswith("turned off")


def test_serve_stop_ends_it_and_an_idle_one_stops_itself(served):
    stopped = run(["serve", "stop"], served, extra_env=SERVING)
    assert (stopped.returncode, stopped.stdout.strip()) == (0, "stopped")
    assert not status(served)["running"]
    assert run(["serve", "stop"], served, extra_env=SERVING).stdout.strip() == "not running"
    short = {"CITELINE_SERVE_IDLE_MINUTES": "0.05"}  # 3 s
    assert run(["search", "adascale", "-k", "1"], served, extra_env=short).returncode == 0
    wait_for(served, running=True)  # asking for its status is no use: it does not keep it up
    wait_for(served, running=False, timeout=60)
    assert not (served.data_dir / "serve" / "socket").exists()


def test_a_socket_that_is_not_a_citeline_server_is_never_used(served, tmp_path):
    run(["serve", "stop"], served, extra_env=SERVING)
    path = served.data_dir / "serve" / "socket"
    impostor = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import socket,sys\n"
            "s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('up', flush=True)\n"
            "c,_=s.accept(); c.settimeout(5)\n"
            "try: print('got', len(c.recv(1 << 20)), flush=True)\n"
            "except OSError: print('got 0', flush=True)\n",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert impostor.stdout.readline().strip() == "up"
        result = run(["search", "activation scaling for OOD detection", "--json"], served, extra_env=SERVING)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)[0]["id"]  # answered in-process, correctly
        assert impostor.wait(timeout=30) == 0
        assert impostor.stdout.read().strip() == "got 0"  # it was sent nothing
    finally:
        if impostor.poll() is None:
            impostor.kill()
        impostor.wait()


def test_a_serve_directory_others_can_enter_is_not_used(seed_settings, tmp_path):
    settings = copy_index(seed_settings, tmp_path / "data")
    directory = settings.data_dir / "serve"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    assert run(["search", "adascale", "-k", "1"], settings, extra_env=SERVING).returncode == 0
    time.sleep(1)
    assert not status(settings)["running"]
    assert not (directory / "socket").exists()


def test_a_client_sends_nothing_before_it_has_proven_the_server(tmp_path):
    """The proof is the kernel's word on the peer (uid, command line), checked before any byte."""
    from rag.ui import query_server

    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert not query_server._peer_is_server(left, tmp_path)  # this test's own process is no server


def connected(path: str) -> bool:
    """A client is connected to the warm process now (the kernel's table of Unix sockets lists the
    accepted connection under the socket's path, state 03)."""
    rows = (line.split() for line in Path("/proc/net/unix").read_text().splitlines()[1:])
    return any(len(row) > 7 and row[7] == path and row[5] == "03" for row in rows)


def test_ctrl_c_on_a_served_command_is_one_line_and_the_process_serves_the_next(served, llm_server_url):
    env = {
        **os.environ,
        "CITELINE_DATA_DIR": str(served.data_dir),
        "CITELINE_LLM": "openai",
        "CITELINE_LLM_BASE_URL": llm_server_url,
        **SERVING,
    }
    before = status(served)
    asking = subprocess.Popen(
        ["citeline", "ask", "What does the sandbagging detection framework exploit?", "--no-log"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    socket_path = str(served.data_dir / "serve" / "socket")
    deadline = time.monotonic() + 60
    while not connected(socket_path) and time.monotonic() < deadline:
        time.sleep(0.05)  # until the command is with the warm process (the model writes the answer)
    assert asking.poll() is None, "the ask ended before it could be interrupted"
    busy = status(served)  # answered at once, not after the ask
    meanwhile = run(["search", "adascale", "-k", "1"], served, extra_env=SERVING)
    assert asking.poll() is None, "the ask ended before it could be interrupted"
    assert busy["busy"] and busy["served"] == before["served"] + 1
    # Another terminal's command while the warm process is busy runs in its own process.
    assert meanwhile.returncode == 0 and "AdaSCALE" in meanwhile.stdout
    asking.send_signal(signal.SIGINT)
    out, err = asking.communicate(timeout=60)
    assert (asking.returncode, err) == (130, "interrupted\n"), out
    deadline = time.monotonic() + 120
    while status(served)["busy"] and time.monotonic() < deadline:
        time.sleep(0.2)  # the interrupted answer stops (at the model's next token)
    after = run(["search", "adascale", "-k", "1"], served, extra_env=SERVING)
    assert after.returncode == 0 and "AdaSCALE" in after.stdout
    now = status(served)
    assert (now["pid"], now["served"]) == (before["pid"], before["served"] + 2)


def test_a_command_from_other_code_is_never_served_by_this_code(served, tmp_path):
    """Another checkout (or interpreter) on the same data dir: its commands run in its own process,
    with its own code, however warm the process serving this checkout is."""
    root = Path(__file__).resolve().parents[2]
    other = tmp_path / "checkout"
    shutil.copytree(root / "rag", other / "rag", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "prompts", other / "prompts")
    shutil.copytree(root / "data", other / "data")
    render = other / "rag" / "ui" / "render.py"
    render.write_text(render.read_text().replace('"[dim]mode:', '"[dim]other checkout, mode:'))
    shutil.copy(root / "cli.py", other / "cli.py")
    env = {**os.environ, "CITELINE_DATA_DIR": str(served.data_dir), "CITELINE_LLM": "none", **SERVING}
    env.pop("PYTHONPATH", None)
    before = status(served)
    result = subprocess.run(
        [sys.executable, str(other / "cli.py"), "search", "adascale", "-k", "1"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "other checkout, mode: hybrid" in result.stdout
    after = status(served)
    assert (after["pid"], after["served"]) == (before["pid"], before["served"])


@pytest.mark.parametrize("planted", ["fifo", "link", "directory"])
def test_a_serve_log_that_is_no_regular_file_never_hangs_or_fails_a_command(seed_settings, tmp_path, planted):
    settings = copy_index(seed_settings, tmp_path / "data")
    directory = settings.data_dir / "serve"
    directory.mkdir(mode=0o700)
    log, victim = directory / "log", tmp_path / "victim"
    victim.write_text("")
    plant = {"fifo": lambda: os.mkfifo(log), "link": lambda: log.symlink_to(victim), "directory": log.mkdir}
    plant[planted]()
    result = run(["search", "adascale", "-k", "1"], settings, extra_env=SERVING, timeout=120)
    assert (result.returncode, result.stderr) == (0, "") and "AdaSCALE" in result.stdout
    assert victim.read_text() == ""  # never written through the link
    run(["serve", "stop"], settings, extra_env=SERVING)


def test_a_socket_linked_in_from_another_data_dir_is_never_used(served, seed_settings, tmp_path):
    other = copy_index(seed_settings, tmp_path / "other")
    (other.data_dir / "serve").mkdir(mode=0o700)
    (other.data_dir / "serve" / "socket").symlink_to(served.data_dir / "serve" / "socket")
    before = status(served)
    assert not status(other)["running"]  # it is the first data dir's process, not this one's
    assert run(["search", "adascale", "-k", "1"], other, extra_env=IN_PROCESS).returncode == 0
    assert run(["serve", "stop"], other, extra_env=SERVING).stdout.strip() == "not running"
    after = status(served)  # neither served by it nor stopped
    assert (after["pid"], after["served"]) == (before["pid"], before["served"])


def test_a_relative_data_dir_is_served_as_the_same_directory(seed_settings, tmp_path):
    copy_index(seed_settings, tmp_path / "data")
    env = {**os.environ, "CITELINE_DATA_DIR": "data", "CITELINE_LLM": "none", **SERVING}
    first = subprocess.run(["citeline", "search", "adascale", "-k", "1"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)  # fmt: skip
    assert first.returncode == 0, first.stderr
    settings = seed_settings.replace(data_dir=tmp_path / "data")
    try:
        assert wait_for(settings, running=True)["running"]
        assert not (tmp_path / "data" / "serve" / "data").exists()  # no stray index under serve/
    finally:
        run(["serve", "stop"], settings, extra_env=SERVING)
