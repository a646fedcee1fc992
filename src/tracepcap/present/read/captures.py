"""Captures: their fields, the list (with counts per capture) and their findings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from ...adjudicate.contract import Basis
from ...store.models import Capture, CaptureStatus, Entity, Finding, VerdictRow
from ...store.staging import STAGING

UNFINISHED = (CaptureStatus.QUEUED, CaptureStatus.ANALYZING)
FINISHED = (CaptureStatus.DONE, CaptureStatus.PARTIAL)  # facts and verdicts can be read


def progress(capture: Capture) -> int:
    """Percent of the stored file read by the analysis (100 once done or partial)."""
    if capture.status in FINISHED:
        return 100
    if not capture.size:
        return 0
    return max(0, min(100, (capture.progress_bytes or 0) * 100 // capture.size))


@dataclass(frozen=True, slots=True)
class CaptureFields:
    """A capture as Present shows it: its file, its analysis status and progress (percent)."""

    id: str
    name: str
    size: int
    sha256: str
    format: str
    status: str
    progress: int
    error: str | None
    packets: int | None
    conversations: int | None
    uploaded_at: datetime
    uploaded_by: str
    analyzed_at: datetime | None


@dataclass(frozen=True, slots=True)
class CaptureRow:
    """A capture of the list, with its host, contested and human-answer counts."""

    capture: CaptureFields
    hosts: int
    contested: int
    human: int

    def __getattr__(self, name: str):
        return getattr(self.capture, name)


@dataclass(frozen=True, slots=True)
class FindingEntry:
    """A finding of Scan: its kind, severity, the entities it names, what it says, its frames."""

    kind: str
    severity: str
    entities: tuple[str, ...]
    summary: str
    frames: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FindingsOverview:
    """What the capture page's banner says: how many, the count per severity (every severity,
    most severe first) and the high findings themselves."""

    total: int
    counts: Mapping[str, int]
    high: tuple[FindingEntry, ...]


def capture_fields(capture: Capture) -> CaptureFields:
    return CaptureFields(capture.id, capture.name, capture.size, capture.sha256, capture.format, capture.status,
                         progress(capture), capture.error, capture.packets, capture.conversations,
                         capture.uploaded_at, capture.uploaded_by, capture.analyzed_at)


def _listed(text: str = ""):
    """Captures (staging uploads left out) whose name, id or sha256 holds `text`."""
    stmt = select(Capture).where(Capture.status != STAGING)
    if text := " ".join(text.split()):
        stmt = stmt.where(or_(Capture.name.icontains(text, autoescape=True),
                              Capture.id.istartswith(text.lower(), autoescape=True),
                              Capture.sha256.istartswith(text.lower(), autoescape=True)))
    return stmt


def list_captures(session: Session, text: str = "", *, offset: int = 0, limit: int | None = None) -> list[Capture]:
    """Newest first; `text` searches name, id and sha256 (see `_listed`)."""
    stmt = _listed(text).order_by(Capture.uploaded_at.desc(), Capture.id).offset(offset)
    return list(session.scalars(stmt if limit is None else stmt.limit(limit)))


def capture_total(session: Session, text: str = "") -> int:
    return session.scalar(select(func.count()).select_from(_listed(text).subquery())) or 0


def capture_rows(session: Session, text: str = "", *, offset: int = 0,
                 limit: int | None = None) -> list[CaptureRow]:
    """Captures (newest upload first; `text` and the page as `list_captures`) with their host,
    contested and human-answer counts."""
    listed = list_captures(session, text, offset=offset, limit=limit)
    ids = [c.id for c in listed]
    hosts = dict(session.execute(select(Entity.capture_id, func.count()).where(Entity.capture_id.in_(ids))
                                 .group_by(Entity.capture_id)).all())
    contested = dict(session.execute(select(VerdictRow.capture_id, func.count())
                                     .where(VerdictRow.capture_id.in_(ids), VerdictRow.contested.is_(True))
                                     .group_by(VerdictRow.capture_id)).all())
    human = dict(session.execute(select(VerdictRow.capture_id, func.count())
                                 .where(VerdictRow.capture_id.in_(ids), VerdictRow.basis == Basis.HUMAN)
                                 .group_by(VerdictRow.capture_id)).all())
    return [CaptureRow(capture_fields(c), hosts.get(c.id, 0), contested.get(c.id, 0), human.get(c.id, 0))
            for c in listed]


def unfinished_captures(session: Session) -> list[str]:
    """Captures an analysis never finished (queued, or cut short while analyzing), oldest first."""
    return list(session.scalars(select(Capture.id).where(Capture.status.in_(UNFINISHED))
                                .order_by(Capture.uploaded_at, Capture.id)))


def findings(session: Session, capture_id: str) -> list[FindingEntry]:
    """The capture's findings in a stable order (kind, entities, summary)."""
    rows = session.scalars(select(Finding).where(Finding.capture_id == capture_id)).all()
    out = [FindingEntry(f.kind, f.severity, tuple(f.entities), f.summary, tuple(f.frames)) for f in rows]
    return sorted(out, key=lambda f: (f.kind, f.entities, f.summary))


SEVERITY_ORDER = ("high", "medium", "low")  # what the banner and the marker column show first


def by_severity(found: list[FindingEntry]) -> list[FindingEntry]:
    """Findings most severe first, then in `findings`' order."""
    rank = {s: i for i, s in enumerate(SEVERITY_ORDER)}
    return sorted(found, key=lambda f: rank.get(f.severity, len(rank)))


def findings_overview(found: list[FindingEntry]) -> FindingsOverview:
    """What the capture page's banner says: the count per severity (every severity, most
    severe first) and the high findings themselves."""
    counts = {s: 0 for s in SEVERITY_ORDER}
    for f in found:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    return FindingsOverview(len(found), counts, tuple(f for f in found if f.severity == "high"))


def entity_findings(found: list[FindingEntry]) -> Mapping[str, str]:
    """Each entity a finding names -> the highest severity among its findings (victim and
    spoofer alike: every entity of a finding is named by it)."""
    rank = {s: i for i, s in enumerate(SEVERITY_ORDER)}
    out: dict[str, str] = {}
    for f in found:
        for entity in f.entities:
            if entity not in out or rank.get(f.severity, 9) < rank.get(out[entity], 9):
                out[entity] = f.severity
    return out


def findings_of(found: list[FindingEntry], entity: str) -> list[FindingEntry]:
    """The findings naming `entity`, most severe first."""
    return by_severity([f for f in found if entity in f.entities])
