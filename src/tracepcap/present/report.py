"""The capture document (`analyze --json`, exports) and its plain-text table, read from the
store. Deterministic: hosts by address, facts by kind, value and source."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..adjudicate.registry import Registry
from ..extract.facts import FactKind
from ..extract.kinds import HOSTNAME_CLAIM, MAC, OUI_VENDOR, SERVED, TTL
from ..store.models import Capture, Finding, Host, ManifestEntry, Notice, NoticeCount, ObservationRow, VerdictRow

TOP_REASONS = 3
#: notices listed in the document, in frame order; every one is in `notice_counts`, and the
#: API pages through all that were stored
NOTICES_IN_DOCUMENT = 100


def capture_document(session: Session, capture: Capture, registry: Registry) -> dict:
    """The whole document in memory (the API's export); `write_capture` streams it instead."""
    return capture_head(session, capture) | {"hosts": list(host_documents(session, capture.id, registry))}


def capture_head(session: Session, capture: Capture) -> dict:
    """Everything of the document but its hosts, in the document's key order."""
    manifest = session.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == capture.id)
                               .order_by(ManifestEntry.id)).all()
    return {
        "capture": {"id": capture.id, "name": capture.name, "sha256": capture.sha256,
                    "size": capture.size, "format": capture.format, "packets": capture.packets,
                    "status": capture.status},
        "manifest": [{"extractor": m.extractor, "version": m.version, "status": m.status,
                      "facts": m.facts, "error": m.error} for m in manifest],
        "conversations": capture.conversations or 0,
        "findings": findings_of(session, capture.id),
        **notices_of(session, capture.id),
    }


def host_documents(session: Session, capture_id: str, registry: Registry) -> Iterator[dict]:
    """Each host's document in host order, read host by host: facts and verdicts stream from
    cursors ordered by host position and are merged here, so a capture of many hosts is
    never in memory at once."""
    order = {a.question: i for i, a in enumerate(registry)}
    by_host = (Host.capture_id == capture_id)
    facts = _stream(session, select(
        Host.position, ObservationRow.kind, ObservationRow.value, ObservationRow.source, ObservationRow.grade,
        ObservationRow.first_frame, ObservationRow.last_frame, ObservationRow.count)
        .join(Host, (Host.capture_id == ObservationRow.capture_id) & (Host.ip == ObservationRow.entity))
        .where(by_host).order_by(Host.position, ObservationRow.id))
    verdicts = _stream(session, select(Host.position, VerdictRow.question, VerdictRow.document)
                       .join(Host, (Host.capture_id == VerdictRow.capture_id) & (Host.ip == VerdictRow.entity_key))
                       .where(by_host).order_by(Host.position))
    hosts = select(Host.position, Host.ip).where(by_host).order_by(Host.position)
    for position, ip in session.execute(hosts.execution_options(yield_per=2000)):
        host_facts = sorted(({"kind": kind, "value": value, "source": source, "grade": grade,
                              "first_frame": first, "last_frame": last, "count": count}
                             for kind, value, source, grade, first, last, count in facts.take(position)),
                            key=lambda f: (f["kind"], f["value"], f["source"]))
        answers = sorted(((order[q], q, doc) for q, doc in verdicts.take(position) if q in order),
                         key=lambda answer: answer[0])
        yield {"ip": ip, "macs": sorted({f["value"] for f in host_facts if f["kind"] == MAC.name}),
               "facts": host_facts, "verdicts": {q: doc for _, q, doc in answers}}


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
    return _Rows(session.execute(statement.execution_options(yield_per=2000)))


def write_capture(session: Session, capture: Capture, registry: Registry, out: TextIO, *,
                  as_json: bool) -> None:
    """Write the capture document (as JSON, or as the host table) host by host: byte for byte
    what printing the whole document would give, without holding it."""
    head = capture_head(session, capture)
    hosts = host_documents(session, capture.id, registry)
    if as_json:
        write_json(head, hosts, out)
        return
    count = session.scalar(select(func.count()).select_from(Host).where(Host.capture_id == capture.id))
    for line in table_lines(head, hosts, count):
        out.write(line + "\n")


