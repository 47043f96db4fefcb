"""Files citeline keeps in its data dir (logs, use stamps, lock files, saved state) and in the
user's cache (the embedding model's saved graph): only regular files of its own are opened or
removed.

The data dir is input too: a symbolic link planted there would have citeline write or lock its
target, a FIFO would block the command (and a watchdog) forever, a directory made every start fail.
Standard library only: the CLI's start-up and the model watchdog import it.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path


def is_regular(path: Path) -> bool:
    """``path`` is a regular file itself (not a link to one, a directory, a FIFO or a device)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def regular_or_absent(path: Path) -> bool:
    """Make ``path`` a regular file or nothing, so that it is safe to open, create or lock: a
    symbolic link there is removed (never its target), anything else that is not a regular file
    (a directory, a FIFO, a socket) is moved aside as ``NAME.damaged-TIME``. False when that
    could not be done (the caller then does without the file)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if stat.S_ISREG(mode):
        return True
    try:
        if stat.S_ISLNK(mode):
            path.unlink()
        else:
            move_aside(path)
    except OSError:
        return False
    return True


def left_behind(path: Path) -> bool:
    """A regular ``NAME.<pid>.<suffix>`` file (a weight assembly's ``.part``, a slot file being
    saved or restored, an embedding model's optimised graph being written) whose process has
    ended: it will never be finished, so it may be removed. A name without a pid, a directory or
    a link of that name is not ours."""
    parts = path.name.rsplit(".", 2)
    pid = parts[-2] if len(parts) == 3 else ""
    return pid.isdigit() and not Path(f"/proc/{pid}").exists() and is_regular(path)


def remove_left_behind(directory: Path, *patterns: str) -> None:
    """Remove the files matching ``patterns`` in ``directory`` that are :func:`left_behind`."""
    for pattern in patterns:
        for stale in directory.glob(pattern):
            if left_behind(stale):
                stale.unlink(missing_ok=True)


def keep_newest(directory: Path, pattern: str, keep: int) -> None:
    """Remove all but the ``keep`` most recently used (modified, or touched on use) regular files
    matching ``pattern`` in ``directory``: an upgrade's or another build's old ones go."""
    found = [f for f in directory.glob(pattern) if is_regular(f)]  # not a link, not a directory
    found.sort(key=lambda f: f.lstat().st_mtime_ns, reverse=True)
    for old in found[keep:]:
        old.unlink(missing_ok=True)


def move_aside(path: Path) -> None:
    """Rename ``path`` to ``NAME.damaged-TIME`` beside it: kept for a look, out of the way."""
    path.rename(path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"))


def open_regular(path: Path, flags: int) -> int | None:
    """A blocking descriptor on ``path`` opened with ``flags`` (a new file 0600), or None unless it
    is a regular file: never through a link, never hanging on a FIFO (opened non-blocking, then
    checked), never a directory (which opens for reading too)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return fd


def open_log(path: Path) -> int | None:
    """A descriptor appending to the log at ``path`` (created 0600), or None when no regular file
    can be had there: a log is never worth a hang or a write through someone's link."""
    if not regular_or_absent(path):
        return None
    return open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
