"""The annotation service on who acts and what it accepts, for every caller (API, web, CLI):
authorship by subject, refusals counted within a window, texts and ids held to their ranges
(SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from fake_actor import person
from sqlalchemy import create_engine, func, select, text

from tracepcap.adjudicate import annotations as a
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.ledger import audit
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.errors import InvalidText, NotAuthor, NotFound
from tracepcap.ingest import store_file
from tracepcap.store.db import alembic_config
from tracepcap.store.models import AccessDenial, AuditEvent, ManualEvidence

DNS = "192.168.1.1"


@pytest.fixture
def key(db, settings, captures) -> Key:
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "dns_demo.pcap", uploaded_by="system",
                                max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    return Key("host-identity", cid, DNS)


def test_only_the_authors_subject_may_change_evidence(db, key):
    reg = get_registry()
    with db.session() as s:
        eid = a.add_evidence(s, reg, key, "Router", 30, "rack label", actor=person("alice"))[0].id
    for other in (person("alice", sub="another-alice"), person("system"), SYSTEM_ACTOR):
        with db.session() as s, pytest.raises(NotAuthor, match=f"evidence {eid} was added by alice"):
            a.delete_evidence(s, reg, key, eid, actor=other)
    with db.session() as s:  # renamed, same subject
        evidence, _ = a.edit_evidence(s, reg, key, eid, actor=person("alice.smith", sub="sub-alice"), weight=31)
        assert (evidence.weight, evidence.actor_subject) == (31, person("alice").subject)
        subjects = s.scalars(select(AuditEvent.actor_subject).order_by(AuditEvent.id)).all()
    assert subjects == [person("alice").subject] * 2


def test_refusals_are_recorded_once_a_window_and_the_next_event_counts_the_rest(db, monkeypatch):
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    clock = [start]
    monkeypatch.setattr(audit, "utc_now", lambda: clock[0])
    victor, route = person("victor", roles=("viewer",)), "/api/captures/{cid}"

    def refuse(method: str = "DELETE", who=victor) -> AuditEvent | None:
        with db.session() as s:
            return a.record_refusal(s, who, method, route, after={"method": method})

    assert refuse().after == {"method": "DELETE", "unrecorded_before": 0}
    for seconds in (1, 30, 59):
        clock[0] = start + timedelta(seconds=seconds)
        assert refuse() is None
    assert refuse("PUT") is not None and refuse(who=person("victor", sub="other")) is not None  # other keys
    clock[0] = start + audit.REFUSAL_WINDOW
    assert refuse().after["unrecorded_before"] == 3
    assert refuse() is None
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(AuditEvent)) == 4
        assert s.get(AccessDenial, (victor.subject, "DELETE", route)).unrecorded == 1


@pytest.mark.parametrize("label, reason, rule", [
    ("Rou\x00ter", "r", "label must not contain control characters (got U+0000 at character 4 of 7)"),
    ("Router", "r\x07", "reason must not contain control characters"),
    ("Router", "r" * 4001, "reason must be at most 4000 characters (got 4001)"),
])
def test_service_texts_are_held_to_the_rule(db, key, label, reason, rule):
    with db.session() as s, pytest.raises(InvalidText, match=re.escape(rule)):
        a.add_evidence(s, get_registry(), key, label, 10, reason, actor=person("alice"))
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(ManualEvidence)) == 0


@pytest.mark.parametrize("evidence_id", [0, 2**31, 2**63, 2**80])
def test_evidence_ids_outside_the_column_name_nothing(db, key, evidence_id):
    with db.session() as s, pytest.raises(NotFound, match=f"no evidence {evidence_id}"):
        a.delete_evidence(s, get_registry(), key, evidence_id, actor=person("alice"))


def test_rows_from_before_subjects_get_one_no_token_can_claim(db_url):
    """Migration 0004: the system's rows keep the system's subject; a person's get
    "name:{actor}", which no "{iss}#{sub}" equals."""
    engine = create_engine(db_url)
    cfg = alembic_config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "0003")
        connection.execute(text("INSERT INTO capture (id, sha256, name, size, format, status, progress_bytes, "
                                "uploaded_at, uploaded_by) VALUES ('c1', :sha, 'n', 1, 'pcap', 'done', 0, "
                                ":at, 'system')"), {"sha": "c1" * 32, "at": datetime.now(UTC)})
        for actor in ("system", "alice"):
            connection.execute(text("INSERT INTO manual_evidence (question, capture_id, entity_key, label, weight, "
                                    "reason, actor, created_at, updated_at) VALUES ('host-identity', 'c1', "
                                    "'10.0.0.1', 'Router', 5, 'r', :actor, :at, :at)"),
                               {"actor": actor, "at": datetime.now(UTC)})
            connection.execute(text("INSERT INTO audit_event (at, actor, action) VALUES (:at, :actor, 'x')"),
                               {"actor": actor, "at": datetime.now(UTC)})
        command.upgrade(cfg, "head")
        for table in ("manual_evidence", "audit_event"):
            assert sorted(connection.execute(text(f"SELECT actor, actor_subject FROM {table}")).all()) == [
                ("alice", "name:alice"), ("system", "system")]
    engine.dispose()
