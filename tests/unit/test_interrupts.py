"""Ctrl-C during a long job: raised at the job's next checkpoint, or at once when pressed twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from rag.llm.models import interrupt_held, stop_process
from rag.ui.interrupts import DeferredInterrupt


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture(autouse=True)
def _python_ctrl_c_handler():
    """Python's own SIGINT handler for each test, whatever pytest was started with: a process
    started in the background by a shell without job control inherits SIGINT ignored, and Python
    then installs no handler (so a Ctrl-C sent to itself would do nothing)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_first_ctrl_c_waits_for_a_checkpoint_and_the_second_raises_at_once(capfd):
    calls = []
    with DeferredInterrupt() as interrupt:
        step = interrupt.checked(calls.append)
        step(1)
        _ctrl_c()  # delivered here, but only noted
        assert interrupt.requested
        with pytest.raises(KeyboardInterrupt):
            step(2)
        assert calls == [1]
        with pytest.raises(KeyboardInterrupt):
            _ctrl_c()
    assert "Ctrl-C again to stop at once" in capfd.readouterr().err


def test_the_previous_ctrl_c_handler_is_restored_afterwards():
    before = signal.getsignal(signal.SIGINT)
    with DeferredInterrupt():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before


def test_a_ctrl_c_noted_but_never_checked_is_raised_when_the_job_ends_not_lost():
    with pytest.raises(KeyboardInterrupt), DeferredInterrupt():
        _ctrl_c()  # the job ends before its next checkpoint


def test_ctrl_c_around_a_first_use_check_that_ingests_nothing_is_not_deferred():
    from rag.ui.render import ingest_progress

    with ingest_progress() as update:
        with pytest.raises(KeyboardInterrupt):
            _ctrl_c()  # ensure_index found the index: no "start" event, so Ctrl-C acts at once
        update("start", 0, "default")  # an ingest begins: from here the first Ctrl-C waits
        _ctrl_c()
        with pytest.raises(KeyboardInterrupt):
            update("total", 3, "seeds.txt")


_FINALIZER_SWALLOWS_CTRL_C = """
import os, signal, sys, time
from rag.ui.interrupts import redeliver_swallowed
if sys.argv[1] == "hooked":
    sys.unraisablehook = redeliver_swallowed

class Closing:
    def __del__(self):  # a library's finalizer, running when the user presses Ctrl-C
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))

try:
    Closing()
    deadline = time.monotonic() + 0.75  # ours re-sends it after 0.05 s
    while time.monotonic() < deadline:  # the command's own work
        time.sleep(0.01)
    print("ran on")
except KeyboardInterrupt:
    print("stopped")
"""


@pytest.mark.parametrize(("hook", "outcome"), [("hooked", "stopped"), ("python's own", "ran on")])
def test_a_ctrl_c_swallowed_by_a_finalizer_is_sent_again_and_stops_the_command(hook, outcome):
    """Python's own hook is the control: without ours the Ctrl-C is printed and lost."""
    done = subprocess.run(
        [sys.executable, "-c", _FINALIZER_SWALLOWS_CTRL_C, hook], capture_output=True, text=True, timeout=30
    )
    assert done.stdout.strip() == outcome
    assert ("Exception ignored" in done.stderr) is (hook != "hooked"), done.stderr


def test_a_ctrl_c_while_a_child_is_started_arrives_once_the_child_is_held():
    started = []
    with pytest.raises(KeyboardInterrupt), interrupt_held():
        _ctrl_c()  # as if pressed inside Popen, after the fork
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]))
    (child,) = started  # the handle exists, so the caller's clean-up can stop the child
    stop_process(child, timeout=5)
    assert child.returncode is not None


def test_a_held_ctrl_c_goes_to_the_handler_that_was_there_before():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: seen.append(signum))
    try:
        with interrupt_held():
            _ctrl_c()
            assert seen == []
        assert seen == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_while_a_finished_command_flushes_its_output_is_one_line_and_130(monkeypatch, capsys):
    import cli

    class Stalled:
        def flush(self) -> None:
            raise KeyboardInterrupt  # pressed while the last output waited for its reader

    monkeypatch.setattr(cli._Run, "read_only", True)
    monkeypatch.setattr(sys, "stdout", Stalled())
    with pytest.raises(SystemExit) as leaving:
        cli._leave(0)
    assert leaving.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"
