"""The embedding model's optimised graph, saved once in the user's cache and read after.

The int8 MiniLM keeps its weights quantised on disk, and onnxruntime dequantises and optimises
the graph at every load: ~0.13 s of every one-shot command, and the int8 copy stays in memory
beside the fp32 one (~70 MB). The first load saves onnxruntime's result (fp32, ~90 MB) in
``~/.cache/citeline/onnx``; later loads read it without optimising (~0.07 s) and compute the same
vectors, bit for bit.

The cache directory is input: a link, FIFO or directory planted where a file goes is never
followed, waited on or taken for the graph. onnxruntime opens paths by name, so it is handed
``/proc/self/fd/N`` of a descriptor opened here (without it, nothing is saved or read). Anything
wrong with the cache (unwritable, full, a damaged file) only means the slower load.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from rag.files import keep_newest, open_regular, regular_or_absent, remove_left_behind

# Bump when the options a graph is saved with change: graphs saved before are then not read.
GRAPH_FORMAT = 1
_PREFIX = "minilm-int8"
_SAMPLE = 1 << 20  # the bytes of the model read from each end to name its graph
_KEEP = 2  # graphs kept, the ones used last: two installs sharing the cache keep one each
_FD = Path("/proc/self/fd")


def session(model: Path, threads: int):
    """An onnxruntime session for ``model``: from its saved graph, else loaded and saved."""
    import onnxruntime as ort

    def load(path: str, level, save: str | None = None):
        options = ort.SessionOptions()
        options.graph_optimization_level = level
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        if save is not None:
            options.optimized_model_filepath = save
        return ort.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])

    # EXTENDED, not ALL: the rest of ALL rewrites layouts for this CPU only (none apply to this
    # model's graph: the vectors are the same), and a graph saved with them may not load elsewhere.
    extended = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    saved = _saved_path(model, ort.__version__) if _FD.is_dir() else None
    if saved is None:
        return load(str(model), extended)
    with contextlib.suppress(OSError):  # the parts of graphs whose writer died mid-save
        remove_left_behind(saved.parent, f"{_PREFIX}-*.onnx.*.part")
    fd = open_regular(saved, os.O_RDONLY)
    if fd is not None:
        try:
            found = load(f"{_FD}/{fd}", ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
            with contextlib.suppress(OSError):
                os.utime(fd)  # used now: pruning keeps the graphs used last
            return found
        except Exception:  # damaged or truncated: made again below
            with contextlib.suppress(OSError):
                saved.unlink()
        finally:
            os.close(fd)
    part = saved.with_name(f"{saved.name}.{os.getpid()}.part")
    with contextlib.suppress(OSError):
        saved.parent.mkdir(parents=True, exist_ok=True)
    # A new file only: never through a link, never one that is there already.
    fd = open_regular(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL) if regular_or_absent(saved) else None
    if fd is None:  # the folder cannot be written, or something not ours is in the way
        return load(str(model), extended)
    made = None
    try:
        made = load(str(model), extended, save=f"{_FD}/{fd}")
        os.fsync(fd)  # complete on disk before it has its name: a crash leaves no half graph
        if os.stat(part, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:  # still ours
            os.replace(part, saved)
        with contextlib.suppress(OSError):  # the graphs used last (a read touches its graph)
            keep_newest(saved.parent, f"{_PREFIX}-{'?' * 16}.onnx", _KEEP)
    except Exception:  # the disk filled, the folder went away: the session made, or a plain load
        made = made if made is not None else load(str(model), extended)
    finally:  # renamed, or (failed, Ctrl-C) no half graph left
        os.close(fd)
        with contextlib.suppress(OSError):
            part.unlink()
    return made


def _saved_path(model: Path, version: str) -> Path | None:
    """Where ``model``'s graph is saved, named by the model's content (its size and the bytes at
    both ends: one name for the same model in every virtualenv), the onnxruntime version and
    :data:`GRAPH_FORMAT`. None when the model cannot be read (its load then says why)."""
    from platformdirs import user_cache_dir

    try:
        with model.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(_SAMPLE)
            fh.seek(max(0, size - _SAMPLE))
            tail = fh.read(_SAMPLE)
    except OSError:
        return None
    key = hashlib.sha256(f"{size}|{version}|{GRAPH_FORMAT}|".encode() + head + tail).hexdigest()[:16]
    return Path(user_cache_dir("citeline", appauthor=False)) / "onnx" / f"{_PREFIX}-{key}.onnx"
