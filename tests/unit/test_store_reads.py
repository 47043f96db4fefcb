"""An embedded store read that meets a segment another process is writing is made again on a
fresh client; any other error, and a server store, are not retried."""

from __future__ import annotations

import pytest

import rag.index.store as store_module
from rag.index.store import Store
from rag.settings import Settings


class InternalError(Exception):  # chromadb.errors.InternalError, by name as the store matches it
    pass


class _Collection:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.metadata = {"embedding_model": "m"}

    def get(self, **kwargs):
        if self.failures:
            raise self.failures.pop(0)
        return {"ids": ["a#0"], "metadatas": [{}]}


class _Client:
    def __init__(self, failures: list[Exception]) -> None:
        self.collection = _Collection(failures)
        self.opened = 0

    def get_collection(self, name, embedding_function=None):
        self.opened += 1
        return self.collection


@pytest.fixture
def fresh_clients(monkeypatch):
    made: list[_Client] = []
    monkeypatch.setattr(store_module, "forget_embedded_clients", lambda: None)
    monkeypatch.setattr(store_module.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(store_module, "connect", lambda settings: made.append(_Client([])) or made[-1])
    return made


def test_a_read_meeting_a_segment_in_mid_write_is_made_again_on_a_fresh_client(tmp_path, fresh_clients):
    client = _Client([InternalError("Error executing plan: Internal error: Error finding id")])
    store = Store(Settings(data_dir=tmp_path), client=client)
    store.open("m")
    assert store._get(ids=["a#0"])["ids"] == ["a#0"]
    assert len(fresh_clients) == 1 and store.client is fresh_clients[0] and fresh_clients[0].opened == 1


def test_other_errors_and_a_server_store_are_not_retried(tmp_path, fresh_clients):
    for settings, error in [
        (Settings(data_dir=tmp_path), InternalError("something else broke")),
        (Settings(data_dir=tmp_path, chroma_url="http://127.0.0.1:9"), InternalError("Error finding id")),
    ]:
        store = Store(settings, client=_Client([error]))
        store.open("m")
        with pytest.raises(InternalError):
            store._get(ids=["a#0"])
    assert fresh_clients == []
