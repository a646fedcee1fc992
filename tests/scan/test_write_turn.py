"""Scan computes its rows outside any writing transaction and writes them in one short one
(analysis._scan): on SQLite, one writer per file, other writers get their turn while it
computes; a scan whose write fails leaves nothing half-written and the capture's previous
analysis whole; a capture deleted while it is scanned ends quietly; rows spooled to disk are
the rows written."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from tracepcap import analysis
from tracepcap.adjudicate.annotations.captures import delete_capture
from tracepcap.adjudicate.registry import get_registry
from tracepcap.adjudicate.runner import machine_answer
from tracepcap.ingest import store_file
from tracepcap.scan import CaptureContext
from tracepcap.scan import run as scan_run
from tracepcap.scan.traffic import COLUMNS, summary
from tracepcap.store import spool as spool_module
from tracepcap.store.models import Capture, Entity, EntityMember, Finding, Host, VerdictRow, VoteRow
from fake_actor import person


@pytest.fixture
def stored(db, settings, captures):
    """dns_demo.pcap stored, not analyzed; its capture id."""
    with db.session(write=True) as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "dns_demo.pcap", uploaded_by="test",
                                max_bytes=1 << 30)
        return capture.id


def _derived(db, capture_id: str) -> dict:
    """What an analysis left for the capture, comparable across analyses."""
    with db.session() as s:
        def rows(model, *columns):
            return sorted(tuple(r) for r in s.execute(select(*columns).where(model.capture_id == capture_id)))
        return {
            "votes": rows(VoteRow, VoteRow.question, VoteRow.entity_key, VoteRow.signal, VoteRow.label,
                          VoteRow.weight, VoteRow.reason),
            "verdicts": sorted((r.question, r.entity_key, str(r.document))
                               for r in s.scalars(select(VerdictRow).where(VerdictRow.capture_id == capture_id))),
            "entities": rows(Entity, Entity.key, Entity.locality, Entity.locality_reason, Entity.packets_sent,
                             Entity.peers),
            "members": rows(EntityMember, EntityMember.member, EntityMember.entity_key),
            "findings": rows(Finding, Finding.kind, Finding.summary),
            "hosts": rows(Host, Host.ip, Host.locality, Host.locality_reason),
        }


def _no_stage_left(db) -> None:
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Capture).where(Capture.status == "staging")) == 0
        assert s.scalar(select(func.count()).select_from(VoteRow).where(VoteRow.capture_id.startswith("~"))) == 0


def test_another_writer_writes_while_scan_computes(db, settings, stored, monkeypatch):
    compute = analysis.compute_scan
    wrote: list[str] = []

    def write_elsewhere():
        with db.session(write=True) as s:  # would wait for the analysis if it held the write turn
            s.add(Capture(id="b" * 16, sha256="b" * 64, name="other.pcap", size=1, format="pcap", status="done",
                          progress_bytes=0, uploaded_at=datetime.now(UTC), uploaded_by="test"))
        wrote.append("committed")

    def compute_beside_a_writer(*args, **kwargs):
        writer = threading.Thread(target=write_elsewhere)
        writer.start()
        writer.join(20)
        assert not writer.is_alive(), "a writer waited for Scan's computing"
        return compute(*args, **kwargs)

    monkeypatch.setattr(analysis, "compute_scan", compute_beside_a_writer)
    assert analysis.analyze(db, settings, stored) == "done"
    assert wrote == ["committed"]
    got = _derived(db, stored)
    assert len(got["votes"]) >= 10 and len(got["entities"]) == 5 and got["verdicts"]
    _no_stage_left(db)


def test_a_failed_scan_write_leaves_the_previous_analysis_whole(db, settings, stored, monkeypatch, caplog):
    assert analysis.analyze(db, settings, stored) == "done"
    before = _derived(db, stored)
    write = analysis.write_scan

    def write_then_fail(session, rows):
        write(session, rows)  # every row is in the transaction when it fails
        raise RuntimeError("disk full")

    monkeypatch.setattr(analysis, "write_scan", write_then_fail)
    monkeypatch.setattr(analysis, "RECORD_RETRY_SECONDS", ())
    with caplog.at_level(logging.ERROR):
        assert analysis.analyze(db, settings, stored) == "failed"
    assert _derived(db, stored) == before
    _no_stage_left(db)
    with db.session() as s:
        capture = s.get(Capture, stored)
        assert capture.status == "failed" and "RuntimeError" in capture.error


def test_a_capture_deleted_while_scan_computes_ends_quietly(db, settings, stored, monkeypatch, caplog):
    compute = analysis.compute_scan

    def compute_then_delete(*args, **kwargs):
        rows = compute(*args, **kwargs)
        with db.session(write=True) as s:
            delete_capture(s, settings.capture_dir, stored, actor=person("admin"))
        return rows

    monkeypatch.setattr(analysis, "compute_scan", compute_then_delete)
    with caplog.at_level(logging.ERROR):
        assert analysis.analyze(db, settings, stored) == analysis.DELETED
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Capture)) == 0
        assert s.scalar(select(func.count()).select_from(VoteRow)) == 0


def test_rows_spooled_to_disk_are_the_rows_written(db, settings, stored, monkeypatch):
    assert analysis.analyze(db, settings, stored) == "done"
    in_memory = _derived(db, stored)
    spools: list[spool_module.Spool] = []
    made = spool_module.Spool

    def small_spool(keys, batch=3, memory=None, hold=None):
        spools.append(made(keys, batch=batch, memory=256, hold=4))  # pickled, past memory at once
        return spools[-1]

    monkeypatch.setattr(scan_run, "Spool", small_spool)
    assert analysis.analyze(db, settings, stored) == "done"
    assert any(s.on_disk for s in spools) and sum(len(s) for s in spools) > 20
    assert _derived(db, stored) == in_memory


def test_the_entity_rows_carry_every_traffic_column(db, settings, stored):
    assert analysis.analyze(db, settings, stored) == "done"
    registry = get_registry()
    with db.session() as s:
        context = CaptureContext.load(s, stored)
    for e in context.entities:
        assert tuple(summary(context.entity(e))) == COLUMNS
    with scan_run.compute_scan(context, registry.signals(), machine_answer(registry)) as rows:
        entities = list(rows.entities.dicts())
    assert [e["key"] for e in entities] == [e.key for e in context.entities]
    assert all(set(COLUMNS) <= set(e) for e in entities)


def test_a_spool_gives_back_its_rows_in_order_held_pickled_or_on_disk():
    for hold, memory, pickled, on_disk in ((100, 64, False, False), (5, 1 << 20, True, False), (5, 64, True, True)):
        with spool_module.Spool(("a", "b"), batch=3, memory=memory, hold=hold) as spool:
            spool.extend((i, f"row {i}" * (i % 5)) for i in range(10))
            assert len(spool) == 10 and (spool.pickled, spool.on_disk) == (pickled, on_disk)
            assert list(spool.rows()) == [(i, f"row {i}" * (i % 5)) for i in range(10)]
            assert list(spool.dicts())[3] == {"a": 3, "b": "row 3" * 3}
            spool.add((10, "late"))
            assert [len(b) for b in spool.batches()] == ([3, 3, 3, 1, 1] if pickled else [3, 3, 3, 2])
            assert list(spool.rows())[-2:] == [(9, "row 9" * 4), (10, "late")]
