"""The capture document (`analyze --json`, the JSON export) read from the store, and the
export's CSV rows. Deterministic: hosts by position, facts by kind, value and source."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from itertools import chain
from operator import attrgetter
from typing import Any

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
from .applications import Application, applications
from .captures import FindingEntry, findings
from .credentials import Credential, credentials
from .manifest import ManifestRow, manifest
from .notices import NoticeEntry, notices_of
from .shapes import StoredJson, plain
from .software import entries as software_entries
from .traffic import DeviceTraffic
from .trail import EvidenceEntry, TrailEvent
from .verdicts import documents_by_host_position


@dataclass(frozen=True, slots=True)
class CaptureSummary:
    """The capture as the document names it."""
    id: str
    name: str
    sha256: str
    size: int
    format: str
    packets: int | None
    status: str

    @classmethod
    def of(cls, capture: Capture) -> CaptureSummary:
        return cls(capture.id, capture.name, capture.sha256, capture.size, capture.format, capture.packets,
                   capture.status)


@dataclass(frozen=True, slots=True)
class CaptureRecord(CaptureSummary):
    """The capture as the export names it: who uploaded it, when (ISO 8601 as stored)."""
    uploaded_at: str
    uploaded_by: str | None

    @classmethod
    def of(cls, capture: Capture) -> CaptureRecord:
        return cls(capture.id, capture.name, capture.sha256, capture.size, capture.format, capture.packets,
                   capture.status, capture.uploaded_at.isoformat(), capture.uploaded_by)


@dataclass(frozen=True, slots=True)
class DocumentHead:
    """Everything of the document before its hosts, in the document's key order."""
    capture: CaptureSummary
    manifest: tuple[ManifestRow, ...]
    conversations: int
    findings: tuple[FindingEntry, ...]
    notice_counts: Mapping[str, int]
    notices: tuple[NoticeEntry, ...]


@dataclass(frozen=True, slots=True)
class DocumentTail:
    """Everything of the document after its hosts: the logins (secrets masked, never stored)
    and the applications, as their listings read them."""
    credentials: tuple[Credential, ...]
    applications: tuple[Application, ...]


@dataclass(frozen=True, slots=True)
class HostFact:
    """One fact of a host: the union of its addresses' and MACs' rows of one (kind, value, source)."""
    kind: str
    value: str
    source: str
    grade: str
    first_frame: int
    last_frame: int
    count: int


@dataclass(frozen=True, slots=True)
class HostSoftware:
    """A host's software entry: `read.software.Software` but the device."""
    product: str
    version: str | None
    platform: str | None
    seen_as: str
    evidence: str
    text: str
    first_frame: int
    last_frame: int
    count: int


@dataclass(frozen=True, slots=True)
class HostDocument:
    """One host of the document. `verdicts`: question -> its stored verdict, the JSON text of
    `Verdict.to_document()` (registry order); `plain` decodes it, a streaming writer copies it."""
    key: str
    ip: str | None
    addresses: tuple[str, ...]
    macs: tuple[str, ...]
    locality: str | None
    locality_reason: str | None
    randomised: bool
    traffic: DeviceTraffic | None
    facts: tuple[HostFact, ...]
    software: tuple[HostSoftware, ...]
    verdicts: Mapping[str, StoredJson]

    def verdict(self, question: str) -> Mapping[str, Any] | None:
        """One question's verdict document, decoded (None: no verdict)."""
        text = self.verdicts.get(question)
        return None if text is None else json.loads(text)

    def answers(self) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """(question, verdict document) in registry order."""
        for question, text in self.verdicts.items():
            yield question, json.loads(text)


#: a host's fields but its verdicts, in order (what `host_json` encodes before copying them)
HOST_FIELDS = tuple(f.name for f in fields(HostDocument) if f.name != "verdicts")


#: how `host_json` shapes each field of a host, as `plain` would: each fact, software entry
#: and the traffic an object of its fields (flat: strings, numbers, tuples of strings, which
#: `host_documents` reads so); the other fields are strings, booleans and tuples of strings,
#: which json encodes as they are. Without `plain`'s walk of every value (a third of the rest).
_FLAT = {name: (tuple(f.name for f in fields(cls)), attrgetter(*(f.name for f in fields(cls))))
         for name, cls in (("facts", HostFact), ("software", HostSoftware), ("traffic", DeviceTraffic))}