def write_json(head: dict, hosts: Iterable[dict], out: TextIO) -> None:
    """The capture document, `head | {"hosts": [...]}`, one host at a time: the head indented,
    each host on a line of its own. (An indented host cost 80 % of the report of a capture of
    100,000 hosts: `json` has no C encoder for `indent`; a host per line reads as well with
    `jq` or `grep` and keeps the document the same JSON.)"""
    text = json.dumps(head, indent=2)
    out.write(text[:-2] + ',\n  "hosts": [' if head else '{\n  "hosts": [')
    separator = "\n    "
    for host in hosts:
        out.write(separator + json.dumps(host))
        separator = ",\n    "
    out.write("]\n}\n" if separator == "\n    " else "\n  ]\n}\n")


def findings_of(session: Session, capture_id: str) -> list[dict]:
    rows = session.scalars(select(Finding).where(Finding.capture_id == capture_id)).all()
    out = [{"kind": f.kind, "severity": f.severity, "entities": f.entities, "summary": f.summary,
            "frames": f.frames} for f in rows]
    return sorted(out, key=lambda f: (f["kind"], f["entities"], f["summary"]))


def notices_of(session: Session, capture_id: str, limit: int = NOTICES_IN_DOCUMENT) -> dict:
    """Traffic that violated its protocol: every notice counted by kind, the first `limit` listed."""
    counts = session.execute(select(NoticeCount.kind, NoticeCount.count)
                             .where(NoticeCount.capture_id == capture_id).order_by(NoticeCount.kind))
    first = session.scalars(select(Notice).where(Notice.capture_id == capture_id)
                            .order_by(Notice.frame, Notice.id).limit(limit))
    return {"notice_counts": {kind: count for kind, count in counts},
            "notices": [notice_fields(n) for n in first]}


def notice_fields(notice: Notice) -> dict:
    return {"kind": notice.kind, "entity": notice.entity, "frame": notice.frame, "text": notice.text}


def notice_line(counts: dict[str, int]) -> str:
    """One line of counts by kind, most frequent first."""
    kinds = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return (f"notices: {sum(counts.values())} (traffic that violated its protocol: "
            + ", ".join(f"{kind} {n}" for kind, n in kinds) + ")")


def _values(host: dict, kind: FactKind, *, with_source: bool = False) -> list[str]:
    out: list[str] = []
    for fact in host["facts"]:
        if fact["kind"] == kind.name:
            text = f"{fact['value']} ({fact['source']})" if with_source else fact["value"]
            if text not in out:
                out.append(text)
    return out


def table_lines(head: dict, hosts: Iterable[dict], count: int) -> Iterator[str]:
    """A readable table: one block per host, line by line."""
    cap = head["capture"]
    yield (f"capture {cap['id']}  {cap['name']}  {cap['format']}  {cap['packets']} packets  "
           f"{count} hosts  {head['conversations']} conversations  status: {cap['status']}")
    for row in head["manifest"]:
        if row["status"] not in ("completed", "skipped"):
            yield f"  ! {row['extractor']}: {row['status']}: {row['error']}"
    if head["notice_counts"]:
        yield "  " + notice_line(head["notice_counts"])
    for finding in head["findings"]:
        frames = ", ".join(map(str, finding["frames"][:5]))
        yield f"  finding [{finding['severity']}] {finding['kind']}: {finding['summary']} (frames {frames})"
    yield ""
    header = f"{'IP':<40} {'MAC':<18} {'TTL':<8} VENDOR"
    yield header
    yield "-" * len(header)
    for host in hosts:
        macs = host["macs"] or ["-"]
        vendor = ", ".join(_values(host, OUI_VENDOR)) or "-"
        ttl = ",".join(sorted(_values(host, TTL), key=int)) or "-"
        yield f"{host['ip']:<40} {macs[0]:<18} {ttl:<8} {vendor}"
        for mac in macs[1:]:
            yield f"{'':<40} {mac}"
        names = _values(host, HOSTNAME_CLAIM, with_source=True)
        if names:
            yield f"{'':<4}names: {', '.join(names)}"
        served = _values(host, SERVED)
        if served:
            yield f"{'':<4}serves: {', '.join(sorted(served))}"
        for question, verdict in host["verdicts"].items():
            yield from verdict_lines(question, verdict, indent=4)


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
