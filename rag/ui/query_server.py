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
- one server per data dir: it holds an ``flock`` on ``serve/lock`` for its whole life;
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
import socket
import stat
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.settings import Settings

# The commands a warm process runs (``papers`` only with one of these subcommands). ``chat`` and
# ``check -`` read stdin and ``ingest``/``eval`` write the index: those always run in-process.
FORWARDED = {"search", "ask", "papers", "summarize"}
PAPERS_SUBCOMMANDS = {"list", "show"}
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


def forward(argv: list[str], settings: Settings) -> int | None:
    """Run ``citeline ARGV`` in the warm process: its exit code once its output is written here,
    or None when no server of ours answers or it declines (the caller then runs the command)."""
    if settings.serve_idle_minutes <= 0:
        return None
    if argv[0] in ("ask", "summarize") and settings.llm_idle_minutes <= 0:
        return None  # each process owns its model server: a long-lived process must not keep one
    with _connection(settings) as conn:
        if conn is None:
            return None
        try:
            conn.sendall(json.dumps(_request(argv)).encode() + b"\n")
        except OSError:
            return None
        return _relay(conn)


def _request(argv: list[str]) -> dict:
    env = dict(os.environ)
    if sys.stdout.isatty() and "COLUMNS" not in env:  # the server's terminal is no terminal
        size = os.get_terminal_size(sys.stdout.fileno())
        env.update(COLUMNS=str(size.columns), LINES=str(size.lines))
    return {
        "argv": argv,
        "env": env,
        "cwd": os.getcwd(),
        "tty": [sys.stdout.isatty(), sys.stderr.isatty()],
    }


def _peer(conn: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process at the other end of a Unix socket, from the kernel."""
    pid, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return pid, uid


def _peer_is_server(conn: socket.socket) -> bool:
    """The process at the other end runs as this user and is a citeline query server."""
    pid, uid = _peer(conn)
    if uid != os.getuid():
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return SERVER_FLAG.encode() in argv


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
            return int(payload)
        stream = sys.stdout if kind == OUT else sys.stderr
        try:
            stream.buffer.write(payload)
            stream.flush()
        except OSError:  # the reader went away (`| head`): closing the connection stops the
            return 1  # command, which exits 1 as it does when it runs here
        wrote = True


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


def spawn(settings: Settings, config: Path | None) -> None:
    """Start a server for this data dir in the background (it exits at once if one runs)."""
    if settings.serve_idle_minutes <= 0 or _socket_path(settings.data_dir) is None:
        return
    directory = _own_directory(settings.data_dir, create=True)
    if directory is None:
        return
    import subprocess

    command = [sys.executable, "-m", "cli", SERVER_FLAG, os.fspath(settings.data_dir)]
    if config is not None:
        command.append(os.fspath(config.resolve()))
    with open(directory / "log", "ab") as log:  # what a server that failed to start said
        subprocess.Popen(
            command,
            cwd=directory,  # nothing in it can shadow a module
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )


def status(settings: Settings) -> dict:
    """Whether a warm process serves this data dir (what ``citeline serve status`` shows)."""
    found: dict = {"running": False, "socket": os.fspath(_socket_path(settings.data_dir) or "")}
    found["idle_shutdown_s"] = settings.serve_idle_minutes * 60
    with _connection(settings) as conn:
        if conn is None:
            return found
        found.update(running=True, pid=_peer(conn)[0])
        try:
            conn.sendall(json.dumps({"status": True}).encode() + b"\n")
            conn.settimeout(30)  # it answers once the command it runs now is done
            frame = _read_frame(conn.makefile("rb"))
        except OSError:
            frame = None
        if frame is not None and frame[0] == OUT:
            found.update(json.loads(frame[1]))
    return found


def stop(settings: Settings) -> bool:
    """Ask the data dir's warm process to exit; False when none of ours answers (nothing is
    signalled: it stops itself)."""
    with _connection(settings) as conn:
        if conn is None:
            return False
        try:
            conn.sendall(json.dumps({"stop": True}).encode() + b"\n")
            conn.settimeout(30)
            frame = _read_frame(conn.makefile("rb"))
            return frame is not None and frame[0] == EXIT
        except OSError:
            return False


@contextmanager
def _connection(settings: Settings) -> Iterator[socket.socket | None]:
    """A connection to this data dir's server, proven ours; None when there is none."""
    path = _socket_path(settings.data_dir)
    if path is None or _own_directory(settings.data_dir) is None:
        yield None
        return
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            conn.connect(os.fspath(path))
            ours = _peer_is_server(conn)
        except OSError:  # no server (a refused connection, a socket left by one that ended)
            ours = False
        yield conn if ours else None
    finally:
        conn.close()


# --- the server ---------------------------------------------------------------------------------


