"""A warm process that runs the next one-shot query commands, so they pay no start-up cost.

A cold ``citeline search`` spends ~2.5 of its ~2.7 s starting: importing Chroma, loading the ONNX
embedder, opening the index and BM25. So a query command (``search``, ``ask``, ``papers``,
``summarize``) that ran in its own process leaves a server behind, detached, which runs the next
ones in its warm process and exits after ``serve_idle_minutes`` without a request. The CLI stays
the interface: it sends its arguments, environment and working directory, and writes what comes
back to its own stdout and stderr with the command's exit code, byte for byte what the command
prints in-process; the server runs the very same command function. Whenever no server answers, or
it declines, the CLI runs the command itself. This module imports only the standard library and
the settings, so the forwarding client starts in tens of milliseconds.

Safety and exactness:

- a Unix socket in ``DATA_DIR/serve/`` (a directory of mode 0700 that must be ours): only this user
  can connect; the client also checks the peer's uid and command line (``SO_PEERCRED`` and /proc)
  before it sends anything or prints a byte, and the server checks the client's uid;
- one server per data dir: it holds an ``flock`` on ``serve/lock`` for its whole life, and serves
  only clients running the same ``cli.py``, ``rag`` package and interpreter as itself (another
  checkout or virtualenv on the same data dir runs its commands in-process);
- one command at a time: while one runs, another client's command is declined and runs in its own
  process (two terminals never wait for each other), and a client that goes away (Ctrl-C, a closed
  pager) interrupts its command;
- never stale: before each command the server compares the index (Chroma's collections and
  write log, the BM25 files) and citeline's own code and prompts with what it loaded; if anything
  changed (an ingest from another process, a new collection, an upgrade) it declines and exits, and
  the CLI runs the command itself (then leaves a new server). Settings come from the request: the
  server builds them from the client's environment and ``--config`` for every command;
- nothing is ever signalled: a stale socket is found by a refused connection, a server stops on
  its own when idle, and ``citeline serve stop`` asks it over the socket.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import signal
import socket
import stat
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rag.files import open_log
from rag.index.stamp import add_stat, index_stamp

if TYPE_CHECKING:
    from rag.settings import Settings

# The commands a warm process runs (``papers`` only with one of these subcommands). ``chat`` and
# ``check -`` read stdin and ``ingest``/``eval`` write the index: those always run in-process.
FORWARDED = {"search", "ask", "papers", "summarize"}
PAPERS_SUBCOMMANDS = {"list", "show"}
BROKEN_PIPE = 141  # the exit code of a command whose reader stopped early (| head): 128 + SIGPIPE
SERVER_FLAG = "--query-server"  # cli.main's hidden entry, also the proof of a peer's command line
SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes on Linux
REQUEST_MAX_BYTES = 1 << 20
# Frames from the server: one kind byte, a 4-byte big-endian length, the payload.
OUT, ERR, EXIT, DECLINED = b"o", b"e", b"x", b"n"
_HEADER = struct.Struct(">cI")


def forwardable(argv: list[str]) -> bool:
    """Whether ``citeline ARGV`` is a query command a warm process may run (help stays in-process)."""
    if not argv or argv[0] not in FORWARDED or "--help" in argv:
        return False
    return argv[0] != "papers" or (len(argv) > 1 and argv[1] in PAPERS_SUBCOMMANDS)


def config_argument(argv: list[str]) -> Path | None:
    """The ``--config`` a command line gives (the data dir, and so the socket, may depend on it)."""
    for i, arg in enumerate(argv):
        if arg == "--config" and i + 1 < len(argv):
            return Path(argv[i + 1])
        if arg.startswith("--config="):
            return Path(arg.partition("=")[2])
    return None


def _directory(data_dir: Path) -> Path:
    return data_dir / "serve"


def _socket_path(data_dir: Path) -> Path | None:
    path = _directory(data_dir) / "socket"
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None


def _own_directory(data_dir: Path, create: bool = False) -> Path | None:
    """``DATA_DIR/serve`` if it is a real directory of ours that no one else can enter, else None."""
    directory = _directory(data_dir)
    if create:
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return None
    try:
        info = os.lstat(directory)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return directory


# --- the client: cli.main tries this before it imports anything heavy -------------------------


def forward(argv: list[str], settings: Settings, cli: Path) -> int | None:
    """Run ``citeline ARGV`` in the warm process: its exit code once its output is written here,
    or None when no server of ours answers, it is busy, or it declines (the caller then runs the
    command). ``cli``: the client's own ``cli.py``, so that only a server of the same code (and
    interpreter) serves it."""
    if argv[0] in ("ask", "summarize") and settings.llm_idle_minutes <= 0:
        return None  # each process owns its model server: a long-lived process must not keep one
    try:
        request = json.dumps(_request(argv, cli)).encode() + b"\n"
    except (OSError, AttributeError, ValueError):  # no cwd, a closed stdout: run it here
        return None
    with _connection(settings) as conn:
        if conn is None:
            return None
        try:
            conn.sendall(request)
        except OSError:
            return None
        return _relay(conn)


def _ask(conn: socket.socket, request: dict) -> tuple[bytes, bytes] | None:
    """Send a one-line request (``status``, ``stop``) and read the one frame that answers it."""
    try:
        conn.sendall(json.dumps(request).encode() + b"\n")
        conn.settimeout(30)
        return _read_frame(conn.makefile("rb"))
    except OSError:
        return None


def identity(cli: Path) -> dict:
    """The code a process runs: its interpreter, its ``cli.py`` and its ``rag`` package."""
    package = Path(__file__).resolve().parents[1]
    return {"python": sys.executable, "cli": os.fspath(cli), "rag": os.fspath(package)}


def _request(argv: list[str], cli: Path) -> dict:
    env = dict(os.environ)
    if "COLUMNS" not in env:  # rich sizes output by whichever standard stream is a terminal
        for fd in (0, 1, 2):
            try:
                size = os.get_terminal_size(fd)
            except OSError:
                continue
            env.update(COLUMNS=str(size.columns), LINES=str(size.lines))
            break
    mask = os.umask(0)
    os.umask(mask)
    return {
        "argv": argv,
        "env": env,
        "cwd": os.getcwd(),
        "umask": mask,
        "tty": [sys.stdout.isatty(), sys.stderr.isatty()],
        "encoding": [sys.stdout.encoding, sys.stdout.errors, sys.stderr.encoding, sys.stderr.errors],
        "code": identity(cli),
    }


def _peer(conn: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process at the other end of a Unix socket, from the kernel."""
    pid, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return pid, uid


