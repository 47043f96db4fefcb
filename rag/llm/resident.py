"""A resident embedded-model server, shared by every citeline process of one user and data dir.

Starting llama.cpp's server and loading ~1 GB of weights costs ~20 s on 2 cores, every ``citeline
ask``. Instead the first process starts the server detached, under a small watchdog, and leaves it
running; later processes find it through a state file and reuse it. Safety and hygiene:

- loopback only, a random port, and a per-start random token the server requires on every request
  (passed in the environment, which only the owner can read; kept in a state file of mode 0600);
- a file lock, so two processes starting at once start one server;
- every use touches a file, and a request holds a shared lock on it while it runs; the watchdog
  stops the server after ``llm_idle_minutes`` without use, never while a request holds the lock
  (a summary's long prompt can take minutes to read before its first token);
- a crashed, killed or unresponsive server (or one started for another model or context size) is
  detected by the next process, stopped and replaced.

``citeline llm status`` and ``citeline llm stop`` show and end it. ``llm_idle_minutes = 0`` turns
residency off: each process then starts its own server and stops it at exit, as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import secrets
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from rag.errors import BackendUnavailable, CitelineError, warn
from rag.files import move_aside, open_log, open_regular, regular_or_absent, remove_left_behind
from rag.llm.models import (
    ensure_weights,
    interrupt_held,
    lookup,
    server_command,
    stop_process,
)
from rag.llm.ports import free_port
from rag.llm.prefix import prepare_server
from rag.settings import Settings

START_TIMEOUT = 240.0
STARTER_POLL = 0.5  # s: how often a watchdog not yet recorded looks whether its starter is alive
STARTER_VARIABLE = "CITELINE_WATCHDOG_STARTER"
PID_MAX = 4_194_304  # the kernel's ceiling for /proc/sys/kernel/pid_max
STATE_MAX_BYTES = 64 * 1024
# The module the watchdog runs as (``python -m ...``): its command line is part of the proof that a
# process is ours. The name before the move to ``rag/llm/`` still counts, so that a watchdog started
# by the previous version is reused or stopped after an upgrade, not left serving until it idles out.
WATCHDOG_MODULE = "rag.llm.resident"
LEGACY_WATCHDOG_MODULES = ("rag.answer.resident",)


@dataclass(frozen=True)
class ServerState:
    """What the state file records about a running resident server.

    The state file is input like any other: it may be stale (a reboot reused the pid), damaged, or
    written by someone else. ``pid_start`` (the watchdog's start time in clock ticks after boot,
    field 22 of ``/proc/PID/stat``) is what lets :func:`is_ours` prove that the process behind
    ``pid`` is still the one we started before anything is signalled.
    """

    pid: int  # the watchdog's pid (it owns the llama.cpp process)
    port: int
    token: str
    model: str
    context_tokens: int
    started: float
    pid_start: int

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"


@dataclass(frozen=True)
class StateRead:
    """The state file as read: a trusted state, or why the file there cannot be trusted."""

    state: ServerState | None
    problem: str | None = None  # set when a file exists but is damaged, foreign or unsafe


def _directory(settings: Settings) -> Path:
    return settings.data_dir / "llm"


def _state_file(settings: Settings) -> Path:
    return _directory(settings) / "server.json"


def _used_file(settings: Settings) -> Path:
    return _directory(settings) / "last-used"


def parse_state(raw: bytes) -> ServerState:
    """A state record whose every field has the right type and a possible value (else ValueError).

    ``pid`` must be above 1: ``kill(-1)`` signals every process, ``kill(0)`` the caller's group.
    """
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    kinds = {
        "pid": int,
        "port": int,
        "token": str,
        "model": str,
        "context_tokens": int,
        "started": (int, float),
        "pid_start": int,
    }
    for name, kind in kinds.items():
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(f"{name} is {str(value)[:40]!r}")
    checks = {
        "pid": 1 < data["pid"] <= PID_MAX,
        "port": 0 < data["port"] < 65536,
        "token": 16 <= len(data["token"]) <= 256 and data["token"].isprintable(),
        "context_tokens": 0 < data["context_tokens"] < 10**7,
        "started": _valid_time(data["started"]),
        "model": 0 < len(data["model"]) <= 200 and _encodable(data["model"]),
        "pid_start": data["pid_start"] > 0,
    }
    for name, ok in checks.items():
        if not ok:
            raise ValueError(f"{name} is {str(data[name])[:40]!r}")
    return ServerState(**{name: data[name] for name in kinds})


def _valid_time(value: float) -> bool:
    try:
        time.localtime(value)
    except (OverflowError, OSError, ValueError):
        return False
    return math.isfinite(value)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape
        return False
    return text.isprintable()


def read_state_file(settings: Settings) -> StateRead:
    """The state file, trusted only when it is a regular file of ours that nobody else can write."""
    if _directory(settings).is_symlink():
        return StateRead(None, f"is in {_directory(settings)}, a symbolic link")
    return _read_state_at(_state_file(settings))


def _read_state_at(path: Path) -> StateRead:
    """:func:`read_state_file` of the file at ``path`` (the watchdog knows only the path)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return StateRead(None)
    except OSError as exc:
        return StateRead(None, f"cannot be read ({exc.strerror})")
    if stat.S_ISLNK(info.st_mode):
        return StateRead(None, "is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        return StateRead(None, "is not a regular file")
    if info.st_uid != os.getuid():
        return StateRead(None, "belongs to another user")
    if info.st_mode & 0o022:
        return StateRead(None, "is writable by other users")
    fd = open_regular(path, os.O_RDONLY)  # swapped for a FIFO since the lstat: no hang on it
    if fd is None:
        return StateRead(None, "is not a regular file")
    try:
        raw = os.read(fd, STATE_MAX_BYTES + 1)
    except OSError as exc:
        return StateRead(None, f"cannot be read ({exc.strerror})")
    finally:
        os.close(fd)
    if len(raw) > STATE_MAX_BYTES:
        return StateRead(None, "is too large")
    try:
        return StateRead(parse_state(raw))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return StateRead(None, f"is damaged ({str(exc)[:80]})")


def read_state(settings: Settings) -> ServerState | None:
    """The recorded server, or None (no file, or one that cannot be trusted)."""
    return read_state_file(settings).state


def _write_state(settings: Settings, state: ServerState) -> None:
    """Write the state file (mode 0600) through a new temporary file and a rename: a symbolic link
    or any other file at the path is replaced, never written through."""
    path = _state_file(settings)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(asdict(state)))
        if path.is_dir() and not path.is_symlink():
            move_aside(path)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _discard_state(settings: Settings) -> None:
    """Remove the state file (a link is removed, never its target; a directory is moved aside)."""
    path = _state_file(settings)
    if not _directory(settings).is_dir() or _directory(settings).is_symlink():
        return  # no state directory of ours: nothing to remove (the next start replaces it)
    try:
        if path.is_dir() and not path.is_symlink():
            move_aside(path)
        else:
            path.unlink(missing_ok=True)
    except OSError as exc:
        raise CitelineError(f"cannot remove the model server's state file {path}: {exc.strerror}") from None


