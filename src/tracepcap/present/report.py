"""The capture document (`analyze --json`, exports) and its plain-text table, read from the
store. Deterministic: hosts by address, facts by kind, value and source."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..adjudicate.registry import Registry
from ..adjudicate.runner import stored_verdicts
from ..extract.facts import FactKind
from ..extract.kinds import HOSTNAME_CLAIM, MAC, OUI_VENDOR, SERVED, TTL
from ..store.models import Capture, Finding, Host, ManifestEntry, ObservationRow

TOP_REASONS = 3


def capture_document(session: Session, capture: Capture, registry: Registry) -> dict:
    manifest = session.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == capture.id)
                               .order_by(ManifestEntry.id)).all()
    facts: dict[str, list[dict]] = defaultdict(list)
    rows = session.scalars(select(ObservationRow).where(ObservationRow.capture_id == capture.id)).all()
    for row in rows:
        facts[row.entity].append({"kind": row.kind, "value": row.value, "source": row.source,
                                  "grade": row.grade, "first_frame": row.first_frame,
                                  "last_frame": row.last_frame, "count": row.count})
    verdicts = stored_verdicts(session, registry, capture.id)
    hosts = []
    for host in session.scalars(select(Host).where(Host.capture_id == capture.id).order_by(Host.position)):
        host_facts = sorted(facts.get(host.ip, ()), key=lambda f: (f["kind"], f["value"], f["source"]))
        hosts.append({"ip": host.ip,
                      "macs": sorted({f["value"] for f in host_facts if f["kind"] == MAC.name}),
                      "facts": host_facts,
                      "verdicts": verdicts.get(host.ip, {})})
    return {
        "capture": {"id": capture.id, "name": capture.name, "sha256": capture.sha256,
                    "size": capture.size, "format": capture.format, "packets": capture.packets,
                    "status": capture.status},
        "manifest": [{"extractor": m.extractor, "version": m.version, "status": m.status,
                      "facts": m.facts, "error": m.error} for m in manifest],
        "conversations": capture.conversations or 0,
        "findings": findings_of(session, capture.id),
        "hosts": hosts,
    }


def findings_of(session: Session, capture_id: str) -> list[dict]:
    rows = session.scalars(select(Finding).where(Finding.capture_id == capture_id)).all()
    out = [{"kind": f.kind, "severity": f.severity, "entities": f.entities, "summary": f.summary,
            "frames": f.frames} for f in rows]
    return sorted(out, key=lambda f: (f["kind"], f["entities"], f["summary"]))


def _values(host: dict, kind: FactKind, *, with_source: bool = False) -> list[str]:
    out: list[str] = []
    for fact in host["facts"]:
        if fact["kind"] == kind.name:
            text = f"{fact['value']} ({fact['source']})" if with_source else fact["value"]
            if text not in out:
                out.append(text)
    return out


def host_table(document: dict) -> str:
    """A readable table: one block per host."""
    cap = document["capture"]
    lines = [f"capture {cap['id']}  {cap['name']}  {cap['format']}  {cap['packets']} packets  "
             f"{len(document['hosts'])} hosts  {document['conversations']} conversations  "
             f"status: {cap['status']}"]
    for row in document["manifest"]:
        if row["status"] not in ("completed", "skipped"):
            lines.append(f"  ! {row['extractor']}: {row['status']}: {row['error']}")
    for finding in document["findings"]:
        frames = ", ".join(map(str, finding["frames"][:5]))
        lines.append(f"  finding [{finding['severity']}] {finding['kind']}: {finding['summary']} (frames {frames})")
    lines.append("")
    header = f"{'IP':<40} {'MAC':<18} {'TTL':<8} VENDOR"
    lines += [header, "-" * len(header)]
    for host in document["hosts"]:
        macs = host["macs"] or ["-"]
        vendor = ", ".join(_values(host, OUI_VENDOR)) or "-"
        ttl = ",".join(sorted(_values(host, TTL), key=int)) or "-"
        lines.append(f"{host['ip']:<40} {macs[0]:<18} {ttl:<8} {vendor}")
        for mac in macs[1:]:
            lines.append(f"{'':<40} {mac}")
        names = _values(host, HOSTNAME_CLAIM, with_source=True)
        if names:
            lines.append(f"{'':<4}names: {', '.join(names)}")
        served = _values(host, SERVED)
        if served:
            lines.append(f"{'':<4}serves: {', '.join(sorted(served))}")
        for question, verdict in host["verdicts"].items():
            lines += verdict_lines(question, verdict, indent=4)
    return "\n".join(lines)


def verdict_headline(verdict: dict) -> str:
    if verdict["contested"]:
        names = " / ".join(f"{c['label']} ({c['score']})" for c in verdict["candidates"][:3]
                           if not c.get("dismissed"))
        return f"⚠ contested: {names}"
    basis = verdict["basis"].lower()
    stale = ", STALE" if verdict.get("stale_since") else ""
    return f"{verdict['primary_label']}  [{basis}, confidence {verdict['confidence']}{stale}]"


def verdict_lines(question: str, verdict: dict, *, indent: int, reasons: int = TOP_REASONS) -> list[str]:
    pad = " " * indent
    lines = [f"{pad}{question}: {verdict_headline(verdict)}"]
    if verdict.get("override"):
        o = verdict["override"]
        lines.append(f"{pad}  override by {o['actor']} at {o['at']}: {o['rationale']}")
    for note in verdict.get("notes", []):
        lines.append(f"{pad}  note: {note}")
    shown = [c for c in verdict["candidates"] if not c.get("dismissed")]
    winner = shown[0] if shown else None
    if winner:
        for reason in winner["reasons"][:reasons]:
            lines.append(f"{pad}  - {reason}")
    return lines