def _peer_is_server(conn: socket.socket, data_dir: Path) -> bool:
    """The process at the other end runs as this user and is a citeline query server of
    ``data_dir``: a socket linked in from another data dir's ``serve/`` would have this data
    dir's commands answered from that one's index (and ``serve stop`` stop it)."""
    pid, uid = _peer(conn)
    if uid != os.getuid():
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    flag = SERVER_FLAG.encode()
    if flag not in argv:
        return False
    served = argv[argv.index(flag) + 1 :][:1]
    return bool(served) and os.path.realpath(os.fsdecode(served[0])) == os.path.realpath(data_dir)


def _relay(conn: socket.socket) -> int | None:
    """Write the server's frames to stdout and stderr until its exit code arrives."""
    reader = conn.makefile("rb")
    wrote = False
    while True:
        frame = _read_frame(reader)
        if frame is None:
            if not wrote:
                return None  # the server ended before it began: run the command here
            sys.stderr.write("error: the warm citeline process ended mid-command; run it again\n")
            return 1
        kind, payload = frame
        if kind == DECLINED and not wrote:
            return None
        if kind == EXIT:
            return int(payload) if payload.lstrip(b"-").isdigit() else 1
        stream = sys.stdout if kind == OUT else sys.stderr
        try:
            stream.buffer.write(payload)
            stream.flush()
        except BrokenPipeError:  # the reader went away (`| head`): closing the connection stops
            return reader_gone(stream)  # the command, as when it runs here (cli._Stdout)
        except SystemExit as exc:  # cli._Stdout saw the reader go on the flush
            return int(exc.code) if isinstance(exc.code, int) else BROKEN_PIPE
        except OSError:
            return 1
        wrote = True