def _process(pid: int) -> tuple[int, list[bytes], int] | None:
    """(start time in clock ticks after boot, argv, owner uid) of a live process, from /proc.

    A process that has exited but is not yet reaped (a zombie: its memory, port and files are
    released, only its pid entry is left) is not live: a stopped watchdog is reaped by init, which
    here takes up to two seconds, and waiting for that made every ``llm stop`` that slow."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        fields = text[text.rindex(")") + 2 :].split()
        if fields[0] in ("Z", "X"):
            return None
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        uid = os.stat(f"/proc/{pid}").st_uid
        return int(fields[19]), argv, uid
    except (OSError, ValueError, IndexError):
        return None


def is_ours(state: ServerState, settings: Settings) -> bool:
    """The process behind ``state.pid`` is the watchdog this state file recorded, proven by its owner,
    its start time, its command line (our module, this state file: the file it leads to, since one
    data dir can be reached by two paths) and the per-start token in its environment. A pid reused
    by another program (after a reboot, say) fails every one of these."""
    if not 1 < state.pid <= PID_MAX or state.pid == os.getpid():
        return False
    found = _process(state.pid)
    if found is None:
        return False
    start, argv, uid = found
    modules = [[b"-m", os.fsencode(name)] for name in (WATCHDOG_MODULE, *LEGACY_WATCHDOG_MODULES)]
    if uid != os.getuid() or start != state.pid_start or argv[1:3] not in modules or len(argv) < 4:
        return False
    if os.path.realpath(argv[3]) != os.path.realpath(os.fsencode(_state_file(settings))):
        return False  # another data dir's watchdog; the same one reached through a link is ours
    try:
        environ = Path(f"/proc/{state.pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return f"API_KEY={state.token}".encode() in environ


def _answers(state: ServerState, timeout: float = 3.0) -> bool:
    import httpx

    try:
        reply = httpx.get(
            f"{state.base_url}/models", headers={"Authorization": f"Bearer {state.token}"}, timeout=timeout
        )
    except httpx.HTTPError:
        return False
    return reply.status_code == 200


def healthy(state: ServerState | None, settings: Settings) -> bool:
    """The recorded server is ours, answers with its token, and serves the model and context asked for."""
    return (
        state is not None
        and state.model == settings.local_model
        and state.context_tokens == settings.context_tokens
        and is_ours(state, settings)
        and _answers(state)
    )


def touch(settings: Settings) -> None:
    """Record a use, which postpones the idle shutdown."""
    path = _used_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


@contextlib.contextmanager
def in_use(settings: Settings) -> Iterator[None]:
    """Hold the server in use for one request: a use is recorded at its start and its end, and
    meanwhile a shared lock on the use file tells the watchdog not to stop the server, however
    long the request takes. The lock goes with the process, so a crashed client holds nothing."""
    touch(settings)
    with _used_file(settings).open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        try:
            yield
        finally:
            touch(settings)


def _idle_hold(used: Path, idle_seconds: float) -> IO[bytes] | None:
    """The use file, locked exclusively, when no request holds it and its last use is more than
    ``idle_seconds`` ago (read under the lock: a client that touched it just before is seen); the
    caller keeps it locked while it stops the server, so no request starts meanwhile. None while
    in use; a missing use file counts as idle."""
    try:
        handle = used.open("rb")
    except OSError:
        return open(os.devnull, "rb")  # nothing to lock; the caller keeps it until it exits
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if time.time() - os.fstat(handle.fileno()).st_mtime > idle_seconds:
            return handle
    except BlockingIOError:
        pass
    handle.close()
    return None


def _terminate(state: ServerState, settings: Settings, timeout: float) -> bool:
    """SIGTERM, then SIGKILL after ``timeout``, to the recorded watchdog, only if :func:`is_ours`.

    The process is pinned by a pidfd before it is checked, so the one checked is the one signalled
    even if it exits and its pid is reused in between. Returns whether it was ours and signalled.
    """
    try:
        handle = os.pidfd_open(state.pid)
    except ProcessLookupError:
        return False
    except OSError:  # no pidfd (old kernel): check and signal by pid
        handle = None
    try:
        if not is_ours(state, settings):
            return False
        _send(handle, state.pid, signal.SIGTERM)
        if not _exited(handle, state.pid, timeout):
            _send(handle, state.pid, signal.SIGKILL)
            _exited(handle, state.pid, 5.0)
        return True
    except ProcessLookupError:
        return True
    finally:
        if handle is not None:
            os.close(handle)


def _send(handle: int | None, pid: int, signum: int) -> None:
    if handle is not None:
        signal.pidfd_send_signal(handle, signum)
    elif pid > 1:
        os.kill(pid, signum)


def _exited(handle: int | None, pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    if handle is not None:
        import select

        poller = select.poll()
        poller.register(handle, select.POLLIN)
        return bool(poller.poll(max(0, int(timeout * 1000))))
    while time.monotonic() < deadline:
        if _process(pid) is None:
            return True
        time.sleep(0.1)
    return _process(pid) is None


def stop(settings: Settings, timeout: float = 20.0) -> ServerState | None:
    """Stop the recorded server if it is provably ours, and remove the state file in any case.

    Returns the state of the server that was stopped, or None when none of ours was running (no
    file, a damaged or untrusted one, or a pid that now belongs to another process: never signalled).
    """
    state = read_state(settings)
    stopped = state is not None and _terminate(state, settings, timeout)
    _discard_state(settings)
    return state if stopped else None


def connect(settings: Settings) -> ServerState:
    """The resident server for these settings: the running one, or a new one started now."""
    from filelock import FileLock

    directory = _directory(settings)
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        warn(f"{directory} is not a directory of ours; moved it aside")
        move_aside(directory)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    for own in (_used_file(settings), directory / "server.lock", settings.data_dir / "llama-server.log"):
        if not regular_or_absent(own):  # a link, FIFO or directory planted there: locked, written
            raise CitelineError(f"{own} is not a file citeline can use; remove it")
    _clean_partial_weights(settings)
    state = read_state(settings)
    if healthy(state, settings):
        touch(settings)
        return state  # type: ignore[return-value]
    # Waiting for another process's start: loading, the system text's state, once more if need be.
    with FileLock(str(directory / "server.lock"), timeout=2 * (START_TIMEOUT + settings.llm_timeout) + 30):
        found = read_state_file(settings)  # another process may have started it while we waited
        if healthy(found.state, settings):
            touch(settings)
            return found.state  # type: ignore[return-value]
        if found.problem:
            warn(f"the model server's state file {found.problem}; replacing it")
        elif found.state is not None and is_ours(found.state, settings) and _answers(found.state):
            _wait_until_free(settings, found.state)  # for other settings, maybe mid-answer
        stop(settings)  # crashed, stale, for another model, or untrusted: replace it
        state = _start(settings)
    touch(settings)
    return state


def _wait_until_free(settings: Settings, state: ServerState) -> None:
    """Wait until no request holds the server (:func:`in_use`) before it is replaced: a process
    with other settings (``CITELINE_CONTEXT_TOKENS``, the model) replaced it mid-answer, and the
    other terminal's answer failed with "cannot reach the LLM". A one-line error after
    ``llm_timeout`` seconds of waiting."""
    deadline = time.monotonic() + settings.llm_timeout
    try:
        used_file = _used_file(settings).open("rb")
    except FileNotFoundError:  # no request has ever held it (or a planted link was just removed)
        return
    with used_file as used:
        while True:
            try:
                fcntl.flock(used, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BackendUnavailable(
                        f"the model server (context {state.context_tokens} tokens, {state.model}) is still "
                        "answering another request; try again when it is done, or use the same settings"
                    ) from None
                time.sleep(0.2)
                continue
            fcntl.flock(used, fcntl.LOCK_UN)
            return


def _clean_partial_weights(settings: Settings) -> None:
    """Remove weight files a killed assembly left behind (``NAME.<pid>.part`` of a pid that is
    gone); a file of another name (``notes.part``), a directory or a link is not ours to remove."""
    remove_left_behind(settings.models_dir, "*.*.part")


_STARTED_HERE: set[int] = set()  # watchdog pids this process launched (``llm start`` says so)


def _start(settings: Settings) -> ServerState:
    model = lookup(settings.local_model)
    weights = ensure_weights(model, settings.models_dir)
    port = free_port()
    token = secrets.token_urlsafe(32)
    command = server_command(model, weights, port, settings.context_tokens)
    log = settings.data_dir / "llama-server.log"
    with in_use(settings):  # loading the weights (and the system text's state) is no idle time either
        for _ in range(2):  # a server that died on a state file (now moved aside) is started once more
            if state := _launch(settings, command, port, token, log, weights):
                _STARTED_HERE.add(state.pid)
                return state
        raise BackendUnavailable(f"the embedded LLM server did not start; see {log}")


SERVER_STOP = 10.0  # seconds the watchdog gives its llama.cpp server to stop before SIGKILL
WATCHDOG_STOP = SERVER_STOP + 5  # ... and a starting process its watchdog, which stops the server first


def _launch(
    settings: Settings, command: list[str], port: int, token: str, log: Path, weights: Path
) -> ServerState | None:
    """Start the watchdog (which starts the server), wait until the server answers, restore the
    system text's state (:mod:`rag.llm.prefix`) and only then record it: no other process can
    reach the server before, so none of their questions is saved as that state. None when the
    server died meanwhile (the watchdog, our child, is stopped)."""
    idle = str(settings.llm_idle_minutes * 60)
    paths = [str(_state_file(settings)), str(_used_file(settings))]
    watchdog = [sys.executable, "-m", WATCHDOG_MODULE, *paths, idle, str(log), *command]
    env = {**os.environ, "API_KEY": token, STARTER_VARIABLE: str(os.getpid())}
    process: subprocess.Popen | None = None
    try:
        with interrupt_held():
            process = subprocess.Popen(
                watchdog,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        found = _process(process.pid)
        state = ServerState(
            process.pid,
            port,
            token,
            settings.local_model,
            settings.context_tokens,
            time.time(),
            found[0] if found else 1,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(state, timeout=2):
            if process.poll() is not None or time.monotonic() > deadline:
                raise BackendUnavailable(f"the embedded LLM server did not start; see {log}")
            time.sleep(0.3)
        prepared = prepare_server(command, port, weights, log, token, settings.llm_timeout)
        if prepared and not _answers(state, timeout=2):  # it died restoring a state file
            stop_process(process, timeout=WATCHDOG_STOP)
            return None
        _write_state(settings, state)
    except BaseException:
        # Ctrl-C, a timeout or an error before the state names it: nothing else could ever find
        # (or stop) this watchdog and its ~1 GB server, so the process that started it stops it.
        if process is not None:
            stop_process(process, timeout=WATCHDOG_STOP)
        raise
    return state


def _die_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` that has the kernel SIGTERM the child when its parent (the watchdog) dies,
    even by SIGKILL, so a killed watchdog never leaves ~1 GB of llama.cpp server behind."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()

    def arm() -> None:
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(1)

    return arm


def _watch(state: Path, used: Path, idle_seconds: float, log: Path, command: list[str]) -> int:
    """Run the server; stop it after ``idle_seconds`` without a touch of ``used`` while no request
    holds it (:func:`in_use`), or on SIGTERM.

    On the way out the state file is removed if it still names this watchdog.
    """
    starter = _starter()
    out = open_log(log)  # None: a link or FIFO there; the server's output is then not kept
    arm = _die_with_parent() if sys.platform == "linux" else None
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL if out is None else out,
            stderr=subprocess.STDOUT,
            preexec_fn=arm,
        )
    finally:
        if out is not None:
            os.close(out)

    def finish(*_: object) -> None:
        stop_process(child, timeout=SERVER_STOP)
        if _names_this_process(state):
            with contextlib.suppress(OSError):
                state.unlink()
        sys.exit(0)

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    interval = max(0.5, min(30.0, idle_seconds / 4))
    recorded = False
    while child.poll() is None:
        time.sleep(interval if recorded else STARTER_POLL)
        if not recorded:
            # Until the state file names this watchdog, only the process that started it knows
            # it. Killed meanwhile (SIGKILL, an OOM kill: no clean-up of its own), it leaves us
            # orphaned: nothing could ever find or stop us and the ~1 GB server, so we stop.
            # The parent is looked at first: once it is gone, whatever it wrote is on disk.
            orphaned = os.getppid() != starter
            recorded = _names_this_process(state)
            if orphaned and not recorded:
                finish()
            continue
        held = _idle_hold(used, idle_seconds)
        if held is not None:
            finish()  # ``held`` keeps the lock until this process exits
    finish()  # the server died on its own: clean up the same way
    return 0


def _starter() -> int:
    """The pid of the process that started this watchdog (from :data:`STARTER_VARIABLE`, taken out
    of the environment the server inherits): the parent, unless it already died, when
    ``getppid`` would name whoever adopted us."""
    try:
        return int(os.environ.pop(STARTER_VARIABLE))
    except (KeyError, ValueError):
        return os.getppid()


def _names_this_process(state: Path) -> bool:
    """The state file, read as every process reads it (:func:`_read_state_at`), names this
    process as the watchdog."""
    recorded = _read_state_at(state).state
    return recorded is not None and recorded.pid == os.getpid()


if __name__ == "__main__":
    sys.exit(
        _watch(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), sys.argv[5:])
    )


def llm_status(settings: Settings) -> dict:
    """What ``citeline llm status`` shows: whether the resident server runs, where, since when, idle for."""
    found = read_state_file(settings)
    if found.problem:
        return {"running": False, "problem": f"the state file {found.problem}; the next ask replaces it"}
    state = found.state
    if state is None:
        return {"running": False}
    ours = is_ours(state, settings)
    running = ours and _answers(state)
    try:
        idle = time.time() - _used_file(settings).stat().st_mtime
    except OSError:
        idle = None
    return {
        "running": running,
        "pid": state.pid,
        "ours": ours,
        "url": state.base_url,
        "model": state.model,
        "context_tokens": state.context_tokens,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(state.started)),
        "uptime_s": round(time.time() - state.started, 1),
        "idle_s": None if idle is None else round(idle, 1),
        "idle_shutdown_s": settings.llm_idle_minutes * 60,
    }


def llm_start(settings: Settings) -> dict:
    """Start the resident server now, as the next ask would (or find the running one), so a
    session's first answer does not wait for the weights to load; :func:`llm_status` of it, with
    ``started`` saying whether this call started it."""
    before = set(_STARTED_HERE)  # a library process may have started one for an earlier answer
    state = connect(settings)  # waits for another process starting it, and then uses that one
    return {**llm_status(settings), "started": state.pid in _STARTED_HERE - before}


def llm_stop(settings: Settings) -> bool:
    """Stop the resident server; False when none of ours was running (nothing else is signalled)."""
    return stop(settings) is not None
