"""The resident embedded-model server: shared between processes, guarded, replaced, shut down when idle.

Real llama.cpp servers with the real weights (the test data dirs link the installed weights).
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from rag.llm.models import ensure_weights, lookup, prefix_dir
from rag.settings import Settings

from ..conftest import copy_index
from .test_cli import at_once, run

QUESTION = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"


@pytest.fixture
def local_settings(seed_settings, tmp_path):
    """A private copy of the session index with the installed weights linked in."""
    from rag.llm.client import local_available

    if not local_available(Settings()):
        pytest.skip("the embedded model is not installed")
    data = tmp_path / "data"
    copy_index(seed_settings, data)
    weights = ensure_weights(lookup(Settings().local_model), Settings().models_dir)
    (data / "models").mkdir(exist_ok=True)
    (data / "models" / weights.name).symlink_to(weights)
    # The system text's saved state is shared with the session's other embedded-model servers
    # (its own test: test_llama_servers); each server here still loads the model itself.
    shared = prefix_dir(seed_settings.models_dir / weights.name)
    shared.mkdir(parents=True, exist_ok=True)
    prefix_dir(data / "models" / weights.name).symlink_to(shared)
    settings = Settings(data_dir=data)
    yield settings
    run(["llm", "stop"], settings)


def _status(settings) -> dict:
    return json.loads(run(["llm", "status", "--json"], settings).stdout)


def _ask(settings, env=None):
    result = run(
        ["ask", QUESTION, "--json", "--no-log"], settings, extra_env={"CITELINE_LLM": "local", **(env or {})}
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _alive(pid: int) -> bool:
    """Running: an exited process waiting for init to reap it (a zombie) is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def test_processes_share_one_guarded_server_that_is_replaced_after_a_crash_and_stopped_on_request(
    local_settings,
):
    assert _status(local_settings) == {"running": False}
    starts = at_once([lambda: run(["llm", "start", "--json"], local_settings) for _ in range(2)])
    reports = [json.loads(start.stdout) for start in starts]  # one started it, the other waited
    first = _status(local_settings)
    assert sorted(report["started"] for report in reports) == [False, True]
    assert {report["pid"] for report in reports} == {first["pid"]}
    assert first["running"] and first["url"].startswith("http://127.0.0.1:")
    assert "14.94" in _ask(local_settings)["answer"]
    assert _status(local_settings)["pid"] == first["pid"]  # the asking process used the one started
    again = run(["llm", "start"], local_settings).stdout
    assert again.startswith("already running;") and f"pid {first['pid']}" in again

    state = local_settings.data_dir / "llm" / "server.json"
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    token = json.loads(state.read_text())["token"]
    assert httpx.get(f"{first['url']}/models", timeout=5).status_code == 401  # no token, no service
    assert (
        httpx.get(
            f"{first['url']}/models", headers={"Authorization": f"Bearer {token}"}, timeout=5
        ).status_code
        == 200
    )

    os.killpg(os.getpgid(first["pid"]), signal.SIGKILL)  # the watchdog and the server crash together
    time.sleep(1)
    assert not _status(local_settings)["running"]
    # Detected and replaced by the next process that needs it (an ask or `llm start`: the same
    # connect); the answer path through a server was checked above.
    assert run(["llm", "start"], local_settings).stdout.startswith("started;")
    second = _status(local_settings)
    assert second["running"] and second["pid"] != first["pid"]

    kept = (local_settings.data_dir / "llama-server.log").read_text().split("citeline: system prompt state ")
    assert len(kept) == 3 and kept[2].startswith("restored")  # the new server read no system text again
    assert run(["llm", "stop"], local_settings).stdout.strip() == "stopped"
    assert not _alive(second["pid"]) and _status(local_settings) == {"running": False}
    assert run(["llm", "stop"], local_settings).stdout.strip() == "not running"


def test_two_processes_starting_at_once_start_one_server_which_outlives_their_requests_and_stops_when_idle(
    local_settings,
):
    # Idle after 3 s: shorter than the two answers take (the second waits for the first; 5-10 s
    # here), which must not stop it; the watchdog looks every 0.75 s.
    env = {**os.environ, "CITELINE_DATA_DIR": str(local_settings.data_dir), "CITELINE_LLM": "local",
           "CITELINE_LLM_IDLE_MINUTES": "0.05"}  # fmt: skip
    env.pop("OPENAI_API_KEY", None)
    command = ["citeline", "ask", QUESTION, "--json", "--no-log"]
    processes = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]  # fmt: skip
    outputs = [p.communicate(timeout=600) for p in processes]
    assert all(p.returncode == 0 for p in processes), [o[1] for o in outputs]
    assert all("14.94" in json.loads(o[0])["answer"] for o in outputs)
    watchdogs = subprocess.run(["pgrep", "-f", f"rag.llm.resident {local_settings.data_dir}"],
                               capture_output=True, text=True).stdout.split()  # fmt: skip
    assert len(watchdogs) == 1
    pid = int(watchdogs[0])
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(pid) and not (local_settings.data_dir / "llm" / "server.json").exists()


@pytest.mark.parametrize("stop", ["ctrl-c", "kill"])
def test_a_start_interrupted_or_killed_before_the_server_is_recorded_leaves_no_server_behind(
    local_settings, stop
):
    env = {**os.environ, "CITELINE_DATA_DIR": str(local_settings.data_dir)}
    starting = subprocess.Popen(["citeline", "llm", "start"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
    pattern = f"rag.llm.resident {local_settings.data_dir}"

    def watchdogs() -> bytes:
        return subprocess.run(["pgrep", "-f", pattern], capture_output=True).stdout

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not watchdogs():
        time.sleep(0.05)  # until the watchdog (and with it the server) has been launched
    assert starting.poll() is None, starting.communicate()
    if stop == "ctrl-c":
        starting.send_signal(signal.SIGINT)  # the user's Ctrl-C, before the server answers
        _, err = starting.communicate(timeout=60)
        assert starting.returncode == 130 and err.strip().endswith("interrupted"), err
    else:  # SIGKILL (or the OOM killer): the starter cleans nothing up; the watchdog sees it gone
        starting.kill()
        starting.communicate(timeout=60)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and watchdogs():
            time.sleep(0.1)
    # Nothing names the watchdog it launched, so nothing else could stop it: it is gone, and
    # with it the llama.cpp server (whose weights are in this data dir).
    assert watchdogs() == b"" and _status(local_settings) == {"running": False}
    left = subprocess.run(["pgrep", "-f", str(local_settings.data_dir / "models")], capture_output=True)
    assert left.stdout == b""