_AS_THEY_ARE = frozenset(("key", "ip", "addresses", "macs", "locality", "locality_reason", "randomised"))
_QUESTION_TEXT: dict[str, str] = {}  # question -> its JSON text


def _shaped(name: str, value: Any) -> Any:
    if name in _AS_THEY_ARE:
        return value
    if name == "traffic":
        names, values = _FLAT[name]
        return None if value is None else dict(zip(names, values(value), strict=True))
    if name in _FLAT:
        names, values = _FLAT[name]
        return [dict(zip(names, values(item), strict=True)) for item in value]
    return plain(value)


def host_json(host: HostDocument) -> str:
    """`json.dumps(plain(host))`, the stored verdict texts copied as they are (decoding and
    encoding them again gives the same text, and was half of `analyze --json`'s time)."""
    answers = ", ".join(f"{_QUESTION_TEXT.get(question) or _QUESTION_TEXT.setdefault(question, json.dumps(question))}: "
                        f"{text}" for question, text in host.verdicts.items())
    body = json.dumps({name: _shaped(name, getattr(host, name)) for name in HOST_FIELDS})
    return f"{body[:-1]}, \"verdicts\": {{{answers}}}}}"


@dataclass(frozen=True, slots=True)
class CaptureDocument:
    """`analyze --json`: the capture, what could be read, its findings and notices, every host
    with its facts and verdicts, its logins (masked) and applications."""
    capture: CaptureSummary
    manifest: tuple[ManifestRow, ...]
    conversations: int
    findings: tuple[FindingEntry, ...]
    notice_counts: Mapping[str, int]
    notices: tuple[NoticeEntry, ...]
    hosts: tuple[HostDocument, ...]
    credentials: tuple[Credential, ...]
    applications: tuple[Application, ...]


@dataclass(frozen=True, slots=True)
class OverrideRecord:
    """A human answer in force (times ISO 8601 as stored)."""
    question: str
    entity_key: str
    label: str
    rationale: str
    actor: str
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, o: HumanOverride) -> OverrideRecord:
        return cls(o.question, o.entity_key, o.label, o.rationale, o.actor, o.created_at.isoformat(),
                   o.updated_at.isoformat())


@dataclass(frozen=True, slots=True)
class DismissalRecord:
    """A label a person dismissed, with the reason (time ISO 8601 as stored)."""
    question: str
    entity_key: str
    label: str
    reason: str
    actor: str
    created_at: str

    @classmethod
    def of(cls, d: Dismissal) -> DismissalRecord:
        return cls(d.question, d.entity_key, d.label, d.reason, d.actor, d.created_at.isoformat())


@dataclass(frozen=True, slots=True)
class HumanRecord:
    """Every human action on the capture: the annotations in force and the whole audit trail."""
    overrides: tuple[OverrideRecord, ...]
    evidence: tuple[EvidenceEntry, ...]
    dismissals: tuple[DismissalRecord, ...]
    audit: tuple[TrailEvent, ...]


@dataclass(frozen=True, slots=True)
class CaptureExport:
    """The JSON export: the capture document with who uploaded it and every human action."""
    capture: CaptureRecord
    manifest: tuple[ManifestRow, ...]
    conversations: int
    findings: tuple[FindingEntry, ...]
    notice_counts: Mapping[str, int]
    notices: tuple[NoticeEntry, ...]
    hosts: tuple[HostDocument, ...]
    human: HumanRecord
    credentials: tuple[Credential, ...]
    applications: tuple[Application, ...]


def _parts(value) -> Mapping[str, Any]:
    return {f.name: getattr(value, f.name) for f in fields(value)}


def capture_document(session: Session, capture: Capture, registry: Registry) -> CaptureDocument:
    """The whole document in memory; `report.write_capture` streams it instead."""
    head, tail = capture_head(session, capture), capture_tail(session, capture.id)
    return CaptureDocument(**_parts(head), hosts=tuple(host_documents(session, capture.id, registry)),
                           **_parts(tail))


def capture_head(session: Session, capture: Capture, summary: CaptureSummary | None = None) -> DocumentHead:
    """Everything of the document before its hosts."""
    notices = notices_of(session, capture.id)
    return DocumentHead(summary or CaptureSummary.of(capture), tuple(manifest(session, capture.id)),
                        capture.conversations or 0, tuple(findings(session, capture.id)),
                        notices.notice_counts, notices.notices)


