"""Dismissed labels (dismissal): a candidate a human ruled out for one key, with the reason;
each dismissal and its removal audited, then the key re-adjudicated."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound
from ...scan.vote import normalize_label
from ...store.models import Dismissal
from ..actor import Actor
from ..contract import Key, Verdict
from ..ledger import validation
from ..ledger.audit import AuditAction, record, utc_now
from ..ledger.keyed import of_key
from ..ledger.locking import take_turn
from ..ledger.naming import canonical
from ..registry import Registry
from ..runner import rerun
from .carrying import carry_on, stop_if_carried


@canonical(True)
def dismiss(session: Session, registry: Registry, key: Key, label: str, reason: str, *, actor: Actor) -> Verdict:
    take_turn(session, registry, key)
    label, reason = validation.label(label), validation.text("reason", reason)
    existing = session.scalar(of_key(Dismissal, key).where(Dismissal.label_key == normalize_label(label)))
    if existing is not None:
        raise InvalidAnnotation(f"label {label!r} is already dismissed by {existing.actor}")
    put_dismissal(session, key, label, reason, actor=actor)
    return carry_on(session, registry, key, rerun(session, registry, key))


def put_dismissal(session: Session, key: Key, label: str, reason: str, *, actor: Actor,
                  flush: bool = True) -> Dismissal:
    """Write the dismissal (validated, not yet dismissed, the key canonical and its turn
    taken) and its audit event; the caller re-adjudicates."""
    dismissal = Dismissal(question=key.question, capture_id=key.capture_id, entity_key=key.entity_key,
                          label=label, label_key=normalize_label(label), reason=reason, actor=actor.name,
                          created_at=utc_now())
    session.add(dismissal)
    if flush:
        session.flush()
    record(session, AuditAction.DISMISSAL_ADDED, actor, key=key,
           after={"label": label, "reason": reason, "actor": actor.name}, flush=flush)
    return dismissal


@canonical(True)
def undismiss(session: Session, registry: Registry, key: Key, label: str, *, actor: Actor) -> Verdict:
    take_turn(session, registry, key)
    existing = session.scalar(of_key(Dismissal, key).where(Dismissal.label_key == normalize_label(label)))
    if existing is None:
        raise NotFound(f"label {label!r} is not dismissed on {key.question} for {key.entity_key}")
    before = {"label": existing.label, "reason": existing.reason, "actor": existing.actor}
    stop_if_carried(session, existing, actor=actor)
    session.delete(existing)
    session.flush()
    record(session, AuditAction.DISMISSAL_REMOVED, actor, key=key, before=before, after=None)
    return carry_on(session, registry, key, rerun(session, registry, key))


def dismissals(session: Session, key: Key) -> list[Dismissal]:
    return list(session.scalars(of_key(Dismissal, key).order_by(Dismissal.id)))
