"""Human actions as Present shows them: analyst evidence and audit events, each turned into
one shape here, and the one sentence saying what an audit event changed."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...adjudicate import annotations
from ...adjudicate.contract import Key
from ...adjudicate.registry import Registry
from ...adjudicate.runner import moved
from ...store.models import AuditEvent, ManualEvidence

#: the actions on a question's human answer that a question deferring to it follows
ANSWER_ACTIONS = ("override.set", "override.cleared", "override.stale")


def evidence_document(e: ManualEvidence) -> dict:
    return {"id": e.id, "question": e.question, "entity_key": e.entity_key, "label": e.label,
            "weight": e.weight, "reason": e.reason, "actor": e.actor, "created_at": e.created_at.isoformat(),
            "updated_at": e.updated_at.isoformat()}


def event_document(e: AuditEvent) -> dict:
    return {"id": e.id, "at": e.at.isoformat(), "actor": e.actor, "action": e.action, "question": e.question,
            "capture_id": e.capture_id, "entity_key": e.entity_key, "before": e.before, "after": e.after}


def _quoted(d: dict | None, field: str = "label") -> str:
    return f"“{d.get(field)}”" if d and d.get(field) is not None else "?"


def _evidence(verb: str, d: dict) -> str:
    return f"{verb} evidence for {_quoted(d)} ({d.get('weight', 0):+d}): {d.get('reason', '')}"


def describe(event: AuditEvent) -> str:
    """What an audit event changed, in a line."""
    before, after, action = event.before or {}, event.after or {}, event.action
    if action == "override.set":
        reason = f" — {after.get('rationale')}" if after.get("rationale") else ""
        if event.before:
            return f"changed the answer from {_quoted(before)} to {_quoted(after)}{reason}"
        return f"set the answer to {_quoted(after)}{reason}"
    if action == "override.cleared":
        return f"reverted {_quoted(before)} to the machine's answer"
    if action == "evidence.added":
        return _evidence("added", after)
    if action == "evidence.edited":
        changes = [f"{field} {before.get(field)!s} → {after.get(field)!s}" for field in ("label", "weight", "reason")
                   if before.get(field) != after.get(field)]
        return f"edited evidence #{after.get('id')}: " + ("; ".join(changes) or "no change")
    if action == "evidence.deleted":
        return _evidence("deleted", before)
    if action == "dismissal.added":
        return f"dismissed {_quoted(after)}: {after.get('reason', '')}"
    if action == "dismissal.removed":
        return f"restored {_quoted(before)} to the race"
    if action == "override.stale":
        return f"the facts beneath {_quoted(after)} moved: {moved(after)}"
    if action in ("override.carried", "evidence.carried", "dismissal.carried"):
        return (f"carried {_quoted(after)} from capture {after.get('from_capture')}, given by "
                f"{after.get('author')} at {after.get('at')}")
    if action == "carry.withdrawn":
        return f"no longer carries {_quoted(before)} from capture {before.get('from_capture')}"
    if action == "override.reaffirmed":
        return f"re-affirmed {_quoted(after)}" + (" (it was stale)" if before.get("stale_since") else "")
    if action == "change.reviewed":
        return f"marked reviewed: {after.get('summary')}"
    if action == "access.denied":
        return f"refused {after.get('method', '')} (needs the {after.get('required_role', '?')} role)"
    return action


def panel_trail(session: Session, registry: Registry, key: Key) -> list[dict]:
    """A panel's trail, newest first: the key's own audit events, and — for a question that
    defers to another (Device type follows an accepted Node role) — the events that set or
    cleared that question's human answer on the entity, each with `via` (that question's title)
    and a sentence saying what it did to this answer. So an answer a human gave through
    another panel never shows here as a human answer with an empty trail."""
    entries = [(e, event_document(e) | {"change": describe(e), "via": None})
               for e in annotations.trail(session, key)]
    defers = registry.get(key.question).defers
    if defers is not None and defers.question in {a.question for a in registry}:
        title = registry.get(defers.question).title
        for e in annotations.trail(session, Key(defers.question, key.capture_id, key.entity_key)):
            if e.action in ANSWER_ACTIONS:
                entries.append((e, event_document(e) | {"change": f"{describe(e)} — {_effect(e, defers, title)}",
                                                         "via": title}))
    entries.sort(key=lambda pair: (pair[0].at, pair[0].id), reverse=True)
    return [doc for _, doc in entries]


def _effect(event: AuditEvent, defers, title: str) -> str:
    if event.action == "override.cleared":
        mine = defers.label_for((event.before or {}).get("label", ""))
        return f"this answer no longer follows {title}" if mine else f"{title} decided nothing here"
    mine = defers.label_for((event.after or {}).get("label", ""))
    if mine is None:
        return f"{title}'s answer names no answer here, so it decides nothing"
    if event.action == "override.stale":
        return f"this answer ({mine}) follows it and is stale with it"
    return f"this answer follows it: {mine}"
