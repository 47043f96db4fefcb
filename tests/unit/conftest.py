"""Unit tests never touch the user's data dir: ``Settings()`` built in a test defaults to a
temporary one (a listing with a model caches the subfield's terms there, for one)."""

import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.delenv("CITELINE_DATA_DIR", raising=False)
