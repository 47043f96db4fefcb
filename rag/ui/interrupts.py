"""Ctrl-C that stops a long job at a safe point instead of wherever Python happens to be."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

NOTICE = b"\nstopping after the current batch (Ctrl-C again to stop at once)\n"
REDELIVERY_DELAY = 0.05  # s: long enough for the finalizers that are running to have returned


class DeferredInterrupt:
    """Turns the first Ctrl-C into a :class:`KeyboardInterrupt` raised at the next checkpoint.

    Why not let Python raise it: CPython runs the SIGINT handler between any two bytecodes,
    including inside ``__del__`` methods and weakref callbacks of the libraries an ingest drives
    (chromadb, onnxruntime). An exception raised there is printed as "Exception ignored" and
    dropped, so once in a while Ctrl-C was lost and the ingest ran on to the end. Raising only
    from :meth:`checkpoint`, which the job calls between units of work, makes the first Ctrl-C
    reliable; a second one raises at once, for a user who will not wait. Outside the main thread
    (where signal handlers cannot be set) this does nothing and Ctrl-C behaves as usual.
    """

    def __init__(self) -> None:
        self.requested = False
        self.delivered = False  # a checkpoint raised it: the job has seen it
        self._previous: signal.Handlers | Callable | int | None = None
        self._installed = False

    def __enter__(self) -> DeferredInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Restore the previous handler; a Ctrl-C noted but never checked is raised now, not lost."""
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False
        if kind is None and self.requested and not self.delivered:
            raise KeyboardInterrupt

    def _handle(self, signum: int, frame: object) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        os.write(2, NOTICE)  # raw write: a handler may interrupt a buffered write to stderr

    def checkpoint(self) -> None:
        """Raise :class:`KeyboardInterrupt` if Ctrl-C was pressed since the job started."""
        if self.requested:
            self.delivered = True
            raise KeyboardInterrupt

    def checked(self, callback: Callable[_P, _R]) -> Callable[_P, _R]:
        """``callback`` with a checkpoint before each call (e.g. a progress callback)."""

        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            """The callback, with the deferred interrupt raised first if one arrived."""
            self.checkpoint()
            return callback(*args, **kwargs)

        return wrapper


def redeliver_swallowed(unraisable: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook`` of the CLI: a Ctrl-C that Python swallowed is sent again.

    A KeyboardInterrupt raised inside a finalizer (a ``__del__`` or weakref callback of httpx,
    Chroma or onnxruntime, run whenever the garbage collector frees one) cannot propagate: Python
    prints "Exception ignored in …" with its traceback and the command runs on to its end, so a
    user's Ctrl-C printed a traceback and stopped nothing. Sent again from a timer thread it is
    raised in the command's own code a moment later (raised from this hook it would be dropped
    too), and the command ends with its one line, "interrupted". Anything else Python would print
    is printed as before."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        if sys.is_finalizing() or not threading.main_thread().is_alive():
            return  # the process is ending (exit handlers, teardown): nothing is left to stop
        timer = threading.Timer(REDELIVERY_DELAY, os.kill, (os.getpid(), signal.SIGINT))
        timer.daemon = True  # never what keeps a process from exiting
        with contextlib.suppress(RuntimeError):  # no new thread can be started at all
            timer.start()
        return
    sys.__unraisablehook__(unraisable)
