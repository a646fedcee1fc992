"""Analyst evidence (manual_evidence): one more signal with its author's weight and reason,
changed or deleted by its author only; each change audited, then the key re-adjudicated."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotAuthor, NotFound
from ...store.models import MAX_INTEGER, ManualEvidence
from ..actor import Actor
from ..contract import Key, Verdict
from ..ledger import validation
from ..ledger.audit import AuditAction, record, utc_now
from ..ledger.keyed import of_key
from ..ledger.locking import take_turn
from ..ledger.naming import canonical
from ..ledger.validation import check_key
from ..registry import Registry
from ..runner import rerun
from .carrying import carry_on, stop_if_carried


@canonical(False)
def list_evidence(session: Session, registry: Registry, key: Key) -> list[ManualEvidence]:
    check_key(session, registry, key)
    return list(session.scalars(of_key(ManualEvidence, key).order_by(ManualEvidence.id)))


def _evidence_dict(e: ManualEvidence) -> dict:
    return {"id": e.id, "label": e.label, "weight": e.weight, "reason": e.reason, "actor": e.actor,
            "created_at": e.created_at.isoformat(), "updated_at": e.updated_at.isoformat()}


@canonical(True)
def add_evidence(session: Session, registry: Registry, key: Key, label: str, weight: int, reason: str,
                 *, actor: Actor) -> tuple[ManualEvidence, Verdict]:
    take_turn(session, registry, key)
    evidence = new_evidence(session, key, validation.label(label), validation.weight(weight),
                            validation.text("reason", reason), actor=actor)
    session.flush()
    audit_evidence(session, evidence, key, actor)
    return evidence, carry_on(session, registry, key, rerun(session, registry, key), evidence_of=evidence.id)


def new_evidence(session: Session, key: Key, label: str, weight: int, reason: str, *,
                 actor: Actor) -> ManualEvidence:
    """Add the evidence (validated, the key canonical, its turn taken); the caller flushes it
    and then audits it (`audit_evidence`, which needs its id) and re-adjudicates."""
    now = utc_now()
    evidence = ManualEvidence(question=key.question, capture_id=key.capture_id, entity_key=key.entity_key,
                              label=label, weight=weight, reason=reason,
                              actor=actor.name, actor_subject=actor.subject, created_at=now, updated_at=now)
    session.add(evidence)
    return evidence


def audit_evidence(session: Session, evidence: ManualEvidence, key: Key, actor: Actor, *, flush: bool = True) -> None:
    record(session, AuditAction.EVIDENCE_ADDED, actor, key=key, after=_evidence_dict(evidence), flush=flush)


def _own_evidence(session: Session, key: Key, evidence_id: int, actor: Actor) -> ManualEvidence:
    # an id outside the column's range names nothing (and would be an error in the database)
    evidence = session.get(ManualEvidence, evidence_id) if 1 <= evidence_id <= MAX_INTEGER else None
    if evidence is None or (evidence.question, evidence.capture_id, evidence.entity_key) != (
            key.question, key.capture_id, key.entity_key):
        raise NotFound(f"no evidence {evidence_id} on {key.question} for {key.entity_key} "
                       f"in capture {key.capture_id}")
    if evidence.actor_subject != actor.subject:  # a name is not an identity: compare subjects
        raise NotAuthor(f"evidence {evidence_id} was added by {evidence.actor}; only its author may change it")
    return evidence


@canonical(True)
def edit_evidence(session: Session, registry: Registry, key: Key, evidence_id: int, *, actor: Actor,
                  label: str | None = None, weight: int | None = None,
                  reason: str | None = None) -> tuple[ManualEvidence, Verdict]:
    take_turn(session, registry, key)
    evidence = _own_evidence(session, key, evidence_id, actor)
    if evidence.carried_from:
        raise InvalidAnnotation(f"evidence {evidence_id} is carried from capture {evidence.carried_from}: edit it "
                                "there (or delete it here to stop carrying it)")
    before = _evidence_dict(evidence)
    if label is not None:
        evidence.label = validation.label(label)
    if weight is not None:
        evidence.weight = validation.weight(weight)
    if reason is not None:
        evidence.reason = validation.text("reason", reason)
    evidence.updated_at = utc_now()
    session.flush()
    record(session, AuditAction.EVIDENCE_EDITED, actor, key=key, before=before, after=_evidence_dict(evidence))
    return evidence, carry_on(session, registry, key, rerun(session, registry, key), evidence_of=evidence.id)


@canonical(True)
def delete_evidence(session: Session, registry: Registry, key: Key, evidence_id: int, *, actor: Actor) -> Verdict:
    take_turn(session, registry, key)
    evidence = _own_evidence(session, key, evidence_id, actor)
    before = _evidence_dict(evidence)
    origin = evidence.carried_id or evidence.id  # a copy's removal stops its origin's carrying
    stop_if_carried(session, evidence, actor=actor)
    session.delete(evidence)
    session.flush()
    record(session, AuditAction.EVIDENCE_DELETED, actor, key=key, before=before, after=None)
    return carry_on(session, registry, key, rerun(session, registry, key), evidence_of=origin)
