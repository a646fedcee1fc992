"""Human annotations: the only writer of human_override, manual_evidence, dismissal and
audit_event.

Each public function takes the actor (resolved by CurrentActor, never from a request),
validates, writes the change and its audit event in the caller's transaction through one
`_record`, re-adjudicates the touched key and returns the new verdict. No code path updates or
deletes an audit row.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path

from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import InvalidAnnotation, NotAuthor, NotFound
from ..extract.kinds import MAC, SERVED
from ..ingest import capture_path
from ..scan.vote import normalize_label
from ..store.models import (MAX_INTEGER, AccessDenial, AuditEvent, Capture, Dismissal, Host, HumanOverride,
                            ManualEvidence, ObservationRow)
from ..store.staging import drop_stages
from ..text import LABEL, PROSE
from .actor import SYSTEM_ACTOR, Actor
from .contract import Verdict
from .registry import Registry
from .runner import Key, rerun, stored_verdict


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

REFUSAL_WINDOW = timedelta(minutes=1)  # at most one access.denied event per actor, method and route in it
IDENTITY_KINDS = (MAC.name, SERVED.name)  # the facts a human answer about a host rests on


def _now() -> datetime:
    return datetime.now(UTC)


def record(session: Session, action: AuditAction, actor: Actor, *, key: Key | None = None,
           capture_id: str | None = None, before: dict | None = None, after: dict | None = None) -> AuditEvent:
    """Append one audit event. The only writer of audit_event."""
    event = AuditEvent(at=_now(), actor=actor.name, actor_subject=actor.subject, action=str(action),
                       question=key.question if key else None,
                       capture_id=key.capture_id if key else capture_id,
                       entity_key=key.entity_key if key else None, before=before, after=after)
    session.add(event)
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
    _lock_for_writing(session)
    tally = session.get(AccessDenial, (actor.subject, method, route), with_for_update=True)
    now = _now()
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


def _lock_for_writing(session: Session) -> None:
    """SQLite: take the database write lock before the first read (BEGIN IMMEDIATE), so a
    writer never has to upgrade a read that went stale, which SQLite refuses at once with
    "database is locked". PostgreSQL locks the rows it reads FOR UPDATE instead."""
    connection = session.connection()
    if connection.dialect.name == "sqlite" and not connection.connection.dbapi_connection.in_transaction:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def check_key(session: Session, registry: Registry, key: Key) -> None:
    """NotFound naming what does not exist: the question, the capture or the entity."""
    registry.get(key.question)
    if session.get(Capture, key.capture_id) is None:
        raise NotFound(f"no capture {key.capture_id!r}")
    if session.get(Host, (key.capture_id, key.entity_key)) is None:
        raise NotFound(f"no host {key.entity_key!r} in capture {key.capture_id}")


def _take_turn(session: Session, registry: Registry, key: Key) -> None:
    """Wait for the other writers of this entity, then check_key. Human actions on one entity
    run one after another, so each reads what the previous one wrote: no override inserted
    twice, no verdict computed from annotations another writer is changing.

    PostgreSQL: a row lock on the host (after a key-share lock on the capture, the order a
    capture deletion takes them in, so the two never deadlock). SQLite: the database write
    lock, taken before the first read (BEGIN IMMEDIATE), so a writer never has to upgrade a
    read that went stale, which SQLite refuses with "database is locked" at once; a writing
    unit of work (`Database.session(write=True)`, every API write request's) already holds it.
    A re-analysis swapping its rows in holds the capture itself (`store.staging.hold_capture`),
    so it runs wholly before or wholly after a human writer's turn.
    """
    _lock_for_writing(session)
    if session.connection().dialect.name != "sqlite":
        session.execute(select(Capture.id).where(Capture.id == key.capture_id)
                        .with_for_update(read=True, key_share=True))
        session.execute(select(Host.ip).where(Host.capture_id == key.capture_id,
                                              Host.ip == key.entity_key).with_for_update())
    check_key(session, registry, key)


def _label(label: str) -> str:
    clean = " ".join(LABEL.check("label", label or "").split())
    if not clean:
        raise InvalidAnnotation("label is required")
    return clean


def _text(field: str, value: str) -> str:
    clean = PROSE.check(field, value or "").strip()
    if not clean:
        raise InvalidAnnotation(f"{field} is required")
    return clean


def _weight(weight: int) -> int:
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
        raise InvalidAnnotation(f"evidence weight must be 1..100 (got {weight!r})")
    return weight


def _override_dict(o: HumanOverride | None) -> dict | None:
    if o is None:
        return None
    return {"label": o.label, "rationale": o.rationale, "actor": o.actor, "at": o.updated_at.isoformat()}


def _evidence_dict(e: ManualEvidence) -> dict:
    return {"id": e.id, "label": e.label, "weight": e.weight, "reason": e.reason, "actor": e.actor,
            "created_at": e.created_at.isoformat(), "updated_at": e.updated_at.isoformat()}


def _find_override(session: Session, key: Key) -> HumanOverride | None:
    return session.scalar(select(HumanOverride).where(
        HumanOverride.question == key.question, HumanOverride.capture_id == key.capture_id,
        HumanOverride.entity_key == key.entity_key))


def identity_facts(session: Session, capture_id: str, entity: str) -> dict[str, list[str]]:
    """The entity's identity facts now: what a human answer is checked against later."""
    rows = session.execute(select(ObservationRow.kind, ObservationRow.value).where(
        ObservationRow.capture_id == capture_id, ObservationRow.entity == entity,
        ObservationRow.kind.in_(IDENTITY_KINDS)))
    out: dict[str, list[str]] = {kind: [] for kind in IDENTITY_KINDS}
    for kind, value in rows:
        out[kind].append(value)
    return {kind: sorted(values) for kind, values in out.items()}


def mark_stale(session: Session, capture_id: str) -> int:
    """After re-analysis: flag human answers whose identity facts moved, once each, with an
    audit event by "system" saying what moved. Returns how many went stale."""
    count = 0
    for o in session.scalars(select(HumanOverride).where(HumanOverride.capture_id == capture_id,
                                                         HumanOverride.stale_since.is_(None))):
        if o.facts_snapshot is None:
            continue
        now_facts = identity_facts(session, capture_id, o.entity_key)
        was = {(k, v) for k, values in o.facts_snapshot.items() for v in values}
        is_ = {(k, v) for k, values in now_facts.items() for v in values}
        if was == is_:
            continue
        o.stale_since = _now()
        o.stale_detail = {"gone": sorted(was - is_), "new": sorted(is_ - was)}
        record(session, AuditAction.OVERRIDE_STALE, SYSTEM_ACTOR,
               key=Key(o.question, capture_id, o.entity_key),
               before={"label": o.label, "facts": o.facts_snapshot},
               after={"label": o.label, "facts": now_facts, "gone": o.stale_detail["gone"],
                      "new": o.stale_detail["new"]})
        count += 1
    session.flush()
    return count


def set_override(session: Session, registry: Registry, key: Key, label: str, rationale: str,
                 *, actor: Actor) -> Verdict:
    _take_turn(session, registry, key)
    label, rationale = _label(label), _text("rationale", rationale)
    existing = _find_override(session, key)
    before = _override_dict(existing)
    now = _now()
    snapshot = identity_facts(session, key.capture_id, key.entity_key)
    if existing is None:
        existing = HumanOverride(question=key.question, capture_id=key.capture_id,
                                 entity_key=key.entity_key, label=label, rationale=rationale,
                                 actor=actor.name, created_at=now, updated_at=now)
        session.add(existing)
    else:
        existing.label, existing.rationale, existing.actor, existing.updated_at = label, rationale, actor.name, now
    existing.facts_snapshot, existing.stale_since, existing.stale_detail = snapshot, None, None
    session.flush()
    record(session, AuditAction.OVERRIDE_SET, actor, key=key, before=before, after=_override_dict(existing))
    return rerun(session, registry, key)


def clear_override(session: Session, registry: Registry, key: Key, *, actor: Actor) -> Verdict:
    _take_turn(session, registry, key)
    existing = _find_override(session, key)
    if existing is None:
        raise NotFound(f"no override on {key.question} for {key.entity_key} in capture {key.capture_id}")
    before = _override_dict(existing)
    session.delete(existing)
    session.flush()
    record(session, AuditAction.OVERRIDE_CLEARED, actor, key=key, before=before, after=None)
    return rerun(session, registry, key)


def list_evidence(session: Session, registry: Registry, key: Key) -> list[ManualEvidence]:
    check_key(session, registry, key)
    return list(session.scalars(select(ManualEvidence).where(
        ManualEvidence.question == key.question, ManualEvidence.capture_id == key.capture_id,
        ManualEvidence.entity_key == key.entity_key).order_by(ManualEvidence.id)))


def add_evidence(session: Session, registry: Registry, key: Key, label: str, weight: int, reason: str,
                 *, actor: Actor) -> tuple[ManualEvidence, Verdict]:
    _take_turn(session, registry, key)
    now = _now()
    evidence = ManualEvidence(question=key.question, capture_id=key.capture_id, entity_key=key.entity_key,
                              label=_label(label), weight=_weight(weight), reason=_text("reason", reason),
                              actor=actor.name, actor_subject=actor.subject, created_at=now, updated_at=now)
    session.add(evidence)
    session.flush()
    record(session, AuditAction.EVIDENCE_ADDED, actor, key=key, after=_evidence_dict(evidence))
    return evidence, rerun(session, registry, key)


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


def edit_evidence(session: Session, registry: Registry, key: Key, evidence_id: int, *, actor: Actor,
                  label: str | None = None, weight: int | None = None,
                  reason: str | None = None) -> tuple[ManualEvidence, Verdict]:
    _take_turn(session, registry, key)
    evidence = _own_evidence(session, key, evidence_id, actor)
    before = _evidence_dict(evidence)
    if label is not None:
        evidence.label = _label(label)
    if weight is not None:
        evidence.weight = _weight(weight)
    if reason is not None:
        evidence.reason = _text("reason", reason)
    evidence.updated_at = _now()
    session.flush()
    record(session, AuditAction.EVIDENCE_EDITED, actor, key=key, before=before, after=_evidence_dict(evidence))
    return evidence, rerun(session, registry, key)


def delete_evidence(session: Session, registry: Registry, key: Key, evidence_id: int, *, actor: Actor) -> Verdict:
    _take_turn(session, registry, key)
    evidence = _own_evidence(session, key, evidence_id, actor)
    before = _evidence_dict(evidence)
    session.delete(evidence)
    session.flush()
    record(session, AuditAction.EVIDENCE_DELETED, actor, key=key, before=before, after=None)
    return rerun(session, registry, key)


def dismiss(session: Session, registry: Registry, key: Key, label: str, reason: str, *, actor: Actor) -> Verdict:
    _take_turn(session, registry, key)
    label, reason = _label(label), _text("reason", reason)
    label_key = normalize_label(label)
    existing = session.scalar(select(Dismissal).where(
        Dismissal.question == key.question, Dismissal.capture_id == key.capture_id,
        Dismissal.entity_key == key.entity_key, Dismissal.label_key == label_key))
    if existing is not None:
        raise InvalidAnnotation(f"label {label!r} is already dismissed by {existing.actor}")
    dismissal = Dismissal(question=key.question, capture_id=key.capture_id, entity_key=key.entity_key,
                          label=label, label_key=label_key, reason=reason, actor=actor.name, created_at=_now())
    session.add(dismissal)
    session.flush()
    record(session, AuditAction.DISMISSAL_ADDED, actor, key=key,
           after={"label": label, "reason": reason, "actor": actor.name})
    return rerun(session, registry, key)


def undismiss(session: Session, registry: Registry, key: Key, label: str, *, actor: Actor) -> Verdict:
    _take_turn(session, registry, key)
    existing = session.scalar(select(Dismissal).where(
        Dismissal.question == key.question, Dismissal.capture_id == key.capture_id,
        Dismissal.entity_key == key.entity_key, Dismissal.label_key == normalize_label(label)))
    if existing is None:
        raise NotFound(f"label {label!r} is not dismissed on {key.question} for {key.entity_key}")
    before = {"label": existing.label, "reason": existing.reason, "actor": existing.actor}
    session.delete(existing)
    session.flush()
    record(session, AuditAction.DISMISSAL_REMOVED, actor, key=key, before=before, after=None)
    return rerun(session, registry, key)


def trail(session: Session, key: Key) -> list[AuditEvent]:
    """Every audit event of one key, oldest first."""
    return list(session.scalars(select(AuditEvent).where(
        AuditEvent.question == key.question, AuditEvent.capture_id == key.capture_id,
        AuditEvent.entity_key == key.entity_key).order_by(AuditEvent.id)))


def delete_capture(session: Session, capture_dir: Path, capture_id: str, *, actor: Actor) -> None:
    """Delete a capture and every row derived from it (the database cascades), recording
    `capture.deleted`; the audit log, which has no foreign key, keeps that and every earlier
    event. The stored file goes once the deletion is committed, unless another capture still
    names the same bytes."""
    capture = session.get(Capture, capture_id)
    if capture is None:
        raise NotFound(f"no capture {capture_id!r}")
    record(session, AuditAction.CAPTURE_DELETED, actor, capture_id=capture.id, before={
        "name": capture.name, "sha256": capture.sha256, "size": capture.size, "format": capture.format,
        "status": capture.status, "uploaded_by": capture.uploaded_by,
        "uploaded_at": capture.uploaded_at.isoformat()})
    shared = session.scalar(select(func.count()).select_from(Capture).where(
        Capture.sha256 == capture.sha256, Capture.id != capture.id))
    drop_stages(session, capture.id)
    session.delete(capture)
    session.flush()
    if not shared:
        stored = capture_path(capture_dir, capture.sha256)
        event.listen(session, "after_commit", lambda _session: stored.unlink(missing_ok=True), once=True)


def dismissals(session: Session, key: Key) -> list[Dismissal]:
    return list(session.scalars(select(Dismissal).where(
        Dismissal.question == key.question, Dismissal.capture_id == key.capture_id,
        Dismissal.entity_key == key.entity_key).order_by(Dismissal.id)))


ACCEPTED = "accepted suggestion"
RESOLVED = "chose {label} among the contested candidates"


def accept(session: Session, registry: Registry, key: Key, *, actor: Actor) -> Verdict:
    """Accept the machine's current answer: an override with its label, rationale
    "accepted suggestion" (node-role's "confirm", for any question)."""
    _take_turn(session, registry, key)
    verdict = stored_verdict(session, key)
    label = verdict and verdict.suggestion(registry.get(key.question).unknown_label)
    if not label:
        raise InvalidAnnotation(f"nothing to accept on {key.question} for {key.entity_key}: "
                                "the machine suggests no single label")
    return set_override(session, registry, key, label, ACCEPTED, actor=actor)


def resolve(session: Session, registry: Registry, key: Key, label: str, *, actor: Actor) -> Verdict:
    """Settle a contested verdict with one of its candidates (not one a human dismissed): an
    override with that label and the rationale saying so. Any other label, or a verdict that
    is not contested, is refused: the rationale would misstate what the human chose among."""
    _take_turn(session, registry, key)
    verdict = stored_verdict(session, key)
    if verdict is None or not verdict.contested:
        raise InvalidAnnotation(f"{key.question} for {key.entity_key} is not contested: nothing to "
                                "choose among (set an override to give another answer)")
    candidates = [c.label for c in verdict.live]
    if label not in candidates:
        raise InvalidAnnotation(f"{label!r} is not one of the contested candidates of {key.question} for "
                                f"{key.entity_key} ({', '.join(candidates)}); set an override to give "
                                "another answer")
    return set_override(session, registry, key, label, RESOLVED.format(label=label), actor=actor)