def capture_tail(session: Session, capture_id: str) -> DocumentTail:
    """Everything of the document after its hosts (and, in the export, its human record)."""
    return DocumentTail(tuple(credentials(session, capture_id)), tuple(applications(session, capture_id)))


def host_documents(session: Session, capture_id: str, registry: Registry) -> Iterator[HostDocument]:
    """Each host's document in host order, with its verdicts as stored (registry order). Facts
    and verdicts stream from cursors ordered by host position and are merged here, so a
    capture of many hosts is never in memory at once."""
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
    for position, key, ip, addresses, locality, locality_reason, randomised, *counts in chain.from_iterable(
            session.connection().execute(entities.execution_options(yield_per=2000)).partitions()):
        # the union of the entity's addresses' and MACs' facts: one per (kind, value, source)
        merged: dict[tuple[str, str, str], list] = {}
        for _, kind, value, source, grade, first, last, count in facts.take(position):
            have = merged.get((kind, value, source))
            if have is None:
                merged[kind, value, source] = [grade, first, last, count]
            else:
                have[1], have[2], have[3] = min(have[1], first), max(have[2], last), have[3] + count
        host_facts = tuple(HostFact(kind, value, source, *merged[kind, value, source])
                           for kind, value, source in sorted(merged))
        installed = tuple(HostSoftware(e.product, e.version, e.platform, e.seen_as, e.evidence, e.text, e.first_frame,
                                       e.last_frame, e.count)
                          for e in software_entries(key, ((f.kind, f.value, f.source, f.first_frame, f.last_frame,
                                                           f.count) for f in host_facts)))
        answers = sorted(((order[q], q, text) for _, q, text in verdicts.take(position) if q in order),
                         key=lambda answer: answer[0])
        yield HostDocument(key, ip, tuple(addresses), tuple(sorted({f.value for f in host_facts if f.kind == MAC.name})),
                           locality, locality_reason, bool(randomised), traffic_read.of(*counts), host_facts,
                           installed, {q: StoredJson(text) for _, q, text in answers})


class _Rows:
    """A cursor of rows whose first column is a host position, read one host at a time."""

    def __init__(self, rows) -> None:
        self._rows = iter(rows)
        self._next = next(self._rows, None)

    def take(self, position: int) -> list[tuple]:
        """The rows of `position`, each with its position first; rows of earlier positions are skipped."""
        out = []
        row, rows = self._next, self._rows
        while row is not None and row[0] <= position:
            if row[0] == position:
                out.append(row)
            row = next(rows, None)
        self._next = row
        return out


def _stream(session: Session, statement) -> _Rows:
    # yield_per streams (a server-side cursor on PostgreSQL) instead of fetching every row; read
    # a batch at a time (`partitions`), not through the result's per-row fetch
    result = session.connection().execute(statement.execution_options(yield_per=2000))
    return _Rows(chain.from_iterable(result.partitions()))


def _rows(session: Session, model, capture_id: str) -> list:
    return list(session.scalars(select(model).where(model.capture_id == capture_id).order_by(model.id)))


def capture_export(session: Session, capture: Capture, registry: Registry) -> CaptureExport:
    """The capture document plus who uploaded it and every human action: the annotations in
    force and the whole audit trail."""
    head = capture_head(session, capture, CaptureRecord.of(capture))
    hosts = tuple(host_documents(session, capture.id, registry))
    human = HumanRecord(tuple(OverrideRecord.of(o) for o in _rows(session, HumanOverride, capture.id)),
                        tuple(EvidenceEntry.of(e) for e in _rows(session, ManualEvidence, capture.id)),
                        tuple(DismissalRecord.of(d) for d in _rows(session, Dismissal, capture.id)),
                        tuple(TrailEvent.of(e) for e in _rows(session, AuditEvent, capture.id)))
    return CaptureExport(**_parts(head), hosts=hosts, human=human, **_parts(capture_tail(session, capture.id)))


CSV_COLUMNS = ("capture_id", "ip", "macs", "names", "question", "primary_label", "basis", "confidence",
               "contested", "candidates", "reasons", "override_label", "override_actor",
               "override_rationale", "dismissed", "override_at", "evidence", "dismissal_reasons", "actors",
               "last_human_at")


