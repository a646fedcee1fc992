"""Scan's entry point: run every question's signals on every host of a capture and store the
votes. Reads facts only, never the capture. One signal failing on one host is logged and
reported; the others still vote."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import cast

from sqlalchemy import Table, bindparam, delete, update
from sqlalchemy.orm import Session

from ..extract.kinds import TTL
from ..store.bulk import insert_rows
from ..store.models import Entity as EntityRow
from ..store.models import EntityMember, Host, ObservationRow, VoteRow
from ..store.models import Finding as FindingRow
from .context import Answer, CaptureContext
from .entities import claim_holder, claim_of
from .findings import discover as discover_findings
from .knowledge import knowledge
from .locality import localities
from .signals import Signal, inputs_of, reads_of, signal_name
from .traffic import summary as traffic_summary
from .vote import Vote, normalize_label

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ScanReport:
    votes: int = 0
    failures: dict[str, str] = field(default_factory=dict)  # "question/signal" -> first error
    findings: int = 0


#: (question, entity, its votes) -> that question's machine answer (adjudicate.runner.machine_answer)
Answerer = Callable[[str, str, list[Vote]], Answer]


def scan_capture(session: Session, capture_id: str, signals: Mapping[str, tuple[Signal, ...]],
                 context: CaptureContext | None = None, answer: Answerer | None = None) -> ScanReport:
    """Replace the capture's votes for the given questions, taken in the mapping's order
    (Registry.signals() puts a question's inputs first). With `answer`, each question some
    signal declares as an input is answered per host from its votes as they are made, into
    `context.answers`, for the signals of the questions after it."""
    knowledge()  # an operator's unusable knowledge file stops here, once, naming the file
    context = context or CaptureContext.load(session, capture_id)
    report = ScanReport()
    for question in signals:
        session.execute(delete(VoteRow).where(VoteRow.capture_id == capture_id,
                                              VoteRow.question == question))
    # votes go to the store in batches as they are made: a many-host capture's votes are
    # never all in memory at once
    report.votes = insert_rows(session, VoteRow, _votes(context, signals, report, answer))
    report.findings = _find(session, context, report)
    _store_entities(session, context)
    return report


LOCALITY_BATCH = 5000  # host rows updated per executemany: a many-host capture's reasons never all in memory
# through the connection, not the ORM's bulk update (which costs several times more per row)
SET_LOCALITY = (update(Host.__table__)
                .where(Host.__table__.c.capture_id == bindparam("host_capture"),
                       Host.__table__.c.ip == bindparam("host_ip"))
                .values(locality=bindparam("host_locality"), locality_reason=bindparam("host_locality_reason")))


def _store_entities(session: Session, context: CaptureContext) -> None:
    """The capture's entities (scan/entities.py) with their localities and reasons, what names
    each (entity_member), and each host row's locality: its entity's."""
    cid = context.capture_id
    session.execute(delete(EntityRow).where(EntityRow.capture_id == cid))
    session.execute(delete(EntityMember).where(EntityMember.capture_id == cid))
    found = {f.ip: f for f in localities(context)}

    def entity_rows() -> Iterator[dict]:
        for e in context.entities:
            where = found[e.key]
            yield {"capture_id": cid, "key": e.key, "position": e.position, "ip": e.ip,
                   "addresses": list(e.addresses), "macs": list(e.macs), "locality": where.label,
                   "locality_reason": where.reason, "randomised": e.randomised,
                   **traffic_summary(context.entity(e))}
    insert_rows(session, EntityRow, entity_rows())
    insert_rows(session, EntityMember, ({"capture_id": cid, "member": m, "entity_key": e.key}
                                        for e in context.entities
                                        for m in dict.fromkeys((e.key, *e.members, *context.claim_members(e)))))
    _store_claims(session, context)
    rows: list[dict] = []
    for e in context.entities:
        for ip in e.addresses:
            rows.append({"host_capture": cid, "host_ip": ip, "host_locality": found[e.key].label,
                         "host_locality_reason": found[e.key].reason})
            if len(rows) >= LOCALITY_BATCH:
                session.connection().execute(SET_LOCALITY, rows)
                rows.clear()
    if rows:
        session.connection().execute(SET_LOCALITY, rows)


OBSERVATION = cast(Table, ObservationRow.__table__)
MOVE_FACT = (update(OBSERVATION)
             .where(OBSERVATION.c.capture_id == bindparam("move_capture"), OBSERVATION.c.entity == bindparam("move_from"),
                    OBSERVATION.c.kind == bindparam("move_kind"), OBSERVATION.c.value == bindparam("move_value"),
                    OBSERVATION.c.source == bindparam("move_source"))
             .values(entity=bindparam("move_to")))


def _store_claims(session: Session, context: CaptureContext) -> None:
    """Spoofing keeps two devices: the facts a claimant's MAC left on another device's address
    (CaptureContext.claims) move to their claim holder, a member of the claimant's device, so
    that the victim's document never lists the claimant's MAC or vendor. What an earlier scan
    moved goes back to its address first: this scan decides the claims again."""
    cid = context.capture_id
    for holder in context.loaded_claims:
        found = claim_of(holder)
        if found is not None:
            session.execute(update(OBSERVATION).where(OBSERVATION.c.capture_id == cid,
                                                      OBSERVATION.c.entity == holder).values(entity=found[0]))
    rows = [{"move_capture": cid, "move_from": ip, "move_to": claim_holder(ip, mac), "move_kind": f.kind,
             "move_value": f.value, "move_source": f.source}
            for ip, by_mac in sorted(context.claims.items()) for mac, facts in sorted(by_mac.items()) for f in facts
            if f.kind != TTL.name]  # an address's TTLs are counts of all its frames: they stay on it
    if rows:
        session.connection().execute(MOVE_FACT, rows)


def _votes(context: CaptureContext, signals: Mapping[str, tuple[Signal, ...]],
           report: ScanReport, answer: Answerer | None = None) -> Iterator[dict]:
    wanted = {q for question_signals in signals.values() for s in question_signals for q in inputs_of(s)}
    for question, question_signals in signals.items():
        named = [(signal, signal_name(signal), reads_of(signal)) for signal in question_signals]
        answers = context.answers.setdefault(question, {}) if answer and question in wanted else None
        for device in context.entities:  # entity by entity: an input question's answer needs all its votes
            host = context.entity(device)
            kinds = host.kinds
            made: list[Vote] = []
            for signal, name, reads in named:
                if reads and reads.isdisjoint(kinds):
                    continue  # it votes only from kinds this host has none of
                try:
                    votes = list(signal(host))
                except Exception as err:  # noqa: BLE001 - named boundary: one signal, one entity
                    key = f"{question}/{name}"
                    if key not in report.failures:
                        log.exception("signal %s failed on %s", key, device.key)
                        report.failures[key] = f"{device.key}: {type(err).__name__}: {err}"
                    continue
                for vote in votes:
                    if answers is not None:
                        made.append(vote.signed(name))
                    yield _row(context.capture_id, question, device.key, name, vote)
            if answers is not None:
                answers[device.key] = answer(question, device.key, made)


def _find(session: Session, context: CaptureContext, report: ScanReport) -> int:
    session.execute(delete(FindingRow).where(FindingRow.capture_id == context.capture_id))
    rows = []
    for finder in discover_findings():
        try:
            found = list(finder(context))
        except Exception as err:  # noqa: BLE001 - named boundary: one finder
            log.exception("finder %s failed", finder.__module__)
            report.failures[f"findings/{finder.__module__.rsplit('.', 1)[-1]}"] = f"{type(err).__name__}: {err}"
            continue
        # finders speak of addresses; a finding links the entities that hold them
        rows += [{"capture_id": context.capture_id, "kind": f.kind, "severity": f.severity,
                  "entities": list(dict.fromkeys(context.entity_of.get(e, e) for e in f.entities)),
                  "summary": f.summary, "frames": list(f.frames)}
                 for f in found]
    return insert_rows(session, FindingRow, rows)


def _row(capture_id: str, question: str, entity: str, signal: str, vote: Vote) -> dict:
    if not normalize_label(vote.label):
        raise ValueError(f"signal {signal} voted without a label on {entity}")
    return {"capture_id": capture_id, "question": question, "entity_key": entity, "signal": signal,
            "label": vote.label, "weight": int(vote.weight), "reason": vote.reason,
            "grade": vote.grade, "frames": list(vote.frames)}
