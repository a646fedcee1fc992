"""The capture document (`analyze --json`, the JSON export) read from the store, and the
export's CSV rows. Deterministic: hosts by position, facts by kind, value and source."""

from __future__ import annotations

import json
from collections.abc import Iterator

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...adjudicate.contract import Verdict
from ...adjudicate.registry import Registry
from ...extract.kinds import HOSTNAME_CLAIM, MAC, OUI_VENDOR
from ...store.models import (
    AuditEvent,
    Capture,
    Dismissal,
    Entity,
    EntityMember,
    HumanOverride,
    ManualEvidence,
    ObservationRow,
)
from . import traffic as traffic_read
from .captures import findings
from .manifest import manifest
from .notices import notices_of
from .shapes import plain
from .software import entries as software_entries
from .trail import EvidenceEntry, TrailEvent
from .verdicts import documents_by_host_position

# a host document's software entries: what `read.software.Software` holds but the device
SOFTWARE_FIELDS = ("product", "version", "platform", "seen_as", "evidence", "text", "first_frame",
                   "last_frame", "count")


def capture_document(session: Session, capture: Capture, registry: Registry) -> dict:
    """The whole document in memory (the export); `report.write_capture` streams it instead."""
    return capture_head(session, capture) | {"hosts": list(host_documents(session, capture.id, registry))}


def capture_head(session: Session, capture: Capture) -> dict:
    """Everything of the document but its hosts, in the document's key order."""
    return {
        "capture": {"id": capture.id, "name": capture.name, "sha256": capture.sha256,
                    "size": capture.size, "format": capture.format, "packets": capture.packets,
                    "status": capture.status},
        "manifest": plain(manifest(session, capture.id)),
        "conversations": capture.conversations or 0,
        "findings": plain(findings(session, capture.id)),
        **plain(notices_of(session, capture.id)),
    }


def host_documents(session: Session, capture_id: str, registry: Registry) -> Iterator[dict]:
    """Each host's document in host order, read host by host (`host_parts`). A verdict is its
    stored document, `Verdict.to_document()`'s."""
    for host, verdicts in host_parts(session, capture_id, registry):
        host["verdicts"] = {question: json.loads(text) for question, text in verdicts}
        yield host


def host_parts(session: Session, capture_id: str, registry: Registry) -> Iterator[tuple[dict, list[tuple[str, str]]]]:
    """Each host's document but its verdicts, in host order, with its verdicts as stored:
    (question, the JSON text of `Verdict.to_document()`), in registry order. Facts and
    verdicts stream from cursors ordered by host position and are merged here, so a capture
    of many hosts is never in memory at once."""
    order = {a.question: i for i, a in enumerate(registry)}
    session.flush()  # the rows are read through the connection (Core rows, cheaper than the ORM's)
    by_entity = (Entity.capture_id == capture_id)
    facts = _stream(session, select(
        Entity.position, ObservationRow.kind, ObservationRow.value, ObservationRow.source, ObservationRow.grade,
        ObservationRow.first_frame, ObservationRow.last_frame, ObservationRow.count)
        .join(EntityMember, (EntityMember.capture_id == ObservationRow.capture_id)
              & (EntityMember.member == ObservationRow.entity))
        .join(Entity, (Entity.capture_id == EntityMember.capture_id) & (Entity.key == EntityMember.entity_key))
        .where(by_entity).order_by(Entity.position, ObservationRow.id))
    verdicts = _stream(session, documents_by_host_position(capture_id))
    entities = (select(Entity.position, Entity.key, Entity.ip, Entity.addresses, Entity.locality,
                       Entity.locality_reason, Entity.randomised, *traffic_read.COLUMNS)
                .where(by_entity).order_by(Entity.position))
    for position, key, ip, addresses, locality, locality_reason, randomised, *counts in session.connection().execute(
            entities.execution_options(yield_per=2000)):
        traffic = traffic_read.of(*counts)
        # the union of the entity's addresses' and MACs' facts: one per (kind, value, source)
        merged: dict[tuple[str, str, str], dict] = {}
        for kind, value, source, grade, first, last, count in facts.take(position):
            have = merged.get((kind, value, source))
            if have is None:
                merged[kind, value, source] = {"kind": kind, "value": value, "source": source, "grade": grade,
                                               "first_frame": first, "last_frame": last, "count": count}
            else:
                have["first_frame"] = min(have["first_frame"], first)
                have["last_frame"] = max(have["last_frame"], last)
                have["count"] += count
        host_facts = [merged[k] for k in sorted(merged)]
        installed = [{name: getattr(entry, name) for name in SOFTWARE_FIELDS}
                     for entry in software_entries(key, ((f["kind"], f["value"], f["source"], f["first_frame"],
                                                          f["last_frame"], f["count"]) for f in host_facts))]
        answers = sorted(((order[q], q, text) for q, text in verdicts.take(position) if q in order),
                         key=lambda answer: answer[0])
        yield ({"key": key, "ip": ip, "addresses": list(addresses),
                "macs": sorted({f["value"] for f in host_facts if f["kind"] == MAC.name}),
                "locality": locality, "locality_reason": locality_reason, "randomised": bool(randomised),
                "traffic": traffic.document() if traffic is not None else None, "facts": host_facts, "software": installed}, [(q, text) for _, q, text in answers])


