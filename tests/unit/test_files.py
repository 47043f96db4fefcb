"""Files citeline keeps in its data dir: a link, FIFO or directory planted where a log, use stamp or
lock file goes is never written through, waited on or taken for the file."""

from __future__ import annotations

import os
from pathlib import Path

from rag.files import is_regular, left_behind, open_log, regular_or_absent


def test_a_link_is_removed_never_its_target_and_a_fifo_or_directory_is_moved_aside(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link, fifo, folder = tmp_path / "log", tmp_path / "last-used", tmp_path / "server.lock"
    link.symlink_to(victim)
    os.mkfifo(fifo)
    folder.mkdir()
    assert all(regular_or_absent(p) for p in (link, fifo, folder))
    assert not link.exists() and victim.read_text() == "precious\n"
    assert not fifo.exists() and not folder.exists()
    assert sorted(p.name.split(".damaged-")[0] for p in tmp_path.glob("*.damaged-*")) == [
        "last-used",
        "server.lock",
    ]
    regular = tmp_path / "kept"
    regular.write_text("x")
    assert regular_or_absent(regular) and regular.read_text() == "x" and is_regular(regular)


def test_a_log_planted_as_a_fifo_or_link_gets_a_new_regular_file_and_never_blocks(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("")
    for planted in ("fifo", "link"):
        log = tmp_path / f"{planted}.log"
        os.mkfifo(log) if planted == "fifo" else log.symlink_to(victim)
        fd = open_log(log)  # a FIFO opened for writing with no reader would block forever
        assert fd is not None
        os.write(fd, b"line\n")
        os.close(fd)
        assert is_regular(log) and log.read_text() == "line\n"
    assert victim.read_text() == ""


def test_only_a_name_with_the_pid_of_a_gone_process_is_left_behind(tmp_path):
    for name in ("weights.999999999.part", f"weights.{os.getpid()}.part", "my-notes.part", "notes.v2.part"):
        (tmp_path / name).write_bytes(b"x")  # regular files: only the name decides here
    assert left_behind(tmp_path / "weights.999999999.part")  # no such process
    assert not left_behind(tmp_path / f"weights.{os.getpid()}.part")  # running: ours, in use
    assert not left_behind(tmp_path / "my-notes.part")  # no pid: not one of ours
    assert not left_behind(tmp_path / "notes.v2.part")


def test_ingesting_a_device_or_a_missing_path_is_a_one_line_error_naming_what_is_wrong(tmp_path):
    import pytest

    from rag.errors import BadInput, NotFound
    from rag.index.corpus import expand_paths

    with pytest.raises(BadInput, match="not a regular file or a directory"):
        expand_paths([Path("/dev/zero")])
    with pytest.raises(NotFound, match="no such file or directory"):
        expand_paths([tmp_path / "absent.jsonl"])
