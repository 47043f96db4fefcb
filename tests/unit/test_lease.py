"""The ingest lease and generation protocol, against a fake of the collection metadata it shares.

The integration tests run it on a real Chroma server (tests/integration/test_sources.py, when one is
configured); here each rule is checked on its own, with a clock the test sets and, for the race a
read-back exists for, another machine's write slipped in between this one's write and its read.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from rag.errors import CitelineWarning, StoreBusy
from rag.index.lease import GENERATION, LEASE, IngestLease

NOW = 1_900_000_000.0
ME = "host-b pid 42#aaaa1111"
OTHER = "host-a pid 7#bbbb2222"


class FakeCollection:
    """A collection's metadata as a server keeps it: read fresh, replaced whole, writes counted.

    ``after_write`` runs after each write, as another machine writing at that moment would.
    """

    def __init__(self, metadata: dict[str, Any] | None = None) -> None:
        self.name = "shared"
        self.stored = {"embedding_model": "minilm", **(metadata or {})}
        self.writes = 0
        self.after_write: Callable[[], None] = lambda: None

    def fresh_metadata(self) -> dict[str, Any]:
        return dict(self.stored)

    def set_metadata(self, metadata: dict[str, Any]) -> None:
        self.stored = dict(metadata)
        self.writes += 1
        self.after_write()


def _lease(collection: FakeCollection) -> IngestLease:
    return IngestLease(collection, clock=lambda: NOW, sleep=lambda _: None)


def test_a_free_collection_is_claimed_until_now_plus_the_lease_time():
    collection = FakeCollection()
    _lease(collection).claim(ME, 600)
    assert collection.stored == {"embedding_model": "minilm", LEASE: f"{ME}|{NOW + 600:.0f}"}


def test_someone_elses_live_lease_is_refused_naming_the_holder_and_its_expiry():
    collection = FakeCollection({LEASE: f"{OTHER}|{NOW + 300:.0f}"})
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(NOW + 300))
    with pytest.raises(
        StoreBusy, match=rf"'shared' is being ingested by host-a pid 7 \(lease until {when}\)"
    ):
        _lease(collection).claim(ME, 600)
    assert collection.stored[LEASE] == f"{OTHER}|{NOW + 300:.0f}" and collection.writes == 0


def test_an_expired_lease_or_one_whose_holder_is_gone_is_taken_over():
    expired = FakeCollection({LEASE: f"{OTHER}|{NOW - 1:.0f}"})
    _lease(expired).claim(ME, 600)
    assert expired.stored[LEASE] == f"{ME}|{NOW + 600:.0f}"
    killed = FakeCollection({LEASE: f"{OTHER}|{NOW + 300:.0f}"})
    _lease(killed).claim(ME, 600, is_gone=lambda holder: holder == OTHER)
    assert killed.stored[LEASE] == f"{ME}|{NOW + 600:.0f}"


def test_the_holder_renews_its_own_lease():
    collection = FakeCollection({LEASE: f"{ME}|{NOW + 10:.0f}"})
    _lease(collection).claim(ME, 600)
    assert collection.stored[LEASE] == f"{ME}|{NOW + 600:.0f}"


def test_a_claim_overwritten_before_it_is_read_back_loses_to_the_other_machine():
    collection = FakeCollection()

    def other_machine_writes() -> None:
        collection.stored[LEASE] = f"{OTHER}|{NOW + 600:.0f}"

    collection.after_write = other_machine_writes
    with pytest.raises(StoreBusy, match="being ingested by host-a pid 7 "):
        _lease(collection).claim(ME, 600)


@pytest.mark.parametrize("bad", ["a|b", f"{OTHER}|inf", f"{OTHER}|1e300", f"|{NOW + 300:.0f}", "no-bar"])
def test_a_malformed_lease_is_warned_about_and_overwritten(bad):
    collection = FakeCollection({LEASE: bad})
    with pytest.warns(
        CitelineWarning, match=r"collection 'shared' has a malformed ingest lease .*treated as none"
    ):
        _lease(collection).claim(ME, 600)
    assert collection.stored[LEASE] == f"{ME}|{NOW + 600:.0f}"


def test_finishing_releases_the_lease_and_bumps_the_generation_only_on_change():
    collection = FakeCollection({LEASE: f"{ME}|{NOW + 600:.0f}", GENERATION: "g0"})
    _lease(collection).finish(ME, changed=False)
    assert collection.stored == {"embedding_model": "minilm", GENERATION: "g0"}
    _lease(collection).finish(None, changed=False)  # nothing held, nothing changed: nothing written
    assert collection.writes == 1
    _lease(collection).finish(None, changed=True)
    bumped = collection.stored[GENERATION]
    assert bumped != "g0" and LEASE not in collection.stored
    _lease(collection).finish(None, changed=True)
    assert collection.stored[GENERATION] not in ("g0", bumped)


def test_finishing_leaves_a_lease_another_holder_took_over_in_place():
    for theirs in (f"{OTHER}|{NOW + 600:.0f}", f"{ME}0|{NOW + 600:.0f}"):  # a holder named ME + "0" too
        collection = FakeCollection({LEASE: theirs, GENERATION: "g0"})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _lease(collection).finish(ME, changed=True)
        assert collection.stored[LEASE] == theirs and collection.stored[GENERATION] != "g0"
