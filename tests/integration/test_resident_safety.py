"""`citeline llm stop` signals only the watchdog it can prove it started; a killed watchdog takes its
server with it. Every process here is a child this test started (or lives in a private PID
namespace), so nothing else on the machine can be signalled even if the code under test is wrong."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.llm import resident
from rag.settings import Settings

from .test_cli import run

FAKE_SERVER = [sys.executable, "-c", "import time; time.sleep(600)"]


def _settings(tmp_path: Path) -> Settings:
    (tmp_path / "llm").mkdir(parents=True, exist_ok=True)
    return Settings(data_dir=tmp_path, llm="none")


def _start_time(pid: int) -> int:
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rindex(")") + 2 :].split()[19])


def _state(pid: int, token: str, pid_start: int) -> dict:
    return {"pid": pid, "port": 9, "token": token, "model": "qwen2.5-coder-1.5b", "context_tokens": 4096,
            "started": time.time(), "pid_start": pid_start}  # fmt: skip


def _write_state(settings: Settings, record: dict) -> None:
    path = settings.data_dir / "llm" / "server.json"
    path.write_text(json.dumps(record))
    path.chmod(0o600)


def _gone(process: subprocess.Popen | int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if isinstance(process, subprocess.Popen):
            if process.poll() is not None:
                return True
        elif not Path(f"/proc/{process}").exists() or _zombie(process):
            return True
        time.sleep(0.1)
    return False


def _zombie(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text[text.rindex(")") + 2] == "Z"


def _watchdog(settings: Settings, token: str) -> subprocess.Popen:
    """A real watchdog (the module the resident server runs under) over a stand-in server process."""
    state = settings.data_dir / "llm" / "server.json"
    used = settings.data_dir / "llm" / "last-used"
    used.touch()
    command = [sys.executable, "-m", "rag.llm.resident", str(state), str(used), "600",
               str(settings.data_dir / "server.log"), *FAKE_SERVER]  # fmt: skip
    return subprocess.Popen(command, env={**os.environ, "API_KEY": token}, stdin=subprocess.DEVNULL)


def _children(pid: int, timeout: float = 10) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if found:
            return [int(p) for p in found]
        time.sleep(0.1)
    return []


def test_a_stale_state_naming_another_program_never_gets_it_signalled(tmp_path):
    settings = _settings(tmp_path)
    bystander = subprocess.Popen(["sleep", "600"])
    try:
        # Even its real start time is not enough: it is not our watchdog and does not hold our token.
        _write_state(settings, _state(bystander.pid, secrets.token_urlsafe(32), _start_time(bystander.pid)))
        status = run(["llm", "status"], settings)
        assert status.returncode == 0 and "is not the server we started" in status.stdout
        stopped = run(["llm", "stop"], settings)
        assert stopped.returncode == 0 and stopped.stdout.strip() == "not running"
        time.sleep(0.5)
        assert bystander.poll() is None  # still running
        assert not (settings.data_dir / "llm" / "server.json").exists()  # the stale record is gone
    finally:
        bystander.kill()
        bystander.wait()


def test_our_watchdog_is_stopped_only_while_its_start_time_and_token_match(tmp_path):
    settings = _settings(tmp_path)
    token = secrets.token_urlsafe(32)
    watchdog = _watchdog(settings, token)
    try:
        server = _children(watchdog.pid)
        assert server
        _write_state(settings, _state(watchdog.pid, secrets.token_urlsafe(32), _start_time(watchdog.pid)))
        assert run(["llm", "stop"], settings).stdout.strip() == "not running"  # wrong token
        _write_state(settings, _state(watchdog.pid, token, _start_time(watchdog.pid) + 1))
        assert run(["llm", "stop"], settings).stdout.strip() == "not running"  # wrong start time
        assert watchdog.poll() is None
        _write_state(settings, _state(watchdog.pid, token, _start_time(watchdog.pid)))
        assert run(["llm", "stop"], settings).stdout.strip() == "stopped"
        assert _gone(watchdog) and _gone(server[0])
    finally:
        watchdog.kill()
        watchdog.wait()


def test_our_watchdog_is_stopped_when_its_data_dir_is_reached_through_another_path(tmp_path):
    # One data dir under two names (a symbolic link, as a benchmark's results folder is): the
    # watchdog's command line names the state file by the path it was started with.
    settings = _settings(tmp_path / "data")
    token = secrets.token_urlsafe(32)
    watchdog = _watchdog(settings, token)
    try:
        server = _children(watchdog.pid)
        assert server
        _write_state(settings, _state(watchdog.pid, token, _start_time(watchdog.pid)))
        (tmp_path / "alias").symlink_to(tmp_path / "data")
        alias = Settings(data_dir=tmp_path / "alias", llm="none")
        assert run(["llm", "stop"], alias).stdout.strip() == "stopped"
        assert _gone(watchdog) and _gone(server[0])
    finally:
        watchdog.kill()
        watchdog.wait()


def _stand_in(tmp_path: Path, module: str, settings: Settings, token: str) -> subprocess.Popen:
    """A process whose command line is ``python -m <module> <state file> ...``, as a watchdog's is,
    from a throwaway package (so a module name this version no longer has can be shown)."""
    package = tmp_path / "standin"
    target = package.joinpath(*module.split(".")).with_suffix(".py")
    target.parent.mkdir(parents=True, exist_ok=True)
    for folder in [target.parent, *target.parent.parents]:
        if folder == package:
            break
        (folder / "__init__.py").touch()
    target.write_text("import time\ntime.sleep(600)\n")
    state = settings.data_dir / "llm" / "server.json"
    command = [sys.executable, "-m", module, str(state), "used", "600", "log"]
    env = {**os.environ, "API_KEY": token, "PYTHONPATH": str(package)}
    return subprocess.Popen(command, env=env, cwd=package, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("module", "stopped"), [("rag.answer.resident", True), ("rag.answer.other", False)])
def test_a_watchdog_started_before_the_move_to_rag_llm_is_still_recognised_and_stopped(
    tmp_path, module, stopped
):
    settings = _settings(tmp_path / "data")
    token = secrets.token_urlsafe(32)
    process = _stand_in(tmp_path, module, settings, token)
    try:
        deadline = time.monotonic() + 10
        while b"-m" not in Path(f"/proc/{process.pid}/cmdline").read_bytes() and time.monotonic() < deadline:
            time.sleep(0.05)
        _write_state(settings, _state(process.pid, token, _start_time(process.pid)))
        result = run(["llm", "stop"], settings).stdout.strip()
        assert result == ("stopped" if stopped else "not running")
        assert _gone(process, timeout=2 if not stopped else 15) is stopped
    finally:
        process.kill()
        process.wait()


def test_a_killed_watchdog_takes_its_server_with_it(tmp_path):
    settings = _settings(tmp_path)
    watchdog = _watchdog(settings, secrets.token_urlsafe(32))
    server = _children(watchdog.pid)
    assert server
    watchdog.kill()  # SIGKILL: the watchdog gets no chance to clean up
    watchdog.wait()
    assert _gone(server[0]), "the server outlived its watchdog"


@pytest.mark.parametrize("pid", [-1, 0])
def test_llm_stop_with_pid_minus_one_or_zero_signals_nothing_in_a_private_pid_namespace(tmp_path, pid):
    if (
        not shutil.which("unshare")
        or subprocess.run(["unshare", "-p", "-f", "--mount-proc", "true"], capture_output=True).returncode
    ):
        pytest.skip("needs unshare -p (a private PID namespace)")
    settings = _settings(tmp_path)
    record = json.dumps({"pid": pid, "port": 9, "token": "t", "model": "m", "context_tokens": 1,
                         "started": 0})  # fmt: skip
    (settings.data_dir / "llm" / "server.json").write_text(record)
    # Inside the namespace a bystander shares our process group; kill(-1) or kill(0) would end it.
    script = "sleep 300 & S=$!; citeline llm stop; sleep 0.5; kill -0 $S && echo bystander-alive; kill $S"
    env = {**os.environ, "CITELINE_DATA_DIR": str(settings.data_dir), "CITELINE_LLM": "none"}
    result = subprocess.run(["unshare", "-p", "-f", "--mount-proc", "sh", "-c", script],
                            capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert "not running" in result.stdout and "bystander-alive" in result.stdout, result.stderr
    assert not (settings.data_dir / "llm" / "server.json").exists()
    assert resident.llm_status(settings) == {"running": False}
