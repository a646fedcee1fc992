"""What each page and partial shows, assembled from the stores' read helpers and the
annotation services. Formatting only: every answer shown is a stored verdict document, every
human action an annotation or audit event as recorded.

The adjudication panel is keyed by the question string and fed the question's metadata
(title, tier, vocabulary) from the registry: no code here or in the templates names a question.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...adjudicate import annotations
from ...adjudicate.actor import SYSTEM, Actor
from ...adjudicate.contract import Adjudicator, Basis, Key, Tier
from ...adjudicate.registry import Registry
from ...adjudicate.runner import stored_verdicts
from ...store.models import AuditEvent, Capture, ManualEvidence, VerdictRow
from ..queries import capture_fields, require_host
from ..report import findings_of, notices_of
from . import queries

OTHER = "__other__"  # the "Other…" entry of a label dropdown
NOTICES_SHOWN = 10  # on the capture page; the API pages through the rest


class FormValues(dict):
    """What a failed form held, to show it again; absent fields read as ""."""

    def __missing__(self, key: str) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who looks at the page, as the server resolved them (never from the page)."""

    name: str
    can_write: bool
    subject: str  # what authorship is checked against (actor.py)

    @classmethod
    def of(cls, actor: Actor) -> Viewer:
        return cls(actor.name, actor.can("analyst"), actor.subject)


def who(actor: str | None) -> str:
    """How an actor is shown: "system" (auth off) is "unattributed". No token user is named
    either (actor.py shows theirs with their sub)."""
    if not actor or actor == SYSTEM:
        return "unattributed"
    return actor


def question_meta(adj: Adjudicator) -> dict:
    return {"question": adj.question, "title": adj.title, "tier": str(adj.tier), "labels": list(adj.labels),
            "unknown_label": adj.unknown_label}


# --- the captures page ----------------------------------------------------------------------

def captures_context(session: Session) -> dict:
    return {"captures": queries.capture_rows(session)}


# --- the capture page -----------------------------------------------------------------------

def capture_context(session: Session, registry: Registry, capture: Capture, query: queries.HostQuery) -> dict:
    manifest = queries.manifest_rows(session, capture.id)
    return {"capture": capture_fields(capture),
            "manifest": manifest,
            "manifest_problems": [m for m in manifest if m.status not in ("completed", "skipped")],
            "findings": findings_of(session, capture.id),
            **notices_of(session, capture.id, NOTICES_SHOWN),
            "counts": queries.label_counts(session, registry, capture.id),
            "questions": [question_meta(a) for a in registry],
            **hosts_context(session, registry, capture, query)}


def hosts_context(session: Session, registry: Registry, capture: Capture, query: queries.HostQuery) -> dict:
    page = queries.host_page(session, registry, capture.id, query)
    return {"capture": capture_fields(capture), "hosts": page,
            "questions": [question_meta(a) for a in registry],
            "columns": [("ip", "IP"), ("mac", "MAC / vendor")] + [(a.question, a.title) for a in registry],
            "per_page_choices": queries.PER_PAGE_CHOICES}


# --- the host page --------------------------------------------------------------------------

def host_context(session: Session, registry: Registry, capture: Capture, ip: str, viewer: Viewer) -> dict:
    require_host(session, capture.id, ip)
    panels = [panel_context(session, adj, Key(adj.question, capture.id, ip), viewer) for adj in registry]
    return {"capture": capture_fields(capture), "ip": ip, "facts": queries.host_facts(session, capture.id, ip),
            "neighbours": queries.neighbours(session, capture.id, ip), "panels": panels,
            "findings": [f for f in findings_of(session, capture.id) if ip in f["entities"]]}


def headline_context(session: Session, registry: Registry, capture: Capture, ip: str) -> dict:
    """Each question's answer for the host, for the line under its address."""
    require_host(session, capture.id, ip)
    verdicts = stored_verdicts(session, registry, capture.id, ip).get(ip, {})
    return {"capture": capture_fields(capture), "ip": ip,
            "items": [{"q": question_meta(a), "verdict": verdicts.get(a.question)} for a in registry]}


def panel_context(session: Session, adj: Adjudicator, key: Key, viewer: Viewer, *,
                  error: str | None = None, form: dict | None = None) -> dict:
    """One adjudication panel: the stored verdict, the analyst evidence, the trail (newest
    first), and what the viewer may do. `error` is a failed action's message from the server."""
    row = session.get(VerdictRow, (key.capture_id, key.question, key.entity_key))
    verdict = row.document if row is not None else None  # None while the analysis runs
    evidence = session.scalars(select(ManualEvidence).where(
        ManualEvidence.question == key.question, ManualEvidence.capture_id == key.capture_id,
        ManualEvidence.entity_key == key.entity_key).order_by(ManualEvidence.id))
    candidates = verdict["candidates"] if verdict else []
    live = [c for c in candidates if not c.get("dismissed")]
    choices = list(adj.labels) + [c["label"] for c in candidates if c["label"] not in adj.labels]
    trail = list(reversed(annotations.trail(session, key)))
    return {"key": key, "q": question_meta(adj), "verdict": verdict, "live": live,
            "dismissed": [c for c in candidates if c.get("dismissed")], "choices": choices,
            "evidence": [{"id": e.id, "label": e.label, "weight": e.weight, "reason": e.reason,
                          "actor": e.actor, "at": e.updated_at.isoformat(),
                          "mine": viewer.can_write and e.actor_subject == viewer.subject} for e in evidence],
            "trail": [{"id": e.id, "at": e.at.isoformat(), "actor": e.actor, "action": e.action,
                       "change": describe(e)} for e in trail],
            "viewer": viewer, "error": error, "form": FormValues(form or {}), "other": OTHER,
            "can_accept": bool(verdict and adj.tier == Tier.HUMAN_ASSISTED and not verdict["override"]
                               and verdict["primary_label"] and not verdict["contested"]
                               and verdict["basis"] != Basis.HUMAN and verdict["primary_label"] != adj.unknown_label)}


# --- the trail ------------------------------------------------------------------------------

def _quoted(d: dict | None, field: str = "label") -> str:
    return f"“{d.get(field)}”" if d and d.get(field) is not None else "?"


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
        return f"added evidence for {_quoted(after)} ({after.get('weight', 0):+d}): {after.get('reason', '')}"
    if action == "evidence.edited":
        changes = [f"{field} {before.get(field)!s} → {after.get(field)!s}" for field in ("label", "weight", "reason")
                   if before.get(field) != after.get(field)]
        return f"edited evidence #{after.get('id')}: " + ("; ".join(changes) or "no change")
    if action == "evidence.deleted":
        return f"deleted evidence for {_quoted(before)} ({before.get('weight', 0):+d}): {before.get('reason', '')}"
    if action == "dismissal.added":
        return f"dismissed {_quoted(after)}: {after.get('reason', '')}"
    if action == "dismissal.removed":
        return f"restored {_quoted(before)} to the race"
    if action == "override.stale":
        moved = [f"{k} {v} gone" for k, v in after.get("gone", [])] + [f"{k} {v} new" for k, v in after.get("new", [])]
        return f"the facts beneath {_quoted(after)} moved: {', '.join(moved) or 'facts changed'}"
    if action == "access.denied":
        return f"refused {after.get('method', '')} (needs the {after.get('required_role', '?')} role)"
    return action