def reader_gone(stream) -> int:
    """The reader of ``stream`` stopped early (``| head``): what is still written goes to
    /dev/null, and the command's exit code is :data:`BROKEN_PIPE`, as a process SIGPIPE killed."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)
    return BROKEN_PIPE


def _read_frame(reader) -> tuple[bytes, bytes] | None:
    """The next (kind, payload), or None when the server went away (it ended, or was killed)."""
    try:
        header = reader.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return None
        kind, size = _HEADER.unpack(header)
        payload = reader.read(size)
    except OSError:
        return None
    return (kind, payload) if len(payload) == size else None


def spawn(settings: Settings, config: Path | None, cli: Path) -> None:
    """Start a server for this data dir in the background, running the client's own ``cli.py``
    with its interpreter (it exits at once if a server already has the data dir). Not while an
    ingest writes to the data dir's store: a server would see the index change at the next command,
    decline and exit, and each start would take cores from the ingest."""
    if _problem(settings) or _ingest_running(Path(settings.store_dir)):
        return
    directory = _own_directory(settings.data_dir, create=True)
    if directory is None:
        return
    import subprocess

    # Absolute: the server runs in serve/, where a relative data dir would name another one.
    command = [sys.executable, os.fspath(cli), SERVER_FLAG, os.path.abspath(settings.data_dir)]
    if config is not None:
        command.append(os.fspath(config.resolve()))
    log = open_log(directory / "log")
    if log is None:  # a link, FIFO or directory planted there: no warm process (and no hang)
        return
    try:  # the log keeps what a server that failed to start said
        subprocess.Popen(
            command,
            cwd=directory,  # nothing in it can shadow a module
            env={**os.environ, "CITELINE_DATA_DIR": command[3]},  # its warm-up: not relative to serve/
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
    finally:
        os.close(log)


# The inode of each held flock. Matched by inode alone: on btrfs and some overlays stat() names
# another device than /proc/locks does; a match with another file's inode only skips one start.
_FLOCK_HELD = re.compile(r"^\d+: FLOCK\s+\S+\s+\S+\s+\d+\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s", re.M)


def _ingest_running(store: Path) -> bool:
    """A process holds a collection's ingest lock (``STORE/<collection>.lock``, see
    ``rag.index.lexical.collection_lock``), as /proc/locks lists it. Read, never tried: taking the
    lock even for an instant could make an ingest starting then find its collection busy."""
    try:
        held = set(_FLOCK_HELD.findall(Path("/proc/locks").read_text()))
    except OSError:  # not Linux: start the server; it declines when it sees a change
        return False
    for lock in store.glob("*.lock"):
        try:
            found = lock.stat()
        except OSError:
            continue
        if str(found.st_ino) in held:
            return True
    return False


def status(settings: Settings) -> dict:
    """Whether a warm process serves this data dir (what ``citeline serve status`` shows)."""
    found: dict = {"running": False, "socket": os.fspath(_socket_path(settings.data_dir) or "")}
    found["idle_shutdown_s"] = settings.serve_idle_minutes * 60
    with _connection(settings, control=True) as conn:  # one started before serving was turned off too
        if conn is None:
            problem = _problem(settings)
            return {**found, "problem": problem} if problem else found
        found.update(running=True, pid=_peer(conn)[0])
        frame = _ask(conn, {"status": True})
        if frame is not None and frame[0] == OUT:
            found.update(json.loads(frame[1]))
    return found


def _problem(settings: Settings, control: bool = False) -> str | None:
    """Why no warm process can serve this data dir, or None. ``control``: to see or stop one, which
    turning serving off does not prevent (one started before may still be running)."""
    if settings.serve_idle_minutes <= 0 and not control:
        return "turned off: CITELINE_SERVE_IDLE_MINUTES is 0"
    if _socket_path(settings.data_dir) is None:
        return f"the data dir's path is too long for a Unix socket (over {SOCKET_PATH_MAX} bytes)"
    if os.path.lexists(_directory(settings.data_dir)) and _own_directory(settings.data_dir) is None:
        return f"{_directory(settings.data_dir)} is not a directory only you can enter"
    return None


def stop(settings: Settings) -> bool:
    """Ask the data dir's warm process to exit; False when none of ours answers (nothing is
    signalled: it stops itself)."""
    with _connection(settings, control=True) as conn:
        frame = None if conn is None else _ask(conn, {"stop": True})
        return frame is not None and frame[0] == EXIT


@contextmanager
def _connection(settings: Settings, control: bool = False) -> Iterator[socket.socket | None]:
    """A connection to this data dir's server, proven ours; None when there is none (``control``:
    see :func:`_problem`)."""
    path = None if _problem(settings, control) else _socket_path(settings.data_dir)
    if path is None:
        yield None
        return
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            conn.connect(os.fspath(path))
            ours = _peer_is_server(conn, settings.data_dir)
        except OSError:  # no server (a refused connection, a socket left by one that ended)
            ours = False
        yield conn if ours else None
    finally:
        conn.close()


# --- the server ---------------------------------------------------------------------------------


def code_stamp() -> str:
    """citeline's own source and prompts by size and time: an upgrade or an edit of the checkout
    must not be answered by the code a server loaded before it."""
    import hashlib

    from rag.resources import resource_dir

    roots = [Path(__file__).resolve().parents[1], resource_dir("prompts")]
    cli = sys.modules.get("__main__")
    files = [Path(cli.__file__)] if cli is not None and getattr(cli, "__file__", None) else []
    for root in roots:
        files += sorted(p for p in root.rglob("*") if p.suffix in (".py", ".txt"))
    digest = hashlib.sha256()
    for path in files:
        try:
            info = path.stat()
        except OSError:
            continue
        add_stat(digest, path, info)
    return digest.hexdigest()


class _Frames:
    """A text stream that sends what is written to the client as frames of one kind, encoded as
    the client's own stream would encode it (``PYTHONIOENCODING``, the locale)."""

    def __init__(self, conn: socket.socket, kind: bytes, tty: bool, coding: tuple, lock: threading.Lock):
        self._conn, self._kind, self._tty, self._lock = conn, kind, tty, lock
        self.encoding, self.errors = coding

    def write(self, text: str) -> int:
        """Send ``text`` now (a streamed answer shows token by token on the client)."""
        if text:
            data = text.encode(self.encoding, self.errors)
            with self._lock:  # a progress display refreshes from its own thread
                _send(self._conn, self._kind, data)
        return len(text)

    def flush(self) -> None:
        """Every write is sent at once."""

    def isatty(self) -> bool:
        """Whether the client's stream is a terminal (colour, streaming and width follow it)."""
        return self._tty

    def writable(self) -> bool:
        """Always: the client reads until the exit code."""
        return True

    def fileno(self) -> int:
        """None to give: rich then sizes the output from the client's ``COLUMNS``."""
        raise OSError("a forwarded stream has no file descriptor")


