"""A capture's notices: traffic that violated its protocol (Extract's "weirds"), every one
counted by kind, the first ones stored with their frame."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...store.models import Notice, NoticeCount
from .paging import page

NOTICES_IN_DOCUMENT = 100  # listed in `analyze --json`; the API pages through the rest


def notice_counts(session: Session, capture_id: str) -> dict[str, int]:
    """Every notice of the capture counted by kind (stored or past the limit), by kind name."""
    return dict(session.execute(select(NoticeCount.kind, NoticeCount.count)
                                .where(NoticeCount.capture_id == capture_id).order_by(NoticeCount.kind)).all())


def notice_fields(notice: Notice) -> dict:
    return {"kind": notice.kind, "entity": notice.entity, "frame": notice.frame, "text": notice.text}


def notices_of(session: Session, capture_id: str, limit: int = NOTICES_IN_DOCUMENT) -> dict:
    """The counts by kind and the first `limit` notices in frame order."""
    first = session.scalars(select(Notice).where(Notice.capture_id == capture_id)
                            .order_by(Notice.frame, Notice.id).limit(limit))
    return {"notice_counts": notice_counts(session, capture_id),
            "notices": [notice_fields(n) for n in first]}


def notice_page(session: Session, capture_id: str, *, kind: str | None, offset: int,
                limit: int) -> tuple[int, list[Notice]]:
    """Stored notices in frame order, of one kind or all."""
    stmt = select(Notice).where(Notice.capture_id == capture_id)
    if kind:
        stmt = stmt.where(Notice.kind == kind)
    total, rows = page(session, stmt, (Notice.frame, Notice.id), offset, limit)
    return total, [r[0] for r in rows]
