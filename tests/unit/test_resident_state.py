"""The resident server's state file is input: damaged, foreign or unsafe files are never trusted,
and nothing is ever signalled on their word."""

from __future__ import annotations

import json
import os
import signal

import pytest

from rag.llm import resident
from rag.settings import Settings

GOOD = {"pid": 4242, "port": 9, "token": "t" * 43, "model": "qwen2.5-coder-1.5b", "context_tokens": 4096,
        "started": 0, "pid_start": 12345}  # fmt: skip


@pytest.fixture
def settings(tmp_path) -> Settings:
    (tmp_path / "llm").mkdir()
    return Settings(data_dir=tmp_path, llm="none")


@pytest.fixture
def no_signals(monkeypatch):
    """Fail the test if anything at all is signalled."""

    def refuse(*args):
        raise AssertionError(f"a signal was sent: {args}")

    monkeypatch.setattr(os, "kill", refuse)
    monkeypatch.setattr(signal, "pidfd_send_signal", refuse)
    monkeypatch.setattr(os, "killpg", refuse)


def _write(settings: Settings, record: object, mode: int = 0o600) -> None:
    path = settings.data_dir / "llm" / "server.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    path.chmod(mode)


@pytest.mark.parametrize(
    "change",
    [{"pid": -1}, {"pid": 0}, {"pid": 1}, {"pid": "abc"}, {"pid": 5.5}, {"pid": 10**30}, {"pid": True},
     {"port": 0}, {"port": 70000}, {"token": ""}, {"token": "t"}, {"pid_start": None}, {"started": "x"}],
)  # fmt: skip
def test_a_state_record_with_an_impossible_field_is_refused(change):
    with pytest.raises(ValueError):
        resident.parse_state(json.dumps({**GOOD, **change}).encode())


def test_a_well_formed_state_record_is_read():
    assert resident.parse_state(json.dumps(GOOD).encode()).pid == 4242


@pytest.mark.parametrize("pid", [-1, 0, 1, "abc", 5.5, 10**30])
def test_llm_stop_on_a_state_file_with_a_dangerous_pid_signals_nothing_and_removes_the_file(
    settings, no_signals, pid
):
    _write(settings, {**GOOD, "pid": pid})
    assert "damaged" in resident.llm_status(settings)["problem"]
    assert resident.llm_stop(settings) is False
    assert not (settings.data_dir / "llm" / "server.json").exists()
    assert resident.llm_status(settings) == {"running": False}


def test_a_state_naming_a_pid_that_is_not_our_watchdog_is_never_signalled(settings, no_signals):
    _write(settings, {**GOOD, "pid": os.getppid()})  # a live process, but not a watchdog of ours
    status = resident.llm_status(settings)
    assert status["running"] is False and status["ours"] is False
    assert resident.llm_stop(settings) is False


def test_a_world_writable_or_foreign_state_file_is_not_trusted(settings, no_signals):
    _write(settings, GOOD, mode=0o666)
    assert "writable by other users" in resident.read_state_file(settings).problem
    assert resident.read_state(settings) is None
    assert not resident.healthy(resident.read_state(settings), settings)
    _write(settings, GOOD)
    os.chown(settings.data_dir / "llm" / "server.json", 65534, -1)  # nobody
    if os.getuid() == 0:
        assert "another user" in resident.read_state_file(settings).problem


def test_a_directory_or_a_link_at_the_state_path_is_reported_and_replaced_without_touching_a_target(
    settings, tmp_path, no_signals
):
    path = settings.data_dir / "llm" / "server.json"
    path.mkdir()
    assert "not a regular file" in resident.llm_status(settings)["problem"]
    resident.llm_stop(settings)
    assert not path.exists() and list(path.parent.glob("server.json.damaged-*"))

    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    notes.chmod(0o644)
    path.symlink_to(notes)
    assert "symbolic link" in resident.llm_status(settings)["problem"]
    state = resident.parse_state(json.dumps(GOOD).encode())
    resident._write_state(settings, state)
    assert notes.read_text() == "my notes" and oct(notes.stat().st_mode & 0o777) == "0o644"
    assert not path.is_symlink() and resident.read_state(settings) == state
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_weight_files_left_by_a_killed_assembly_are_removed_on_the_next_start(settings):
    models = settings.models_dir
    models.mkdir(parents=True)
    dead = models / "qwen.gguf.999999999.part"  # no such pid
    live = models / f"qwen.gguf.{os.getpid()}.part"  # an assembly running now
    for path in (dead, live):
        path.write_bytes(b"x" * 10)
    resident._clean_partial_weights(settings)
    assert not dead.exists() and live.exists()


@pytest.mark.parametrize(
    "change", [{"started": 1e17}, {"started": 1e308}, {"started": -1e18}, {"model": "\ud800"}]
)
def test_a_start_time_no_clock_can_show_or_an_unencodable_model_name_is_damaged_not_a_crash(settings, change):
    _write(settings, json.dumps({**GOOD, **change}))
    status = resident.llm_status(settings)
    assert "damaged" in status["problem"]
    json.dumps(status).encode()  # what `llm status --json` prints


def test_an_llm_path_that_is_a_file_or_a_link_is_not_trusted_and_stop_still_works(
    settings, tmp_path, no_signals
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "server.json").write_text(json.dumps(GOOD))
    (elsewhere / "server.json").chmod(0o600)
    (settings.data_dir / "llm").rmdir()
    (settings.data_dir / "llm").symlink_to(elsewhere)
    assert "symbolic link" in resident.llm_status(settings)["problem"]
    assert (
        resident.llm_stop(settings) is False and (elsewhere / "server.json").exists()
    )  # nothing removed there
    (settings.data_dir / "llm").unlink()
    (settings.data_dir / "llm").write_text("not a directory")
    assert resident.llm_stop(settings) is False


def test_a_server_held_by_a_request_is_not_replaced_until_the_request_is_done(tmp_path):
    import subprocess
    import sys

    import pytest

    from rag.errors import BackendUnavailable
    from rag.llm import resident
    from rag.settings import Settings

    settings = Settings(data_dir=tmp_path, llm_timeout=0.3)  # how long to wait: not what is tested
    used = tmp_path / "llm" / "last-used"
    used.parent.mkdir()
    used.touch()
    state = resident.ServerState(1, 1, "t", "qwen2.5-coder-1.5b", 4096, 0.0, 1)
    holder = subprocess.Popen(  # another terminal's answer, holding the server (resident.in_use)
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'rb'); "
         "fcntl.flock(f, fcntl.LOCK_SH); print('held', flush=True); time.sleep(60)", str(used)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(BackendUnavailable, match="still answering another request"):
            resident._wait_until_free(settings, state)
    finally:
        holder.kill()
        holder.wait()
    resident._wait_until_free(settings, state)  # free now: returns at once
