"""Scan's entry point: run every question's signals on every host of a capture and store the
votes. Reads facts only, never the capture. One signal failing on one host is logged and
reported; the others still vote.

Computing and writing are two steps (`compute_scan`, `write_scan`): the conductor computes
from facts it read in a reading transaction and takes its writing turn only to write the rows,
so that on SQLite (one writer per file) other analyses write meanwhile."""

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
from ..store.spool import Spool
from .context import Answer, CaptureContext, forget_addresses
from .entities import claim_holder, claim_of
from .findings import discover as discover_findings
from .knowledge import knowledge
from .locality import localities
from .signals import Signal, inputs_of, reads_of, signal_name
from .traffic import COLUMNS as TRAFFIC_COLUMNS
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

VOTE_KEYS = ("capture_id", "question", "entity_key", "signal", "label", "weight", "reason", "grade", "frames")
ENTITY_KEYS = ("capture_id", "key", "position", "ip", "addresses", "macs", "locality", "locality_reason",
               "randomised", *TRAFFIC_COLUMNS)
MEMBER_KEYS = ("capture_id", "member", "entity_key")
LOCALITY_KEYS = ("host_capture", "host_ip", "host_locality", "host_locality_reason")
MOVE_KEYS = ("move_capture", "move_from", "move_to", "move_kind", "move_value", "move_source")


@dataclass(slots=True)
class ScanRows:
    """Everything one scan writes, made from the facts it read (`compute_scan`) and kept until
    its writing transaction (`write_scan`): the large parts in spools (store/spool.py), a
    batch of tuples at a time, never all in memory as Python objects on a many-host capture."""

    capture_id: str
    questions: tuple[str, ...]  # whose votes it replaces
    report: ScanReport
    votes: Spool
    findings: list[dict]
    entities: Spool
    members: Spool
    localities: Spool  # each host row's locality: its entity's
    returns: list[tuple[str, str]]  # (claim holder, its address): what an earlier scan moved goes back
    moves: Spool  # the facts a claimant's MAC left on another device's address, to its claim holder

    def close(self) -> None:
        for spool in (self.votes, self.entities, self.members, self.localities, self.moves):
            spool.close()

    def __enter__(self) -> ScanRows:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def scan_capture(session: Session, capture_id: str, signals: Mapping[str, tuple[Signal, ...]],
                 context: CaptureContext | None = None, answer: Answerer | None = None) -> ScanReport:
    """Replace the capture's votes for the given questions, taken in the mapping's order
    (Registry.signals() puts a question's inputs first). With `answer`, each question some
    signal declares as an input is answered per host from its votes as they are made, into
    `context.answers`, for the signals of the questions after it. In one unit of work: the
    conductor (analysis.py) reads and computes outside its writing one (`compute_scan`), then
    writes (`write_scan`)."""
    knowledge()
    context = context or CaptureContext.load(session, capture_id)
    with compute_scan(context, signals, answer) as rows:
        return write_scan(session, rows)


def compute_scan(context: CaptureContext, signals: Mapping[str, tuple[Signal, ...]],
                 answer: Answerer | None = None) -> ScanRows:
    """Every row Scan writes for `context`'s capture, computed from its facts alone (no
    session: the caller's reading one may have ended); the caller closes them (`with`)."""
    knowledge()  # an operator's unusable knowledge file stops here, once, naming the file
    cid = context.capture_id
    report = ScanReport()
    rows = ScanRows(cid, tuple(signals), report, Spool(VOTE_KEYS), [], Spool(ENTITY_KEYS), Spool(MEMBER_KEYS),
                    Spool(LOCALITY_KEYS), [], Spool(MOVE_KEYS))
    try:
        # in batches as they are made: a many-host capture's votes are never all in memory at once
        rows.votes.extend(_votes(context, signals, report, answer))
        rows.findings = _find(context, report)
        _entities(context, rows)
        _claims(context, rows)
    except BaseException:
        rows.close()
        raise
    finally:
        forget_addresses()
    return rows


def write_scan(session: Session, rows: ScanRows) -> ScanReport:
    """Write what `compute_scan` made, in the caller's (writing) transaction: the capture's
    votes for its questions, findings, entities, their members, each host row's locality and
    the claims' facts are replaced. Its report, with the counts written."""
    cid, report = rows.capture_id, rows.report
    for question in rows.questions:
        session.execute(delete(VoteRow).where(VoteRow.capture_id == cid, VoteRow.question == question))
    report.votes = rows.votes.insert_into(session, VoteRow)
    session.execute(delete(FindingRow).where(FindingRow.capture_id == cid))
    report.findings = insert_rows(session, FindingRow, rows.findings)
    session.execute(delete(EntityRow).where(EntityRow.capture_id == cid))
    session.execute(delete(EntityMember).where(EntityMember.capture_id == cid))
    rows.entities.insert_into(session, EntityRow)
    rows.members.insert_into(session, EntityMember)
    for holder, address in rows.returns:
        session.execute(update(OBSERVATION).where(OBSERVATION.c.capture_id == cid,
                                                  OBSERVATION.c.entity == holder).values(entity=address))
    for batch in rows.moves.batches():
        session.connection().execute(MOVE_FACT, [dict(zip(MOVE_KEYS, row, strict=True)) for row in batch])
    for batch in rows.localities.batches():
        session.connection().execute(SET_LOCALITY, [dict(zip(LOCALITY_KEYS, row, strict=True)) for row in batch])
    return report