def _send(conn: socket.socket, kind: bytes, payload: bytes) -> None:
    conn.sendall(_HEADER.pack(kind, len(payload)) + payload)


def main(args: list[str], run: Callable[[list[str]], int], cli: Path) -> int:
    """The server process: ``args`` are the data dir and, if the client had one, its config file;
    ``run`` runs one command here, ``cli`` is this process's ``cli.py``."""
    from rag.errors import CitelineError
    from rag.settings import load_settings

    config = Path(args[1]) if len(args) > 1 else None
    try:
        settings = load_settings(config_file=config)
    except CitelineError as exc:  # the environment it was started with is broken: no server
        sys.stderr.write(f"not started: {exc}\n")
        return 1
    server = _Server(Path(args[0]), settings.serve_idle_minutes, run, identity(cli))
    return server.serve(lambda: _warm_up(settings))


def _warm_up(settings: Settings) -> None:
    """Import and load what every query needs (the embedder, Chroma, the answer pipeline); the
    collections themselves open on first use."""
    from rag.answer.pipeline import AnswerChain  # noqa: F401 - imported to be warm
    from rag.index.embeddings import make_embedder
    from rag.index.store import Store

    make_embedder(settings).embed_query("warm")
    Store(settings).collections()


class _Server:
    """One data dir's warm process.

    The main thread runs one command at a time (a command changes process-wide state: the
    environment, the working directory, ``sys.stdout``); a thread per connection reads requests,
    answers ``status`` and ``stop`` at once, and declines a command while another one runs, so a
    second terminal's command runs in its own process instead of waiting. A client that goes away
    mid-command (Ctrl-C, a closed pager) interrupts it.
    """

    def __init__(self, data_dir: Path, idle_minutes: float, run: Callable[[list[str]], int], code: dict):
        self.data_dir, self.run, self.code = data_dir, run, code
        self.idle = max(1.0, idle_minutes * 60)
        self.busy = threading.Lock()  # held from a command's acceptance to its end
        self.jobs: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.running = False  # the main thread is inside a command: an interrupt may stop it
        self.served = 0
        self.started = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.used = time.monotonic()
        self.stamps: tuple = (None, None)
        self.socket_inode = 0

    def serve(self, warm: Callable[[], object]) -> int:
        """Bind, warm up, serve until idle, stopped, out of date or replaced; the exit code."""
        directory = _own_directory(self.data_dir, create=True)
        path = _socket_path(self.data_dir)
        if directory is None or path is None:
            return 1
        fd = os.open(directory / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return 0  # another server has this data dir
        path.unlink(missing_ok=True)  # left by one that was killed: we hold the lock now
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(os.fspath(path))
            os.chmod(path, 0o600)
            self.socket_inode = os.stat(path).st_ino
            listener.listen(16)  # a client that comes during the warm-up waits for it
            with self.busy:
                try:
                    warm()
                except Exception as exc:  # the first command loads it instead, and says why
                    sys.stderr.write(f"warm-up failed: {type(exc).__name__}: {exc}\n")
                self.stamps = (index_stamp(self.data_dir), code_stamp())
                self.used = time.monotonic()
            signal.signal(signal.SIGINT, self._interrupt)
            threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
            self._loop(directory / "lock", fd)
            return 0
        finally:
            self._unlink_socket(path)
            listener.close()
            os.close(fd)

    def _loop(self, lock_path: Path, lock_fd: int) -> None:
        while not self.stopping.is_set():
            wait = min(30.0, self.used + self.idle - time.monotonic())
            if wait <= 0:
                return  # idle
            try:
                job = self.jobs.get(timeout=wait)
            except queue.Empty:
                if not _same_file(lock_path, lock_fd):
                    return  # serve/ was removed or replaced: a newer server may own it now
                continue
            if job is not None:
                self._command(*job)

    def _interrupt(self, signum: int, frame: object) -> None:
        """SIGINT (from a client that went away) stops the command running, nothing else."""
        if self.running:
            raise KeyboardInterrupt

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # closed: the server is ending
            threading.Thread(target=self._request, args=(conn,), daemon=True).start()

    def _request(self, conn: socket.socket) -> None:
        """Read one request; hand a command to the main thread, or answer here."""
        handed = False
        try:
            if _peer(conn)[1] != os.getuid():
                return
            conn.settimeout(2)
            request = json.loads(conn.makefile("rb").readline(REQUEST_MAX_BYTES))
            if request.get("stop"):
                _send(conn, EXIT, b"0")  # first: once stopped, the process may be gone
                self._stop()
            elif request.get("status"):
                shown = {"served": self.served, "started": self.started, "busy": self.busy.locked()}
                shown["idle_s"] = round(time.monotonic() - self.used, 1)
                shown["idle_shutdown_s"] = self.idle  # its own, from the environment it started in
                _send(conn, OUT, json.dumps(shown).encode())
            elif not self._valid(request) or request["code"] != self.code:
                _send(conn, DECLINED, b"")  # another checkout or interpreter: its own process runs it
            elif not self.busy.acquire(blocking=False):
                _send(conn, DECLINED, b"")  # busy: run it in-process rather than wait
            elif (index_stamp(self.data_dir), code_stamp()) != self.stamps or None in self.stamps:
                self.busy.release()
                _send(conn, DECLINED, b"")
                self._stop()  # out of date: the next command starts a new server
            else:
                conn.settimeout(None)
                self.jobs.put((conn, request))
                handed = True
        except (OSError, ValueError, AttributeError):
            pass  # the client went away or sent nonsense
        finally:
            if not handed:
                conn.close()

    @staticmethod
    def _valid(request: dict) -> bool:
        fields = {"argv": list, "env": dict, "cwd": str, "umask": int, "tty": list, "encoding": list}
        fields["code"] = dict
        return (
            all(isinstance(request.get(k), kind) for k, kind in fields.items())
            and forwardable(request["argv"])
            and len(request["tty"]) == 2
            and len(request["encoding"]) == 4
        )

    def _stop(self) -> None:
        """No new command from now on (the one running, if any, finishes first)."""
        self.stopping.set()
        self._unlink_socket(_socket_path(self.data_dir))
        self.jobs.put(None)  # wake the main thread

    def _unlink_socket(self, path: Path | None) -> None:
        """Remove the socket file if it is still the one this server bound (never a newer one's)."""
        try:
            if path is not None and os.stat(path).st_ino == self.socket_inode:
                path.unlink()
        except OSError:
            pass

    def _command(self, conn: socket.socket, request: dict) -> None:
        """Run one command in this process as the client would have run it, then release."""
        watcher = threading.Thread(target=self._watch, args=(conn,), daemon=True)
        try:
            self.served += 1
            watcher.start()
            with _as_client(request, conn):
                self.running = True
                try:
                    code = self.run([str(a) for a in request["argv"]])
                finally:
                    self.running = False
            _send(conn, EXIT, str(code).encode())
        except (OSError, ValueError, LookupError, KeyboardInterrupt):
            pass  # the client went away (Ctrl-C, a closed pipe): serve the next one
        finally:
            self.used = time.monotonic()
            conn.close()  # also ends the watcher
            self.busy.release()

    def _watch(self, conn: socket.socket) -> None:
        """Interrupt the running command when its client goes away (it sends nothing after the
        request, so the connection becoming readable means it was closed)."""
        import select

        poller = select.poll()
        try:
            poller.register(conn, select.POLLIN | select.POLLHUP | select.POLLERR)
        except (OSError, ValueError):
            return
        while True:
            try:
                events = poller.poll(200)
            except OSError:
                return
            if conn.fileno() < 0 or not self.busy.locked():
                return
            if events:
                if self.running:
                    signal.raise_signal(signal.SIGINT)
                return


def _same_file(path: Path, fd: int) -> bool:
    """``path`` still names the file open as ``fd``."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


@contextmanager
def _as_client(request: dict, conn: socket.socket) -> Iterator[None]:
    """The client's environment, working directory, umask and terminal for one command."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_mask = os.umask(request["umask"] & 0o777)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in request["env"].items()})
    time.tzset()
    try:
        os.chdir(request["cwd"])
        sys.stdin = open(os.devnull)  # noqa: SIM115 - closed below
        lock = threading.Lock()
        out_coding, err_coding = request["encoding"][:2], request["encoding"][2:]
        sys.stdout = _Frames(conn, OUT, bool(request["tty"][0]), tuple(out_coding), lock)
        sys.stderr = _Frames(conn, ERR, bool(request["tty"][1]), tuple(err_coding), lock)
        yield
    finally:
        if sys.stdin is not saved_streams[0]:
            sys.stdin.close()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()
        os.umask(saved_mask)
        os.chdir(saved_cwd)
