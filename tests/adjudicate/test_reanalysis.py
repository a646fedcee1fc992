"""Re-analysis swaps its results in at once (SQLite and PostgreSQL): while a capture is
re-analysed its hosts stay, human writes on them succeed, and a human answer written while the
verdicts are being recomputed is in the verdict stored at the end, never overwritten."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from tracepcap.adjudicate import annotations as a
from tracepcap.adjudicate import runner
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.errors import NotFound
from tracepcap.extract import persist
from tracepcap.ingest import find_capture
from tracepcap.present.read.captures import list_captures
from tracepcap.store.models import AuditEvent, Capture, Host, VerdictRow
from fake_actor import person

DNS = "192.168.1.1"  # dns_demo.pcap's DNS server
DNS_DEVICE = "mac-52-54-00-aa-00-01"  # its entity: the device owning its MAC (issue 11)


def _stored(db, cid: str, question: str = "host-identity") -> dict:
    with db.session() as s:
        return s.get(VerdictRow, (cid, question, DNS_DEVICE)).document


def test_hosts_stay_and_writes_succeed_while_the_capture_is_re_extracted(db, settings, capture_id, monkeypatch):
    registry = get_registry()
    with db.session() as s:
        hosts_before = s.scalars(select(Host.ip).where(Host.capture_id == capture_id).order_by(Host.ip)).all()
    seen = {}
    walk = persist.extract

    def extract_after_a_human_acts(*args, **kwargs):
        with db.session() as s:  # mid-analysis: what a reader and a writer find
            seen["hosts"] = s.scalars(select(Host.ip).where(Host.capture_id == capture_id).order_by(Host.ip)).all()
            seen["listed"] = [c.id for c in list_captures(s)]
            stage = s.scalar(select(Capture.id).where(Capture.id != capture_id))
            with pytest.raises(NotFound):
                find_capture(s, stage)
            a.set_override(s, registry, Key("host-identity", capture_id, DNS), "Printer", "seen its web page",
                           actor=person("alice"))
        return walk(*args, **kwargs)

    monkeypatch.setattr(persist, "extract", extract_after_a_human_acts)
    assert analyze(db, settings, capture_id, registry) == "done"
    assert seen == {"hosts": hosts_before, "listed": [capture_id]}
    verdict = _stored(db, capture_id)
    assert verdict["primary_label"] == "Printer" and verdict["basis"] == "HUMAN"
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Capture)) == 1  # the staging capture is gone
        after = s.scalars(select(Host.ip).where(Host.capture_id == capture_id).order_by(Host.ip)).all()
    assert after == hosts_before


def test_an_override_written_during_re_adjudication_is_in_the_final_verdict(db, settings, capture_id, monkeypatch):
    registry = get_registry()
    analysis_thread = threading.current_thread()
    read_annotations = runner._annotations
    writer_errors: list[BaseException] = []
    writers: list[threading.Thread] = []

    def override_now():
        try:
            with db.session() as s:
                a.set_override(s, registry, Key("host-identity", capture_id, DNS), "Printer", "seen its web page",
                               actor=person("alice"))
        except BaseException as err:  # reported below, not lost in the thread
            writer_errors.append(err)

    def annotations_then_a_human_writes(session, adj, *args, **kwargs):
        notes = read_annotations(session, adj, *args, **kwargs)
        if threading.current_thread() is analysis_thread and adj.question == "host-identity" and not writers:
            writers.append(threading.Thread(target=override_now))
            writers[0].start()
            writers[0].join(1.0)  # the write lands now, or (held off by the analysis) after it
        return notes

    monkeypatch.setattr(runner, "_annotations", annotations_then_a_human_writes)
    assert analyze(db, settings, capture_id, registry) == "done"
    writers[0].join(60)
    assert not writer_errors and not writers[0].is_alive(), writer_errors
    verdict = _stored(db, capture_id)
    assert (verdict["primary_label"], verdict["basis"], verdict["override"]["actor"]) == ("Printer", "HUMAN", "alice")
    with db.session() as s:
        actions = s.scalars(select(AuditEvent.action).where(AuditEvent.capture_id == capture_id)).all()
    assert actions == ["override.set"]


def test_a_capture_deleted_during_its_analysis_leaves_nothing_staged(db, settings, capture_id, monkeypatch):
    walk = persist.extract

    def extract_after_the_capture_is_deleted(*args, **kwargs):
        with db.session() as s:
            a.delete_capture(s, settings.capture_dir, capture_id, actor=person("admin"))
        return walk(*args, **kwargs)

    monkeypatch.setattr(persist, "extract", extract_after_the_capture_is_deleted)
    status = analyze(db, settings, capture_id)
    assert status == "deleted"
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Capture)) == 0
        assert s.scalar(select(func.count()).select_from(Host)) == 0


def test_two_analyses_of_one_capture_at_once_both_finish(db, settings, capture_id, monkeypatch):
    walk = persist.extract
    inner: list[str] = []

    def extract_while_another_analysis_runs(*args, **kwargs):
        if not inner:  # the CLI analyses the same file while the server's worker is at it
            inner.append("running")
            inner.append(analyze(db, settings, capture_id))
        return walk(*args, **kwargs)

    monkeypatch.setattr(persist, "extract", extract_while_another_analysis_runs)
    assert analyze(db, settings, capture_id) == "done" and inner == ["running", "done"]
    with db.session() as s:
        assert s.scalars(select(Capture.id)).all() == [capture_id]  # no staging capture left
        assert s.scalar(select(func.count()).select_from(Host).where(Host.capture_id == capture_id)) == 5