def index_stamp(data_dir: Path) -> str | None:
    """What the index holds, as a digest that any ingest, new or removed collection changes.

    Chroma rewrites its HNSW files whenever a process opens a collection, so file times would
    call every reader a writer: its SQLite store is read instead (collections, their metadata and
    the write log's last sequence number); every other index file (BM25) by size and time. None
    when the store cannot be read now (a writer holds it): then nothing is trusted.
    """
    import hashlib

    digest = hashlib.sha256()
    index = data_dir / "index"
    for root, dirs, files in os.walk(index):
        dirs.sort()
        if Path(root) == index / "chroma":
            dirs.clear()  # HNSW segment folders: rewritten by readers, covered by the write log
        for name in sorted(files):
            if name.endswith(".lock"):
                continue  # taken (and so touched) by readers too
            try:
                info = os.stat(os.path.join(root, name))
            except FileNotFoundError:
                continue
            if name == "chroma.sqlite3":
                contents = _chroma_contents(Path(root, name))
                if contents is None:
                    return None
                digest.update(contents.encode())
            else:
                digest.update(f"{root}/{name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def _chroma_contents(path: Path) -> str | None:
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = [
                db.execute("SELECT id, name FROM collections ORDER BY id").fetchall(),
                db.execute("SELECT * FROM collection_metadata ORDER BY 1, 2").fetchall(),
                db.execute("SELECT MAX(seq_id), COUNT(*) FROM embeddings_queue").fetchall(),
            ]
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return repr(rows)


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
        digest.update(f"{path}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


class _Frames:
    """A text stream that sends what is written to the client as frames of one kind."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, conn: socket.socket, kind: bytes, tty: bool, lock: threading.Lock) -> None:
        self._conn, self._kind, self._tty, self._lock = conn, kind, tty, lock

    def write(self, text: str) -> int:
        """Send ``text`` now (a streamed answer shows token by token on the client)."""
        if text:
            with self._lock:  # a progress display refreshes from its own thread
                _send(self._conn, self._kind, text.encode("utf-8", "surrogateescape"))
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


def main(args: list[str], run: Callable[[list[str]], int]) -> int:
    """The server process: ``args`` are the data dir and, if the client had one, its config file."""
    from rag.errors import CitelineError
    from rag.settings import load_settings

    config = Path(args[1]) if len(args) > 1 else None
    try:
        settings = load_settings(config_file=config)
    except CitelineError as exc:  # the environment it was started with is broken: no server
        sys.stderr.write(f"not started: {exc}\n")
        return 1
    return serve(Path(args[0]), settings.serve_idle_minutes, run, lambda: _warm_up(settings))


def _warm_up(settings: Settings) -> None:
    """Import and load what every query needs (the embedder, Chroma, the answer pipeline); the
    collections themselves open on first use."""
    from rag.answer.pipeline import AnswerChain  # noqa: F401 - imported to be warm
    from rag.index.embeddings import make_embedder
    from rag.index.store import Store

    make_embedder(settings).embed_query("warm")
    Store(settings).collections()


def serve(
    data_dir: Path, idle_minutes: float, run: Callable[[list[str]], int], warm: Callable[[], object]
) -> int:
    """Serve commands on ``DATA_DIR/serve/socket`` until idle for ``idle_minutes``, a stop request,
    or a change of the index or the code. ``run(argv)`` runs one command in this process (the CLI's
    own entry) and returns its exit code; ``warm()`` loads what the commands need."""
    directory = _own_directory(data_dir, create=True)
    path = _socket_path(data_dir)
    if directory is None or path is None:
        return 1
    with open(directory / "lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # another server has this data dir
        path.unlink(missing_ok=True)  # left by one that was killed: we hold the lock now
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(os.fspath(path))
        os.chmod(path, 0o600)
        try:
            listener.listen(16)  # a client that comes during the warm-up waits for it
            try:
                warm()
            except Exception as exc:  # the first command loads it instead, and says why
                sys.stderr.write(f"warm-up failed: {type(exc).__name__}: {exc}\n")
            stamps = (index_stamp(data_dir), code_stamp())
            counts = {"served": 0, "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "used": time.monotonic()}
            idle = max(1.0, idle_minutes * 60)
            while True:
                # Only a command counts as use: `serve status` must not keep the process up.
                listener.settimeout(max(0.01, counts["used"] + idle - time.monotonic()))
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    return 0
                with conn:
                    if not _serve_one(conn, run, stamps, data_dir, counts):
                        return 0
        finally:
            listener.close()
            path.unlink(missing_ok=True)  # still ours: a new server binds only once it has the lock


def _serve_one(
    conn: socket.socket, run: Callable[[list[str]], int], stamps: tuple, data_dir: Path, counts: dict
) -> bool:
    """One request; False when the server should exit (asked to stop, or out of date). ``counts``:
    what ``status`` reports (commands served, when it started)."""
    if _peer(conn)[1] != os.getuid():
        return True
    conn.settimeout(10)
    try:
        request = json.loads(conn.makefile("rb").readline(REQUEST_MAX_BYTES))
        if request.get("stop"):
            _send(conn, EXIT, b"0")
            return False
        if request.get("status"):
            shown = {"served": counts["served"], "started": counts["started"]}
            shown["idle_s"] = round(time.monotonic() - counts["used"], 1)
            _send(conn, OUT, json.dumps(shown).encode())
            return True
        argv, env, cwd, tty = request["argv"], request["env"], request["cwd"], request["tty"]
        if not (forwardable(argv) and isinstance(env, dict) and isinstance(cwd, str)):
            _send(conn, DECLINED, b"")
            return True
        if (index_stamp(data_dir), code_stamp()) != stamps or None in stamps:
            _send(conn, DECLINED, b"")
            return False  # what this process loaded is out of date: the next command starts anew
        conn.settimeout(None)
        counts["served"] += 1
        try:
            with _as_client(env, cwd, conn, tty):
                code = run([str(a) for a in argv])
        finally:
            counts["used"] = time.monotonic()
        _send(conn, EXIT, str(code).encode())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # the client went away (Ctrl-C, a closed pipe) or sent nonsense: serve the next one
    return True


@contextmanager
def _as_client(env: dict, cwd: str, conn: socket.socket, tty: list) -> Iterator[None]:
    """The client's environment, working directory and terminal for the length of one command."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    try:
        os.chdir(cwd)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - closed below
        lock = threading.Lock()
        sys.stdout, sys.stderr = (
            _Frames(conn, OUT, bool(tty[0]), lock),
            _Frames(conn, ERR, bool(tty[1]), lock),
        )
        yield
    finally:
        if sys.stdin is not saved_streams[0]:
            sys.stdin.close()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
