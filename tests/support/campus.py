"""The 1,000-host campus of the test kit (tracepcap.testing.campus), stored and adjudicated:
the kit stores the rows, the conductor's `adjudicate_capture` answers every question."""

from __future__ import annotations

from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import adjudicate_capture
from tracepcap.testing import campus


def build(db) -> None:
    """Store the campus capture (id `campus.CID`) in `db` and adjudicate it."""
    campus.store(db)
    adjudicate_capture(db, get_registry(), campus.CID)