# host rows updated per executemany (a spool's batch: a many-host capture's reasons never all in
# memory), through the connection, not the ORM's bulk update (which costs several times more per row)
SET_LOCALITY = (update(Host.__table__)
                .where(Host.__table__.c.capture_id == bindparam("host_capture"),
                       Host.__table__.c.ip == bindparam("host_ip"))
                .values(locality=bindparam("host_locality"), locality_reason=bindparam("host_locality_reason")))


def _entities(context: CaptureContext, rows: ScanRows) -> None:
    """The capture's entities (scan/entities.py) with their localities and reasons, what names
    each (entity_member), and each host row's locality: its entity's."""
    cid = context.capture_id
    found = {f.ip: f for f in localities(context)}
    for e in context.entities:
        where = found[e.key]
        traffic = traffic_summary(context.entity(e))
        rows.entities.add((cid, e.key, e.position, e.ip, list(e.addresses), list(e.macs), where.label, where.reason,
                           e.randomised, *(traffic[column] for column in TRAFFIC_COLUMNS)))
    rows.members.extend((cid, m, e.key) for e in context.entities
                        for m in dict.fromkeys((e.key, *e.members, *context.claim_members(e))))
    rows.localities.extend((cid, ip, found[e.key].label, found[e.key].reason)
                           for e in context.entities for ip in e.addresses)


OBSERVATION = cast(Table, ObservationRow.__table__)
MOVE_FACT = (update(OBSERVATION)
             .where(OBSERVATION.c.capture_id == bindparam("move_capture"), OBSERVATION.c.entity == bindparam("move_from"),
                    OBSERVATION.c.kind == bindparam("move_kind"), OBSERVATION.c.value == bindparam("move_value"),
                    OBSERVATION.c.source == bindparam("move_source"))
             .values(entity=bindparam("move_to")))


def _claims(context: CaptureContext, rows: ScanRows) -> None:
    """Spoofing keeps two devices: the facts a claimant's MAC left on another device's address
    (CaptureContext.claims) move to their claim holder, a member of the claimant's device, so
    that the victim's document never lists the claimant's MAC or vendor. What an earlier scan
    moved goes back to its address first: this scan decides the claims again."""
    cid = context.capture_id
    for holder in context.loaded_claims:
        found = claim_of(holder)
        if found is not None:
            rows.returns.append((holder, found[0]))
    rows.moves.extend((cid, ip, claim_holder(ip, mac), f.kind, f.value, f.source)
                      for ip, by_mac in sorted(context.claims.items()) for mac, facts in sorted(by_mac.items())
                      for f in facts
                      if f.kind != TTL.name)  # an address's TTLs are counts of all its frames: they stay on it


def _votes(context: CaptureContext, signals: Mapping[str, tuple[Signal, ...]],
           report: ScanReport, answer: Answerer | None = None) -> Iterator[tuple]:
    wanted = {q for question_signals in signals.values() for s in question_signals for q in inputs_of(s)}
    kinds_held: dict[str, frozenset[str]] = {}  # entity key -> the kinds of fact it holds
    for question, question_signals in signals.items():
        named = [(signal, signal_name(signal), reads_of(signal)) for signal in question_signals]
        # the signals run for a host holding these kinds: a many-host capture's hosts hold a few
        # sets of kinds, each worked out once, not each signal's READS checked on every host
        to_run: dict[frozenset[str], list[tuple[Signal, str]]] = {}
        answers = context.answers.setdefault(question, {}) if answer and question in wanted else None
        for device in context.entities:  # entity by entity: an input question's answer needs all its votes
            host = context.entity(device)
            kinds = kinds_held.get(device.key)
            if kinds is None:
                kinds = kinds_held[device.key] = frozenset(host.kinds)
            running = to_run.get(kinds)
            if running is None:  # a signal votes only from the kinds of its READS: not run without them
                running = to_run[kinds] = [(signal, name) for signal, name, reads in named
                                           if not reads or not reads.isdisjoint(kinds)]
            made: list[Vote] = []
            for signal, name in running:
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


def _find(context: CaptureContext, report: ScanReport) -> list[dict]:
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
    return rows


def _row(capture_id: str, question: str, entity: str, signal: str, vote: Vote) -> tuple:
    if not normalize_label(vote.label):
        raise ValueError(f"signal {signal} voted without a label on {entity}")
    return (capture_id, question, entity, signal, vote.label, int(vote.weight), vote.reason, vote.grade,
            list(vote.frames))
