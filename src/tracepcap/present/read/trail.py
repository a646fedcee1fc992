"""Human actions as Present shows them: analyst evidence (`EvidenceEntry`) and audit events
(`TrailEvent`), each turned into one shape here, the one sentence saying what an audit event
changed (`describe`), and the one reader of a verdict's trail (`trail`) that the API, the web
panel and `tracepcap explain` all show."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ...adjudicate import annotations
from ...adjudicate.contract import Key
from ...adjudicate.ledger.audit import AuditAction
from ...adjudicate.registry import Registry
from ...adjudicate.runner import moved
from ...store.models import AuditEvent, ManualEvidence

#: the actions on a question's human answer that a question deferring to it follows
ANSWER_ACTIONS = frozenset({AuditAction.OVERRIDE_SET, AuditAction.OVERRIDE_CLEARED, AuditAction.OVERRIDE_STALE})

#: the actions that carried an annotation from an earlier capture of the network
CARRIED = frozenset({AuditAction.OVERRIDE_CARRIED, AuditAction.EVIDENCE_CARRIED, AuditAction.DISMISSAL_CARRIED})


@dataclass(frozen=True, slots=True)
class EvidenceEntry:
    """A piece of analyst evidence on a verdict."""

    id: int
    question: str
    entity_key: str
    label: str
    weight: int
    reason: str
    actor: str
    actor_subject: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, e: ManualEvidence) -> EvidenceEntry:
        return cls(e.id, e.question, e.entity_key, e.label, e.weight, e.reason, e.actor, e.actor_subject,
                   e.created_at, e.updated_at)


@dataclass(frozen=True, slots=True)
class TrailEvent:
    """An audit event with `change`, the sentence saying what it changed; `via` names the
    question it was taken on when that is another one this verdict follows (else None)."""

    id: int
    at: datetime
    actor: str
    actor_subject: str
    action: str
    question: str | None
    capture_id: str | None
    entity_key: str | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    change: str
    via: str | None = None

    @classmethod
    def of(cls, e: AuditEvent) -> TrailEvent:
        return cls(e.id, e.at, e.actor, e.actor_subject, e.action, e.question, e.capture_id, e.entity_key,
                   e.before, e.after, describe(e))


def _quoted(d: dict | None, field: str = "label") -> str:
    return f"“{d.get(field)}”" if d and d.get(field) is not None else "?"


def _evidence(verb: str, d: dict) -> str:
    return f"{verb} evidence for {_quoted(d)} ({d.get('weight', 0):+d}): {d.get('reason', '')}"


def describe(event: AuditEvent) -> str:
    """What an audit event changed, in a line."""
    before, after, action = event.before or {}, event.after or {}, event.action
    if action == AuditAction.OVERRIDE_SET:
        reason = f" — {after.get('rationale')}" if after.get("rationale") else ""
        if event.before:
            return f"changed the answer from {_quoted(before)} to {_quoted(after)}{reason}"
        return f"set the answer to {_quoted(after)}{reason}"
    if action == AuditAction.OVERRIDE_CLEARED:
        return f"reverted {_quoted(before)} to the machine's answer"
    if action == AuditAction.EVIDENCE_ADDED:
        return _evidence("added", after)
    if action == AuditAction.EVIDENCE_EDITED:
        changes = [f"{field} {before.get(field)!s} → {after.get(field)!s}" for field in ("label", "weight", "reason")
                   if before.get(field) != after.get(field)]
        return f"edited evidence #{after.get('id')}: " + ("; ".join(changes) or "no change")
    if action == AuditAction.EVIDENCE_DELETED:
        return _evidence("deleted", before)
    if action == AuditAction.DISMISSAL_ADDED:
        return f"dismissed {_quoted(after)}: {after.get('reason', '')}"
    if action == AuditAction.DISMISSAL_REMOVED:
        return f"restored {_quoted(before)} to the race"
    if action == AuditAction.OVERRIDE_STALE:
        return f"the facts beneath {_quoted(after)} moved: {moved(after)}"
    if action in CARRIED:
        return (f"carried {_quoted(after)} from capture {after.get('from_capture')}, given by "
                f"{after.get('author')} at {after.get('at')}")
    if action == AuditAction.CARRY_WITHDRAWN:
        return f"no longer carries {_quoted(before)} from capture {before.get('from_capture')}"
    if action == AuditAction.OVERRIDE_REAFFIRMED:
        return f"re-affirmed {_quoted(after)}" + (" (it was stale)" if before.get("stale_since") else "")
    if action == AuditAction.CHANGE_REVIEWED:
        return f"marked reviewed: {after.get('summary')}"
    if action == AuditAction.CREDENTIAL_REVEALED:
        who = f" of {after.get('user')}" if after.get("user") else ""
        return (f"revealed the {after.get('protocol')} secret{who} to {after.get('server')}:{after.get('port')} "
                f"(credential #{after.get('credential')}, frame {after.get('frame')})")
    if action == AuditAction.ACCESS_DENIED:
        return f"refused {after.get('method', '')} (needs the {after.get('required_role', '?')} role)"
    return action


def trail(session: Session, registry: Registry, key: Key) -> list[TrailEvent]:
    """A verdict's trail, oldest first: the key's own audit events, and — for a question that
    defers to another (Device type follows an accepted Node role) — the events that set or
    cleared that question's human answer on the entity, each with `via` (that question's title)
    and a sentence saying what it did to this answer. So an answer a human gave through
    another panel never shows here as a human answer with an empty trail."""
    entries = [(e, TrailEvent.of(e)) for e in annotations.trail(session, key)]
    defers = registry.get(key.question).defers
    if defers is not None and defers.question in {a.question for a in registry}:
        title = registry.get(defers.question).title
        for e in annotations.trail(session, Key(defers.question, key.capture_id, key.entity_key)):
            if e.action in ANSWER_ACTIONS:
                entry = TrailEvent.of(e)
                entries.append((e, replace(entry, change=f"{entry.change} — {_effect(e, defers, title)}",
                                           via=title)))
    entries.sort(key=lambda pair: (pair[0].at, pair[0].id))
    return [entry for _, entry in entries]


def _effect(event: AuditEvent, defers, title: str) -> str:
    if event.action == AuditAction.OVERRIDE_CLEARED:
        mine = defers.label_for((event.before or {}).get("label", ""))
        return f"this answer no longer follows {title}" if mine else f"{title} decided nothing here"
    mine = defers.label_for((event.after or {}).get("label", ""))
    if mine is None:
        return f"{title}'s answer names no answer here, so it decides nothing"
    if event.action == AuditAction.OVERRIDE_STALE:
        return f"this answer ({mine}) follows it and is stale with it"
    return f"this answer follows it: {mine}"