class _Rows:
    """A cursor of rows whose first column is a host position, read one host at a time."""

    def __init__(self, rows) -> None:
        self._rows = iter(rows)
        self._next = next(self._rows, None)

    def take(self, position: int) -> list[tuple]:
        """The rows of `position`, each without its position; rows of earlier positions are skipped."""
        out = []
        while self._next is not None and self._next[0] <= position:
            if self._next[0] == position:
                out.append(tuple(self._next[1:]))
            self._next = next(self._rows, None)
        return out


def _stream(session: Session, statement) -> _Rows:
    # yield_per streams (a server-side cursor on PostgreSQL) instead of fetching every row
    return _Rows(session.connection().execute(statement.execution_options(yield_per=2000)))


def _rows(session: Session, model, capture_id: str) -> list:
    return list(session.scalars(select(model).where(model.capture_id == capture_id).order_by(model.id)))


def capture_export(session: Session, capture: Capture, registry: Registry) -> dict:
    """The capture document plus every human action: the annotations in force and the whole
    audit trail."""
    document = capture_document(session, capture, registry)
    document["capture"].update({"uploaded_at": capture.uploaded_at.isoformat(),
                                "uploaded_by": capture.uploaded_by})
    document["human"] = {
        "overrides": [{"question": o.question, "entity_key": o.entity_key, "label": o.label,
                       "rationale": o.rationale, "actor": o.actor, "created_at": o.created_at.isoformat(),
                       "updated_at": o.updated_at.isoformat()}
                      for o in _rows(session, HumanOverride, capture.id)],
        "evidence": [plain(EvidenceEntry.of(e)) for e in _rows(session, ManualEvidence, capture.id)],
        "dismissals": [{"question": d.question, "entity_key": d.entity_key, "label": d.label,
                        "reason": d.reason, "actor": d.actor, "created_at": d.created_at.isoformat()}
                       for d in _rows(session, Dismissal, capture.id)],
        "audit": [plain(TrailEvent.of(e)) for e in _rows(session, AuditEvent, capture.id)],
    }
    return document


CSV_COLUMNS = ("capture_id", "ip", "macs", "names", "question", "primary_label", "basis", "confidence",
               "contested", "candidates", "reasons", "override_label", "override_actor",
               "override_rationale", "dismissed", "override_at", "evidence", "dismissal_reasons", "actors",
               "last_human_at")


