"""Read-only listings for the API and the web UI: captures, hosts, facts, conversations,
verdicts and exports, paginated and filtered in the database. Nothing here writes or decides:
verdicts are read as the runner stored them, human actions as annotations recorded them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from sqlalchemy import Select, exists, func, or_, select
from sqlalchemy.orm import Session

from ..adjudicate.contract import Key
from ..adjudicate.registry import Registry
from ..errors import NotFound
from ..extract.kinds import HOSTNAME_CLAIM, MAC
from ..store.models import (AuditEvent, Capture, CaptureStatus, Conversation, Dismissal, Host, HumanOverride,
                            ManifestEntry, ManualEvidence, Notice, NoticeCount, ObservationRow, VerdictRow)
from ..store.staging import STAGING
from .report import capture_document, findings_of

NAME_KIND = HOSTNAME_CLAIM.name
UNFINISHED = (CaptureStatus.QUEUED, CaptureStatus.ANALYZING)
FINISHED = (CaptureStatus.DONE, CaptureStatus.PARTIAL)  # facts and verdicts can be read


def progress(capture: Capture) -> int:
    """Percent of the stored file read by the analysis (100 once done or partial)."""
    if capture.status in FINISHED:
        return 100
    if not capture.size:
        return 0
    return max(0, min(100, (capture.progress_bytes or 0) * 100 // capture.size))


def capture_fields(capture: Capture) -> dict:
    return {"id": capture.id, "name": capture.name, "size": capture.size, "sha256": capture.sha256,
            "format": capture.format, "status": capture.status, "progress": progress(capture),
            "error": capture.error, "packets": capture.packets, "conversations": capture.conversations,
            "uploaded_at": capture.uploaded_at, "uploaded_by": capture.uploaded_by,
            "analyzed_at": capture.analyzed_at}


def capture_extras(session: Session, capture_id: str) -> dict:
    """The manifest (what each extractor and stage did), the findings and the notice counts."""
    manifest = session.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == capture_id)
                               .order_by(ManifestEntry.id))
    return {"manifest": [{"extractor": m.extractor, "version": m.version, "status": m.status,
                          "facts": m.facts, "error": m.error} for m in manifest],
            "findings": findings_of(session, capture_id),
            "notice_counts": notice_counts(session, capture_id)}


def list_captures(session: Session) -> list[Capture]:
    """Newest first."""
    return list(session.scalars(select(Capture).where(Capture.status != STAGING)
                                .order_by(Capture.uploaded_at.desc(), Capture.id)))


def unfinished_captures(session: Session) -> list[str]:
    """Captures an analysis never finished (queued, or cut short while analyzing), oldest first."""
    return list(session.scalars(select(Capture.id).where(Capture.status.in_(UNFINISHED))
                                .order_by(Capture.uploaded_at, Capture.id)))


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _page(session: Session, stmt: Select, order, offset: int, limit: int | None) -> tuple[int, list]:
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    stmt = stmt.order_by(*order).offset(offset)
    return total, list(session.execute(stmt if limit is None else stmt.limit(limit)))


def require_host(session: Session, capture_id: str, ip: str) -> None:
    if session.get(Host, (capture_id, ip)) is None:
        raise NotFound(f"no host {ip!r} in capture {capture_id}")


def host_page(session: Session, registry: Registry, capture_id: str, *, q: str | None,
              offset: int, limit: int) -> tuple[int, list[dict]]:
    """Hosts in address order, each with its MACs, claimed names and a summary of each
    verdict. `q` keeps hosts whose address, a claimed name or a verdict's label contains it
    (case-insensitive)."""
    stmt = select(Host.ip).where(Host.capture_id == capture_id)
    if q and q.strip():
        pattern = _like(q.strip())
        named = exists().where(ObservationRow.capture_id == capture_id, ObservationRow.entity == Host.ip,
                               ObservationRow.kind == NAME_KIND,
                               func.lower(ObservationRow.value).like(pattern, escape="\\"))
        labelled = exists().where(VerdictRow.capture_id == capture_id, VerdictRow.entity_key == Host.ip,
                                  func.lower(VerdictRow.primary_label).like(pattern, escape="\\"))
        stmt = stmt.where(or_(func.lower(Host.ip).like(pattern, escape="\\"), named, labelled))
    total, rows = _page(session, stmt, (Host.position,), offset, limit)
    ips = [r.ip for r in rows]
    facts: dict[tuple[str, str], set[str]] = defaultdict(set)
    for entity, kind, value in session.execute(select(
            ObservationRow.entity, ObservationRow.kind, ObservationRow.value).where(
            ObservationRow.capture_id == capture_id, ObservationRow.entity.in_(ips),
            ObservationRow.kind.in_((MAC.name, NAME_KIND)))):
        facts[entity, kind].add(value)
    order = {a.question: i for i, a in enumerate(registry)}
    verdicts: dict[str, dict[str, dict]] = defaultdict(dict)
    for v in sorted(session.scalars(select(VerdictRow).where(VerdictRow.capture_id == capture_id,
                                                            VerdictRow.entity_key.in_(ips))),
                    key=lambda v: order.get(v.question, len(order))):
        if v.question in order:
            verdicts[v.entity_key][v.question] = {"primary_label": v.primary_label, "basis": v.basis,
                                                  "confidence": v.confidence, "contested": v.contested}
    return total, [{"ip": ip, "macs": sorted(facts[ip, MAC.name]), "names": sorted(facts[ip, NAME_KIND]),
                    "verdicts": verdicts.get(ip, {})} for ip in ips]


def host_facts(session: Session, capture_id: str, ip: str) -> list[ObservationRow]:
    """The host's facts, by kind, value and source."""
    require_host(session, capture_id, ip)
    return list(session.scalars(select(ObservationRow).where(
        ObservationRow.capture_id == capture_id, ObservationRow.entity == ip).order_by(
        ObservationRow.kind, ObservationRow.value, ObservationRow.source)))


