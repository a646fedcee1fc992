"""A capture's notices: traffic that violated its protocol (Extract's "weirds"), every one
counted by kind, the first ones stored with their frame."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...store.models import Notice, NoticeCount
from .paging import page
from .shapes import Page

NOTICES_IN_DOCUMENT = 100  # listed in `analyze --json`; the API pages through the rest


@dataclass(frozen=True, slots=True)
class NoticeEntry:
    """One stored notice: its kind, whom it came from (if known), its frame and what it says."""

    kind: str
    entity: str | None
    frame: int
    text: str

    @classmethod
    def of(cls, notice: Notice) -> NoticeEntry:
        return cls(notice.kind, notice.entity, notice.frame, notice.text)


@dataclass(frozen=True, slots=True)
class Notices:
    """Every notice counted by kind, and the first ones in frame order."""

    notice_counts: Mapping[str, int]
    notices: tuple[NoticeEntry, ...]


def notice_counts(session: Session, capture_id: str) -> Mapping[str, int]:
    """Every notice of the capture counted by kind (stored or past the limit), by kind name."""
    return dict(session.execute(select(NoticeCount.kind, NoticeCount.count)
                                .where(NoticeCount.capture_id == capture_id).order_by(NoticeCount.kind)).all())


def notices_of(session: Session, capture_id: str, limit: int = NOTICES_IN_DOCUMENT) -> Notices:
    """The counts by kind and the first `limit` notices in frame order."""
    first = session.scalars(select(Notice).where(Notice.capture_id == capture_id)
                            .order_by(Notice.frame, Notice.id).limit(limit))
    return Notices(notice_counts(session, capture_id), tuple(NoticeEntry.of(n) for n in first))


def notice_page(session: Session, capture_id: str, *, kind: str | None, offset: int,
                limit: int) -> Page[NoticeEntry]:
    """Stored notices in frame order, of one kind or all."""
    stmt = select(Notice).where(Notice.capture_id == capture_id)
    if kind:
        stmt = stmt.where(Notice.kind == kind)
    total, rows = page(session, stmt, (Notice.frame, Notice.id), offset, limit)
    return Page.of((NoticeEntry.of(r[0]) for r in rows), total, offset, limit)
