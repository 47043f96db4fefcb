"""A resident embedded-model server, shared by every citeline process of one user and data dir.

Starting llama.cpp's server and loading ~1 GB of weights costs ~20 s on 2 cores, every ``citeline
ask``. Instead the first process starts the server detached, under a small watchdog, and leaves it
running; later processes find it through a state file and reuse it. Safety and hygiene:

- loopback only, a random port, and a per-start random token the server requires on every request
  (passed in the environment, which only the owner can read; kept in a state file of mode 0600);
- a file lock, so two processes starting at once start one server;
- every use touches a file; the watchdog stops the server after ``llm_idle_minutes`` without use;
- a crashed, killed or unresponsive server (or one started for another model or context size) is
  detected by the next process, stopped and replaced.

``citeline llm status`` and ``citeline llm stop`` show and end it. ``llm_idle_minutes = 0`` turns
residency off: each process then starts its own server and stops it at exit, as before.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rag.answer.local_models import ensure_weights, lookup, server_command
from rag.errors import CitelineError
from rag.settings import Settings

START_TIMEOUT = 240.0


@dataclass
class ServerState:
    """What the state file records about a running resident server."""

    pid: int  # the watchdog's pid (it owns the llama.cpp process)
    port: int
    token: str
    model: str
    context_tokens: int
    started: float

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"


def _directory(settings: Settings) -> Path:
    return settings.data_dir / "llm"


def _state_file(settings: Settings) -> Path:
    return _directory(settings) / "server.json"


def _used_file(settings: Settings) -> Path:
    return _directory(settings) / "last-used"


def read_state(settings: Settings) -> ServerState | None:
    """The recorded server, or None (no file, or one that does not parse)."""
    try:
        return ServerState(**json.loads(_state_file(settings).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _answers(state: ServerState, timeout: float = 3.0) -> bool:
    import httpx

    try:
        reply = httpx.get(f"{state.base_url}/models", headers={"Authorization": f"Bearer {state.token}"},
                          timeout=timeout)  # fmt: skip
    except httpx.HTTPError:
        return False
    return reply.status_code == 200


def healthy(state: ServerState | None, settings: Settings) -> bool:
    """The recorded server runs, answers with its token, and serves the model and context asked for."""
    return (
        state is not None
        and state.model == settings.local_model
        and state.context_tokens == settings.context_tokens
        and _alive(state.pid)
        and _answers(state)
    )


def touch(settings: Settings) -> None:
    """Record a use, which postpones the idle shutdown."""
    path = _used_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def stop(settings: Settings, timeout: float = 20.0) -> ServerState | None:
    """Stop the recorded server (if any) and remove its state; returns what was stopped."""
    state = read_state(settings)
    if state is not None and _alive(state.pid):
        os.kill(state.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _alive(state.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(state.pid):
            os.kill(state.pid, signal.SIGKILL)
    _state_file(settings).unlink(missing_ok=True)
    return state


def connect(settings: Settings) -> ServerState:
    """The resident server for these settings: the running one, or a new one started now."""
    from filelock import FileLock

    directory = _directory(settings)
    directory.mkdir(parents=True, exist_ok=True)
    state = read_state(settings)
    if healthy(state, settings):
        touch(settings)
        return state  # type: ignore[return-value]
    with FileLock(str(directory / "server.lock"), timeout=START_TIMEOUT + 30):
        state = read_state(settings)  # another process may have started it while we waited
        if healthy(state, settings):
            touch(settings)
            return state  # type: ignore[return-value]
        if state is not None:
            stop(settings)  # crashed, stale, or for another model: replace it
        state = _start(settings)
    touch(settings)
    return state


def _start(settings: Settings) -> ServerState:
    from rag.answer.llm import free_port

    model = lookup(settings.local_model)
    weights = ensure_weights(model, settings.models_dir)
    port = free_port()
    token = secrets.token_urlsafe(32)
    command = server_command(model, weights, port, settings.context_tokens)
    log = settings.data_dir / "llama-server.log"
    touch(settings)
    idle = str(settings.llm_idle_minutes * 60)
    paths = [str(_state_file(settings)), str(_used_file(settings))]
    watchdog = [sys.executable, "-m", "rag.answer.resident", *paths, idle, str(log), *command]
    env = {**os.environ, "API_KEY": token}
    process = subprocess.Popen(watchdog, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    state = ServerState(process.pid, port, token, settings.local_model, settings.context_tokens, time.time())
    deadline = time.monotonic() + START_TIMEOUT
    while not _answers(state, timeout=2):
        if process.poll() is not None or time.monotonic() > deadline:
            if process.poll() is None:
                process.terminate()
            raise CitelineError(f"the embedded LLM server did not start; see {log}")
        time.sleep(0.3)
    path = _state_file(settings)
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(json.dumps(asdict(state)))
    return state


def _watch(state: Path, used: Path, idle_seconds: float, log: Path, command: list[str]) -> int:
    """Run the server; stop it after ``idle_seconds`` without a touch of ``used``, or on SIGTERM.

    On the way out the state file is removed if it still names this watchdog.
    """
    with log.open("ab") as out:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)

    def finish(*_: object) -> None:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        try:
            if json.loads(state.read_text()).get("pid") == os.getpid():
                state.unlink()
        except (OSError, ValueError):
            pass
        sys.exit(0)

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    interval = max(0.5, min(30.0, idle_seconds / 4))
    while child.poll() is None:
        time.sleep(interval)
        try:
            idle = time.time() - used.stat().st_mtime
        except OSError:
            idle = idle_seconds + 1
        if idle > idle_seconds:
            finish()
    finish()  # the server died on its own: clean up the same way
    return 0


if __name__ == "__main__":
    sys.exit(
        _watch(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), sys.argv[5:])
    )


def llm_status(settings: Settings) -> dict:
    """What ``citeline llm status`` shows: whether the resident server runs, where, since when, idle for."""
    state = read_state(settings)
    if state is None:
        return {"running": False}
    running = _alive(state.pid) and _answers(state)
    try:
        idle = time.time() - _used_file(settings).stat().st_mtime
    except OSError:
        idle = None
    return {
        "running": running,
        "pid": state.pid,
        "url": state.base_url,
        "model": state.model,
        "context_tokens": state.context_tokens,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(state.started)),
        "uptime_s": round(time.time() - state.started, 1),
        "idle_s": None if idle is None else round(idle, 1),
        "idle_shutdown_s": settings.llm_idle_minutes * 60,
    }


def llm_stop(settings: Settings) -> bool:
    """Stop the resident server; False when none was running."""
    state = read_state(settings)
    was_running = state is not None and _alive(state.pid)
    stop(settings)
    return was_running
