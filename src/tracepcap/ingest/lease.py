"""The lease of an analysis: an `analyzing` capture must show signs of life.

Its analysis writes `capture.heartbeat_at` when it starts and at every progress tick
(`beat`). When the analysis dies without recording its outcome (the process was killed, or
the database was down or the disk full when its failure was to be written), the capture would
otherwise stay `analyzing` for ever. An `analyzing` capture whose heartbeat is older than the
lease is *stalled*: `requeue_stalled` sets it back to `queued`, its error saying what happened,
so that the worker analyzes it again. The server runs it periodically and on the upload of the
same bytes; readers see `queued` with the reason, never a frozen `analyzing`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from ..store.models import Capture, CaptureStatus

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _aware(at: datetime | None) -> datetime | None:
    return at if at is None or at.tzinfo else at.replace(tzinfo=UTC)  # SQLite drops the offset


def beat(session: Session, capture_id: str) -> None:
    """Record a sign of life of the capture's analysis."""
    session.execute(update(Capture).where(Capture.id == capture_id).values(heartbeat_at=utc_now()))


def last_sign_of_life(capture: Capture) -> datetime | None:
    """The heartbeat, or (a row written before heartbeats existed) the upload time."""
    return _aware(capture.heartbeat_at) or _aware(capture.uploaded_at)


def is_stalled(capture: Capture, lease_seconds: float, now: datetime | None = None) -> bool:
    """An `analyzing` capture with no sign of life for `lease_seconds`."""
    if capture.status != CaptureStatus.ANALYZING:
        return False
    seen = last_sign_of_life(capture)
    return seen is None or (now or utc_now()) - seen > timedelta(seconds=lease_seconds)


def stalled_note(capture: Capture) -> str:
    seen = last_sign_of_life(capture)
    since = seen.strftime("%Y-%m-%d %H:%M:%S UTC") if seen else "its start"
    return (f"its analysis stalled (no sign of life since {since}: the analysis was stopped, or its "
            "outcome could not be recorded); queued again")


def _stalled(lease_seconds: float, capture_id: str | None):
    cutoff = utc_now() - timedelta(seconds=lease_seconds)
    stmt = select(Capture).where(Capture.status == CaptureStatus.ANALYZING,
                                 or_(Capture.heartbeat_at.is_(None), Capture.heartbeat_at < cutoff))
    if capture_id is not None:
        stmt = stmt.where(Capture.id == capture_id)
    return stmt.order_by(Capture.uploaded_at, Capture.id)


def any_stalled(session: Session, lease_seconds: float, *, capture_id: str | None = None,
                exclude: Iterable[str] = ()) -> bool:
    """Whether `requeue_stalled` would find one: a read, so that a writer's turn is taken only
    when there is something to write."""
    skip = set(exclude)
    return any(c.id not in skip and is_stalled(c, lease_seconds)
               for c in session.scalars(_stalled(lease_seconds, capture_id)))


def requeue_stalled(session: Session, lease_seconds: float, *, capture_id: str | None = None,
                    exclude: Iterable[str] = ()) -> list[str]:
    """Set every stalled capture (or only `capture_id`) back to `queued`, saying why; return
    their ids. `exclude`: captures this process is analyzing right now (alive, if quiet)."""
    skip = set(exclude)
    requeued = []
    for capture in session.scalars(_stalled(lease_seconds, capture_id)):
        if capture.id in skip or not is_stalled(capture, lease_seconds):
            continue
        capture.error = stalled_note(capture)
        capture.status, capture.progress_bytes, capture.heartbeat_at = CaptureStatus.QUEUED, 0, utc_now()
        requeued.append(capture.id)
    if requeued:
        session.flush()
        log.warning("queued again %d stalled captures: %s", len(requeued), ", ".join(requeued))
    return requeued