@dataclass(frozen=True, slots=True)
class HumanRows:
    """The human record on one (question, host): its answer, evidence and dismissals."""
    overrides: tuple[OverrideRecord, ...] = ()
    evidence: tuple[EvidenceEntry, ...] = ()
    dismissals: tuple[DismissalRecord, ...] = ()

    def actors(self) -> list[str]:
        return sorted({e.actor for e in self.evidence} | {d.actor for d in self.dismissals}
                      | {o.actor for o in self.overrides})

    def last_at(self) -> str:
        """The latest time of them (ISO 8601 as the export writes it), "" if none."""
        times = [plain(e.updated_at) for e in self.evidence] + [d.created_at for d in self.dismissals] \
            + [o.updated_at for o in self.overrides]
        return max(times) if times else ""


def csv_rows(document: CaptureExport) -> Iterator[tuple]:
    """One row per (host, question) of a capture export (`capture_export`); lists joined with
    " | ". Besides the answer: the analyst evidence in force ("label (+weight) by actor at
    time: reason"), each dismissal with its reason, every actor of a human answer, evidence
    or dismissal on the row, and the time of the latest of them."""
    cid = document.capture.id
    human = _human_by_key(document.human)
    for host in document.hosts:
        names = sorted({f.value for f in host.facts if f.kind == HOSTNAME_CLAIM.name})
        for question, doc in host.answers():
            v = Verdict.from_document(doc)
            live, o = v.live, v.override
            rows = human.get((question, host.key), HumanRows())
            yield (cid, host.ip, " | ".join(host.macs), " | ".join(names), question,
                   v.primary_label or "", str(v.basis), v.confidence, str(v.contested).lower(),
                   " | ".join(f"{c.label} ({c.score})" for c in live),
                   " | ".join(live[0].reasons) if live else "",
                   o.label if o else "", o.actor if o else "", o.rationale if o else "",
                   " | ".join(v.dismissed),
                   o.at if o else "",
                   " | ".join(f"{e.label} ({e.weight:+d}) by {e.actor} at {plain(e.updated_at)}: {e.reason}"
                              for e in rows.evidence),
                   " | ".join(f"{d.label} by {d.actor} at {d.created_at}: {d.reason}" for d in rows.dismissals),
                   " | ".join(rows.actors()), rows.last_at())


def _human_by_key(human: HumanRecord) -> Mapping[tuple[str, str], HumanRows]:
    """The export's human rows (overrides, evidence, dismissals) by (question, entity_key)."""
    found: dict[tuple[str, str], dict[str, list]] = {}
    for part in ("overrides", "evidence", "dismissals"):
        for row in getattr(human, part):
            found.setdefault((row.question, row.entity_key), {}).setdefault(part, []).append(row)
    return {key: HumanRows(**{part: tuple(rows) for part, rows in parts.items()}) for key, parts in found.items()}


def wide_csv_columns(questions: list[str]) -> list[str]:
    """The wide CSV's header: the device, its traffic, then each question's answer, confidence
    and basis (registry order)."""
    return ["capture_id", "key", "ip", "addresses", "macs", "vendors", "names", "locality",
            *traffic_read.CSV_COLUMNS,
            *(f"{q}{suffix}" for q in questions for suffix in ("", "_confidence", "_basis"))]


def wide_csv_rows(document: CaptureExport | CaptureDocument, questions: list[str]) -> Iterator[list]:
    """One row per device of a capture document (`capture_export`), `wide_csv_columns`' order;
    lists joined with " | ", ports with spaces. A contested answer reads "contested"; a
    question without a verdict leaves its three cells empty."""
    cid = document.capture.id
    for host in document.hosts:
        vendors = sorted({f.value for f in host.facts if f.kind == OUI_VENDOR.name})
        names = sorted({f.value for f in host.facts if f.kind == HOSTNAME_CLAIM.name})
        t = host.traffic
        traffic = [_traffic_cell(getattr(t, column)) if t else "" for column in traffic_read.CSV_COLUMNS]
        answers = []
        for question in questions:
            doc = host.verdict(question)
            if doc is None:
                answers += ["", "", ""]
                continue
            v = Verdict.from_document(doc)
            label = "contested" if v.contested else v.primary_label or ""
            answers += [label, v.confidence, str(v.basis)]
        yield [cid, host.key, host.ip or "", " | ".join(host.addresses), " | ".join(host.macs),
               " | ".join(vendors), " | ".join(names), host.locality or "", *traffic, *answers]


def _traffic_cell(value: object) -> object:
    """A traffic value as a CSV cell: ports joined by spaces, a missing time empty."""
    if isinstance(value, (list, tuple)):
        return " ".join(value)
    return "" if value is None else value
