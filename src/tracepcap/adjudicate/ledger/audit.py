"""The audit log: `record` is the one writer of audit_event, `trail` reads one key's events,
and `record_refusal` counts refused requests into at most one event a minute. No code path
updates or deletes an audit row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...store.entities import members_of
from ...store.entities import resolve as resolve_entity
from ...store.models import AccessDenial, AuditEvent
from ..actor import Actor
from ..contract import Key
from .locking import lock_for_writing


class AuditAction(StrEnum):
    OVERRIDE_SET = "override.set"
    OVERRIDE_CLEARED = "override.cleared"
    EVIDENCE_ADDED = "evidence.added"
    EVIDENCE_EDITED = "evidence.edited"
    EVIDENCE_DELETED = "evidence.deleted"
    DISMISSAL_ADDED = "dismissal.added"
    DISMISSAL_REMOVED = "dismissal.removed"
    CAPTURE_DELETED = "capture.deleted"
    ACCESS_DENIED = "access.denied"
    OVERRIDE_STALE = "override.stale"
    ANNOTATION_MOVED = "annotation.moved"  # re-analysis: an address's or MAC's annotation now its device's
    # networks over time (adjudicate/networks)
    NETWORK_CREATED = "network.created"
    NETWORK_CAPTURE_ADDED = "network.capture-added"
    NETWORK_CAPTURE_REMOVED = "network.capture-removed"
    OVERRIDE_CARRIED = "override.carried"
    EVIDENCE_CARRIED = "evidence.carried"
    DISMISSAL_CARRIED = "dismissal.carried"
    CARRY_WITHDRAWN = "carry.withdrawn"
    OVERRIDE_REAFFIRMED = "override.reaffirmed"
    CHANGE_REVIEWED = "change.reviewed"
    CREDENTIAL_REVEALED = "credential.revealed"  # an analyst saw a secret re-read from the capture

REFUSAL_WINDOW = timedelta(minutes=1)  # at most one access.denied event per actor, method and route in it


def utc_now() -> datetime:
    return datetime.now(UTC)


def record(session: Session, action: AuditAction, actor: Actor, *, key: Key | None = None,
           capture_id: str | None = None, before: dict | None = None, after: dict | None = None,
           flush: bool = True) -> AuditEvent:
    """Append one audit event. The only writer of audit_event. `flush=False` leaves the
    insert to the session's next flush (many events written together)."""
    event = AuditEvent(at=utc_now(), actor=actor.name, actor_subject=actor.subject, action=str(action),
                       question=key.question if key else None,
                       capture_id=key.capture_id if key else capture_id,
                       entity_key=key.entity_key if key else None, before=before, after=after)
    session.add(event)
    if flush:
        session.flush()
    return event


def record_refusal(session: Session, actor: Actor, method: str, route: str, *, key: Key | None = None,
                   capture_id: str | None = None, after: dict) -> AuditEvent | None:
    """Record `access.denied`, at most once per (actor subject, method, route) per
    REFUSAL_WINDOW: a refusal inside the window of the last recorded one is only counted (in
    `access_denial`), and the next recorded event says how many there were
    (`after["unrecorded_before"]`). An actor refused again and again thus adds at most one
    audit row a minute per route, and no refusal goes uncounted. Returns the event, or None
    when the refusal was only counted."""
    lock_for_writing(session)
    tally = session.get(AccessDenial, (actor.subject, method, route), with_for_update=True)
    now = utc_now()
    if tally is not None and now - _aware(tally.recorded_at) < REFUSAL_WINDOW:
        tally.unrecorded += 1
        session.flush()
        return None
    unrecorded = tally.unrecorded if tally is not None else 0
    if tally is None:
        try:
            with session.begin_nested():
                session.add(AccessDenial(actor_subject=actor.subject, method=method, route=route, recorded_at=now,
                                         unrecorded=0))
        except IntegrityError:  # a concurrent refusal was first: this one falls in its window
            tally = session.get(AccessDenial, (actor.subject, method, route), with_for_update=True,
                                populate_existing=True)
            tally.unrecorded += 1
            session.flush()
            return None
    else:
        tally.recorded_at, tally.unrecorded = now, 0
    return record(session, AuditAction.ACCESS_DENIED, actor, key=key, capture_id=capture_id,
                  after={**after, "unrecorded_before": unrecorded})


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)  # SQLite hands times back without their offset


def trail(session: Session, key: Key) -> list[AuditEvent]:
    """Every audit event of one key, oldest first."""
    # the entity's events, and those recorded under its addresses and MACs before it was a device
    entity = resolve_entity(session, key.capture_id, key.entity_key) or key.entity_key
    names = members_of(session, key.capture_id, entity)
    return list(session.scalars(select(AuditEvent).where(
        AuditEvent.question == key.question, AuditEvent.capture_id == key.capture_id,
        AuditEvent.entity_key.in_(names)).order_by(AuditEvent.id)))
