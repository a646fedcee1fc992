"""Overrides (human_override): a human's answer, set, cleared, accepted from the machine's
suggestion or chosen among contested candidates; each audited, then the key re-adjudicated."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound
from ...store.models import HumanOverride
from ..actor import Actor
from ..contract import Key, Verdict
from ..ledger import validation
from ..ledger.audit import AuditAction, record, utc_now
from ..ledger.keyed import of_key
from ..ledger.locking import take_turn
from ..ledger.naming import canonical
from ..ledger.staleness import identity_facts
from ..registry import Registry
from ..runner import rerun, stored_verdict
from .carrying import carry_on, stop_if_carried

ACCEPTED = "accepted suggestion"
RESOLVED = "chose {label} among the contested candidates"
NARROWED = "chose {label} within {parent}, which the evidence did not tell apart"


def _override_dict(o: HumanOverride | None) -> dict | None:
    if o is None:
        return None
    return {"label": o.label, "rationale": o.rationale, "actor": o.actor, "at": o.updated_at.isoformat()}


def _find_override(session: Session, key: Key) -> HumanOverride | None:
    return session.scalar(of_key(HumanOverride, key))


@canonical(True)
def set_override(session: Session, registry: Registry, key: Key, label: str, rationale: str,
                 *, actor: Actor) -> Verdict:
    take_turn(session, registry, key)
    put_override(session, key, validation.label(label), validation.text("rationale", rationale), actor=actor)
    return carry_on(session, registry, key, rerun(session, registry, key))


_UNKNOWN = object()


def put_override(session: Session, key: Key, label: str, rationale: str, *, actor: Actor,
                 snapshot: dict | None = None, flush: bool = True, existing=_UNKNOWN) -> HumanOverride:
    """Write the override (label and rationale already validated, the key canonical and its
    turn taken) and its audit event; no re-adjudication (the caller's: `rerun` for one key,
    `rerun_many` for a batch). A batch passes what it already read: `snapshot` (the entity's
    identity facts) and `existing` (the key's override, or None)."""
    if existing is _UNKNOWN:
        existing = _find_override(session, key)
    before = _override_dict(existing)
    now = utc_now()
    if snapshot is None:
        snapshot = identity_facts(session, key.capture_id, key.entity_key)
    if existing is None:
        existing = HumanOverride(question=key.question, capture_id=key.capture_id,
                                 entity_key=key.entity_key, label=label, rationale=rationale,
                                 actor=actor.name, created_at=now, updated_at=now)
        session.add(existing)
    else:
        existing.label, existing.rationale, existing.actor, existing.updated_at = label, rationale, actor.name, now
    existing.facts_snapshot, existing.stale_since, existing.stale_detail = snapshot, None, None
    # a human answering where an answer was carried makes it this capture's own from now on
    existing.carried_from = existing.carried_id = existing.carry_note = existing.stale_capture = None
    if flush:
        session.flush()
    record(session, AuditAction.OVERRIDE_SET, actor, key=key, before=before, after=_override_dict(existing),
           flush=flush)
    return existing


@canonical(True)
def clear_override(session: Session, registry: Registry, key: Key, *, actor: Actor) -> Verdict:
    take_turn(session, registry, key)
    existing = _find_override(session, key)
    if existing is None:
        raise NotFound(f"no override on {key.question} for {key.entity_key} in capture {key.capture_id}")
    before = _override_dict(existing)
    stop_if_carried(session, existing, actor=actor)
    session.delete(existing)
    session.flush()
    record(session, AuditAction.OVERRIDE_CLEARED, actor, key=key, before=before, after=None)
    return carry_on(session, registry, key, rerun(session, registry, key))


@canonical(True)
def accept(session: Session, registry: Registry, key: Key, *, actor: Actor) -> Verdict:
    """Accept the machine's current answer: an override with its label, rationale
    "accepted suggestion" (node-role's "confirm", for any question)."""
    take_turn(session, registry, key)
    verdict = stored_verdict(session, key)
    label = verdict and verdict.suggestion(registry.get(key.question).unknown_label)
    if not label:
        raise InvalidAnnotation(f"nothing to accept on {key.question} for {key.entity_key}: "
                                "the machine suggests no single label")
    return set_override(session, registry, key, label, ACCEPTED, actor=actor)


@canonical(True)
def resolve(session: Session, registry: Registry, key: Key, label: str, *, actor: Actor) -> Verdict:
    """Settle a contested verdict with one of its candidates (not one a human dismissed), or
    narrow a parent-level answer to one of the children it stands for: an override with that
    label and the rationale saying so. Any other label, or a verdict with nothing to choose
    among, is refused: the rationale would misstate what the human chose among."""
    take_turn(session, registry, key)
    verdict = stored_verdict(session, key)
    if verdict is None or not (verdict.contested or verdict.parent_of):
        raise InvalidAnnotation(f"{key.question} for {key.entity_key} is not contested: nothing to "
                                "choose among (set an override to give another answer)")
    candidates = list(verdict.parent_of) if verdict.parent_of else [c.label for c in verdict.live]
    if label not in candidates:
        raise InvalidAnnotation(f"{label!r} is not one of the contested candidates of {key.question} for "
                                f"{key.entity_key} ({', '.join(candidates)}); set an override to give "
                                "another answer")
    rationale = (NARROWED.format(label=label, parent=verdict.primary_label) if verdict.parent_of
                 else RESOLVED.format(label=label))
    return set_override(session, registry, key, label, rationale, actor=actor)
