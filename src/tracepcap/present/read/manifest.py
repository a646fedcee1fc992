"""The manifest: what each extractor and stage did with a capture, one row each, in the
order they were written."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...store.models import ManifestEntry

#: statuses that lost nothing; any other is shown as a problem
WHOLE = ("completed", "skipped")


def manifest(session: Session, capture_id: str) -> list[dict]:
    rows = session.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == capture_id)
                           .order_by(ManifestEntry.id))
    return [{"extractor": m.extractor, "version": m.version, "status": m.status, "facts": m.facts,
             "error": m.error} for m in rows]


def problems(rows: list[dict]) -> list[dict]:
    """The rows of extractors that failed or read only part of the capture."""
    return [row for row in rows if row["status"] not in WHOLE]