def csv_rows(document: dict) -> Iterator[tuple]:
    """One row per (host, question) of a capture export (`capture_export`); lists joined with
    " | ". Besides the answer: the analyst evidence in force ("label (+weight) by actor at
    time: reason"), each dismissal with its reason, every actor of a human answer, evidence
    or dismissal on the row, and the time of the latest of them."""
    cid = document["capture"]["id"]
    human = _human_by_key(document.get("human", {}))
    for host in document["hosts"]:
        names = sorted({f["value"] for f in host["facts"] if f["kind"] == HOSTNAME_CLAIM.name})
        for question, doc in host["verdicts"].items():
            v = Verdict.from_document(doc)
            live, o = v.live, v.override
            rows = human.get((question, host["key"]), {})
            evidence, dismissals, overrides = rows.get("evidence", []), rows.get("dismissals", []), rows.get("overrides", [])
            actors = sorted({r["actor"] for r in evidence + dismissals + overrides})
            times = [r.get("updated_at") or r["created_at"] for r in evidence + dismissals + overrides]
            yield (cid, host["ip"], " | ".join(host["macs"]), " | ".join(names), question,
                   v.primary_label or "", str(v.basis), v.confidence, str(v.contested).lower(),
                   " | ".join(f"{c.label} ({c.score})" for c in live),
                   " | ".join(live[0].reasons) if live else "",
                   o.label if o else "", o.actor if o else "", o.rationale if o else "",
                   " | ".join(v.dismissed),
                   o.at if o else "",
                   " | ".join(f"{e['label']} ({e['weight']:+d}) by {e['actor']} at {e['updated_at']}: {e['reason']}"
                              for e in evidence),
                   " | ".join(f"{d['label']} by {d['actor']} at {d['created_at']}: {d['reason']}" for d in dismissals),
                   " | ".join(actors), max(times) if times else "")


def _human_by_key(human: dict) -> dict[tuple[str, str], dict[str, list[dict]]]:
    """The export's human rows (overrides, evidence, dismissals) by (question, entity_key)."""
    out: dict[tuple[str, str], dict[str, list[dict]]] = {}
    for part in ("overrides", "evidence", "dismissals"):
        for row in human.get(part, []):
            out.setdefault((row["question"], row["entity_key"]), {}).setdefault(part, []).append(row)
    return out


def wide_csv_columns(questions: list[str]) -> list[str]:
    """The wide CSV's header: the device, its traffic, then each question's answer, confidence
    and basis (registry order)."""
    return ["capture_id", "key", "ip", "addresses", "macs", "vendors", "names", "locality",
            *traffic_read.CSV_COLUMNS,
            *(f"{q}{suffix}" for q in questions for suffix in ("", "_confidence", "_basis"))]


def wide_csv_rows(document: dict, questions: list[str]) -> Iterator[list]:
    """One row per device of a capture document (`capture_export`), `wide_csv_columns`' order;
    lists joined with " | ", ports with spaces. A contested answer reads "contested"; a
    question without a verdict leaves its three cells empty."""
    cid = document["capture"]["id"]
    for host in document["hosts"]:
        facts = host["facts"]
        vendors = sorted({f["value"] for f in facts if f["kind"] == OUI_VENDOR.name})
        names = sorted({f["value"] for f in facts if f["kind"] == HOSTNAME_CLAIM.name})
        t = host.get("traffic")
        traffic = [_traffic_cell(t[column]) if t else "" for column in traffic_read.CSV_COLUMNS]
        answers = []
        for question in questions:
            doc = host["verdicts"].get(question)
            if doc is None:
                answers += ["", "", ""]
                continue
            v = Verdict.from_document(doc)
            label = "contested" if v.contested else v.primary_label or ""
            answers += [label, v.confidence, str(v.basis)]
        yield [cid, host["key"], host["ip"] or "", " | ".join(host["addresses"]), " | ".join(host["macs"]),
               " | ".join(vendors), " | ".join(names), host["locality"] or "", *traffic, *answers]


def _traffic_cell(value: object) -> object:
    """A traffic value as a CSV cell: ports joined by spaces, a missing time empty."""
    if isinstance(value, list):
        return " ".join(value)
    return "" if value is None else value
