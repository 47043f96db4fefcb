"""The ingest lease and generation token that machines sharing a Chroma server coordinate with.

Machines sharing a server have no common lock file, so an ingest of a server collection takes a
lease kept in the collection's own metadata: ``holder|expiry`` under :data:`LEASE`, with an expiry
(renewed while the ingest runs, so a crashed ingest frees the collection). Chroma has no
compare-and-set, so the protocol is best effort: a claim is written, then read back before it
counts. Every ingest that changed the collection leaves a new :data:`GENERATION` token, which
clients compare with the one their BM25 index was built from (a chunk count misses a change that
keeps the count, such as another machine rewriting one paper).

The protocol is kept apart from :class:`rag.index.store.Store`, which adapts Chroma: it needs only
a collection's metadata, read fresh and replaced whole (:class:`CollectionMetadata`), so its rules
are checked against a fake of that in ``tests/unit/test_lease.py``.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from rag.errors import StoreBusy, warn

# Collection metadata keys citeline writes besides the embedding model.
GENERATION = "citeline_generation"
LEASE = "citeline_ingest"


class CollectionMetadata(Protocol):
    """What the lease needs of a collection: its name, and its metadata as the server holds it now."""

    name: str

    def fresh_metadata(self) -> dict[str, Any]:
        """The metadata as stored now (another machine may have changed it since it was opened)."""
        ...

    def set_metadata(self, metadata: dict[str, Any]) -> None:
        """Replace the metadata with ``metadata``."""
        ...


def generation(metadata: dict[str, Any] | None) -> str | None:
    """The generation token in ``metadata`` (None before the first ingest that wrote anything)."""
    return (metadata or {}).get(GENERATION)


class IngestLease:
    """The lease and generation protocol on one collection's metadata.

    ``clock`` and ``sleep`` are the wall clock (expiries are compared across machines) and the
    pause before a claim is read back; tests pass their own.
    """

    def __init__(
        self,
        collection: CollectionMetadata,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.collection = collection
        self.clock = clock
        self.sleep = sleep

    def claim(self, holder: str, seconds: float, is_gone: Callable[[str], bool] = lambda _: False) -> None:
        """Take the lease for ``seconds`` (or renew it), or fail naming who holds it.

        ``is_gone`` tells a holder known to have died (a killed ingest on this machine) from a live
        one. The claim is read back after a pause: another machine's claim written meanwhile wins,
        and this one fails as if it had found it.
        """
        for attempt in range(2):
            current = self.collection.fresh_metadata()
            lease = self._parse(current.get(LEASE))
            if lease and lease[0] != holder and lease[1] > self.clock() and not is_gone(lease[0]):
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(lease[1]))
                raise StoreBusy(
                    f"collection {self.collection.name!r} is being ingested by {lease[0].split('#')[0]} "
                    f"(lease until {when}); wait for it to finish"
                )
            if attempt == 0:
                self.collection.set_metadata(
                    dict(current, **{LEASE: f"{holder}|{self.clock() + seconds:.0f}"})
                )
                self.sleep(0.2)

    def _parse(self, value: object) -> tuple[str, float] | None:
        """(holder, expiry) of a stored lease; None when there is none or it cannot be read.

        The metadata is shared and editable by anything that can reach the server: a value that is
        not ``holder|epoch seconds`` (or whose date cannot be shown) locks nobody out, it is
        overwritten by this ingest's own lease, with a warning.
        """
        held = str(value or "")
        if not held:
            return None
        holder, _, expires = held.rpartition("|")
        try:
            expiry = float(expires)
            if not holder or not math.isfinite(expiry):
                raise ValueError(held)
            time.localtime(expiry)
        except (ValueError, OverflowError, OSError):
            warn(
                f"collection {self.collection.name!r} has a malformed ingest lease {held[:80]!r}; "
                "treated as none"
            )
            return None
        return holder, expiry

    def finish(self, holder: str | None, changed: bool) -> None:
        """Release the lease (if ``holder`` still holds it) and, when the ingest changed anything,
        leave a new generation; nothing is written when there is neither to do."""
        current = self.collection.fresh_metadata()
        if holder and str(current.get(LEASE) or "").startswith(holder + "|"):
            current.pop(LEASE)
        elif not changed:
            return
        if changed:
            current[GENERATION] = uuid.uuid4().hex
        self.collection.set_metadata(current)
