"""What the captures list says of each capture beyond its upload: the time its own packets
span (first and last packet time, from the capture's traffic, not its upload) and how many
findings its analysis made."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...store.models import Capture, Finding


@dataclass(frozen=True, slots=True)
class CaptureSpan:
    first: datetime | None  # the first packet's time (UTC); None before the analysis read it
    last: datetime | None
    findings: int

    @property
    def seconds(self) -> float | None:
        return None if self.first is None or self.last is None else (self.last - self.first).total_seconds()

    @property
    def duration(self) -> str:
        """"2 h 5 min", "3 d", "41 s", "0.3 s", "—": the two largest units."""
        seconds = self.seconds
        if seconds is None:
            return "—"
        if seconds < 10:
            return f"{seconds:.1f} s"
        whole = round(seconds)
        days, rest = divmod(whole, 86400)
        hours, rest = divmod(rest, 3600)
        minutes, secs = divmod(rest, 60)
        parts = [(days, "d"), (hours, "h"), (minutes, "min"), (secs, "s")]
        start = next((i for i, (n, _) in enumerate(parts) if n), len(parts) - 1)
        shown = [f"{n} {unit}" for n, unit in parts[start:start + 2] if n]  # the two largest units
        return " ".join(shown)


def _utc(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


def capture_spans(session: Session, capture_ids: Iterable[str]) -> Mapping[str, CaptureSpan]:
    """Capture id -> its span and findings count, for the captures given."""
    ids = sorted(set(capture_ids))
    if not ids:
        return {}
    found = dict(session.execute(select(Finding.capture_id, func.count()).where(Finding.capture_id.in_(ids))
                                 .group_by(Finding.capture_id)).all())
    return {cid: CaptureSpan(_utc(first), _utc(last), found.get(cid, 0))
            for cid, first, last in session.execute(select(Capture.id, Capture.first_time, Capture.last_time)
                                                    .where(Capture.id.in_(ids)))}