def conversation_page(session: Session, capture_id: str, *, ip: str | None, port: int | None,
                      proto: str | None, offset: int, limit: int) -> tuple[int, list[Conversation]]:
    """Conversations in the order they began; filters match either end."""
    stmt = select(Conversation).where(Conversation.capture_id == capture_id)
    if ip:
        stmt = stmt.where(or_(Conversation.src == ip, Conversation.dst == ip))
    if port is not None:
        stmt = stmt.where(or_(Conversation.sport == port, Conversation.dport == port))
    if proto:
        stmt = stmt.where(Conversation.proto == proto.lower())
    total, rows = _page(session, stmt, (Conversation.first_frame, Conversation.id), offset, limit)
    return total, [r[0] for r in rows]


def verdict_page(session: Session, capture_id: str, question: str, *, offset: int,
                 limit: int | None) -> tuple[int, list[dict]]:
    """Stored verdict documents of one question, in host order."""
    stmt = (select(VerdictRow.document).join(Host, (Host.capture_id == VerdictRow.capture_id)
                                             & (Host.ip == VerdictRow.entity_key))
            .where(VerdictRow.capture_id == capture_id, VerdictRow.question == question))
    total, rows = _page(session, stmt, (Host.position,), offset, limit)
    return total, [r.document for r in rows]


def stored_verdict(session: Session, key: Key) -> dict:
    row = session.get(VerdictRow, (key.capture_id, key.question, key.entity_key))
    if row is None:
        status = session.scalar(select(Capture.status).where(Capture.id == key.capture_id))
        raise NotFound(f"no {key.question} verdict for {key.entity_key} in capture {key.capture_id} "
                       f"yet (capture status: {status})")
    return row.document


def capture_audit(session: Session, capture_id: str) -> list[AuditEvent]:
    return list(session.scalars(select(AuditEvent).where(AuditEvent.capture_id == capture_id)
                                .order_by(AuditEvent.id)))


