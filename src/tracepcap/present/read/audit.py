"""A capture's audit log as the audit page and `GET /api/captures/{cid}/audit` read it:
newest first, filtered by actor, action and question, one page at a time, each event in the
trail's one shape with the sentence saying what it changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...store.models import AuditEvent, Entity
from .paging import page
from .shapes import Page
from .trail import TrailEvent


@dataclass(frozen=True, slots=True)
class AuditFilter:
    """Which events: each field empty for any, else equal (the actor by the name shown)."""

    actor: str = ""
    action: str = ""
    question: str = ""


def audit_page(session: Session, capture_id: str, f: AuditFilter, *, offset: int,
               limit: int) -> Page[TrailEvent]:
    """This page of the events matching, newest first, each with `change`, the sentence saying
    what it changed."""
    stmt = select(AuditEvent).where(AuditEvent.capture_id == capture_id)
    if f.actor:
        stmt = stmt.where(AuditEvent.actor == f.actor)
    if f.action:
        stmt = stmt.where(AuditEvent.action == f.action)
    if f.question:
        stmt = stmt.where(AuditEvent.question == f.question)
    total, rows = page(session, stmt, (AuditEvent.at.desc(), AuditEvent.id.desc()), offset, limit)
    return Page.of((TrailEvent.of(e) for (e,) in rows), total, offset, limit)


@dataclass(frozen=True, slots=True)
class AuditChoices:
    """The actors, actions and questions a capture's events carry (the audit page's filters)."""

    actors: tuple[str, ...]
    actions: tuple[str, ...]
    questions: tuple[str, ...]


def audit_choices(session: Session, capture_id: str) -> AuditChoices:
    """The actors, actions and questions the capture's events carry, each sorted."""
    def distinct(column) -> tuple[str, ...]:
        return tuple(sorted(v for v in session.scalars(select(column).where(AuditEvent.capture_id == capture_id)
                                                       .distinct()) if v))
    return AuditChoices(distinct(AuditEvent.actor), distinct(AuditEvent.action), distinct(AuditEvent.question))


def primary_addresses(session: Session, capture_id: str, keys: set[str]) -> Mapping[str, str]:
    """Each of the entity keys' primary address, for showing a device by it (a key `mac-..`
    names no host to a reader); keys of MAC-only devices and of no entity are left out."""
    if not keys:
        return {}
    return dict(session.execute(select(Entity.key, Entity.ip).where(
        Entity.capture_id == capture_id, Entity.key.in_(sorted(keys)), Entity.ip.is_not(None))).all())
