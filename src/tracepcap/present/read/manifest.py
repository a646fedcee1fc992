"""The manifest: what each extractor and stage did with a capture, one row each, in the
order they were written."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...statuses import WHOLE
from ...store.models import ManifestEntry


@dataclass(frozen=True, slots=True)
class ManifestRow:
    """What one extractor or stage did: its status, the facts it wrote, the error if any."""

    extractor: str
    version: str
    status: str
    facts: int
    error: str | None

    @property
    def whole(self) -> bool:
        """It lost nothing (completed, or skipped by design)."""
        return self.status in WHOLE


def manifest(session: Session, capture_id: str) -> list[ManifestRow]:
    rows = session.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == capture_id)
                           .order_by(ManifestEntry.id))
    return [ManifestRow(m.extractor, m.version, m.status, m.facts, m.error) for m in rows]


def problems(rows: list[ManifestRow]) -> list[ManifestRow]:
    """The rows of extractors that failed or read only part of the capture."""
    return [row for row in rows if not row.whole]