def _annotation_rows(session: Session, model, capture_id: str) -> list:
    return list(session.scalars(select(model).where(model.capture_id == capture_id).order_by(model.id)))


def capture_export(session: Session, capture: Capture, registry: Registry) -> dict:
    """The capture document (`analyze --json`: every host, fact and verdict with its reasons)
    plus every human action: the annotations in force and the whole audit trail."""
    document = capture_document(session, capture, registry)
    document["capture"].update({"uploaded_at": capture.uploaded_at.isoformat(),
                                "uploaded_by": capture.uploaded_by})
    document["human"] = {
        "overrides": [{"question": o.question, "entity_key": o.entity_key, "label": o.label,
                       "rationale": o.rationale, "actor": o.actor, "created_at": o.created_at.isoformat(),
                       "updated_at": o.updated_at.isoformat()}
                      for o in _annotation_rows(session, HumanOverride, capture.id)],
        "evidence": [{"id": e.id, "question": e.question, "entity_key": e.entity_key, "label": e.label,
                      "weight": e.weight, "reason": e.reason, "actor": e.actor,
                      "created_at": e.created_at.isoformat(), "updated_at": e.updated_at.isoformat()}
                     for e in _annotation_rows(session, ManualEvidence, capture.id)],
        "dismissals": [{"question": d.question, "entity_key": d.entity_key, "label": d.label,
                        "reason": d.reason, "actor": d.actor, "created_at": d.created_at.isoformat()}
                       for d in _annotation_rows(session, Dismissal, capture.id)],
        "audit": [audit_fields(e) | {"at": e.at.isoformat()} for e in capture_audit(session, capture.id)],
    }
    return document


def audit_fields(e: AuditEvent) -> dict:
    return {"id": e.id, "at": e.at, "actor": e.actor, "action": e.action, "question": e.question,
            "capture_id": e.capture_id, "entity_key": e.entity_key, "before": e.before, "after": e.after}


CSV_COLUMNS = ("capture_id", "ip", "macs", "names", "question", "primary_label", "basis", "confidence",
               "contested", "candidates", "reasons", "override_label", "override_actor",
               "override_rationale", "dismissed")


def csv_rows(document: dict) -> Iterator[tuple]:
    """One row per (host, question) of a capture document; lists joined with " | "."""
    cid = document["capture"]["id"]
    for host in document["hosts"]:
        names = sorted({f["value"] for f in host["facts"] if f["kind"] == NAME_KIND})
        for question, v in host["verdicts"].items():
            live = [c for c in v["candidates"] if not c.get("dismissed")]
            override = v.get("override") or {}
            yield (cid, host["ip"], " | ".join(host["macs"]), " | ".join(names), question,
                   v["primary_label"] or "", v["basis"], v["confidence"], str(v["contested"]).lower(),
                   " | ".join(f"{c['label']} ({c['score']})" for c in live),
                   " | ".join(live[0]["reasons"]) if live else "",
                   override.get("label", ""), override.get("actor", ""), override.get("rationale", ""),
                   " | ".join(v.get("dismissed", [])))


def notice_counts(session: Session, capture_id: str) -> dict[str, int]:
    """Every notice of the capture counted by kind (stored or past the limit), by kind name."""
    return dict(session.execute(select(NoticeCount.kind, NoticeCount.count)
                                .where(NoticeCount.capture_id == capture_id).order_by(NoticeCount.kind)).all())


def notice_page(session: Session, capture_id: str, *, kind: str | None, offset: int,
                limit: int) -> tuple[int, list[Notice]]:
    """Stored notices in frame order, of one kind or all."""
    stmt = select(Notice).where(Notice.capture_id == capture_id)
    if kind:
        stmt = stmt.where(Notice.kind == kind)
    total, rows = _page(session, stmt, (Notice.frame, Notice.id), offset, limit)
    return total, [r[0] for r in rows]
