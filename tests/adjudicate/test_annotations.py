"""Human actions through the annotation service: validated, attributed, audited, and
re-adjudicated at once (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from fake_actor import person
from tracepcap.adjudicate import annotations as a
from tracepcap.adjudicate.contract import Basis, Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.adjudicate.runner import stored_verdict
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.errors import InvalidAnnotation, InvalidText, NotAuthor, NotFound
from tracepcap.store.models import AuditEvent

DNS = "192.168.1.1"


def key(cid, entity=DNS, question="host-identity"):
    return Key(question, cid, entity)


def test_override_then_clear_restores_the_machine_and_the_trail_keeps_both(db, capture_id):
    reg = get_registry()
    with db.session() as s:
        v = a.set_override(s, reg, key(capture_id), "Router", "gateway in the diagram", actor=person("alice"))
        assert (v.primary_label, v.basis, v.confidence, v.contested) == ("Router", Basis.HUMAN, 100, False)
        assert v.candidates[0].label == "DNS Server" and v.candidates[0].reasons
    with db.session() as s:
        v = a.clear_override(s, reg, key(capture_id), actor=person("bob"))
        assert (v.primary_label, v.basis) == ("DNS Server", Basis.MACHINE)
        events = a.trail(s, key(capture_id))
    assert [(e.action, e.actor) for e in events] == [("override.set", "alice"), ("override.cleared", "bob")]
    assert events[0].before is None and events[0].after["label"] == "Router"
    assert events[1].before["rationale"] == "gateway in the diagram" and events[1].after is None
    assert events[0].at <= events[1].at


def test_evidence_edit_and_delete_by_author_only_and_every_version_audited(db, capture_id):
    reg = get_registry()
    k = key(capture_id, "192.168.1.20")
    with db.session() as s:
        evidence, v = a.add_evidence(s, reg, k, "workstation", 40, "asset tag WS-20", actor=person("alice"))
        assert v.primary_label == "Workstation"
        assert v.candidates[0].reasons == ("[analyst-provided by alice] asset tag WS-20 (+40)",)
        eid = evidence.id
    with db.session() as s, pytest.raises(NotAuthor, match=f"evidence {eid} was added by alice"):
        a.edit_evidence(s, reg, k, eid, actor=person("mallory"), weight=90)
    with db.session() as s:
        _, v = a.edit_evidence(s, reg, k, eid, actor=person("alice"), weight=60)
        assert v.candidates[0].score == 60
    with db.session() as s, pytest.raises(NotAuthor):
        a.delete_evidence(s, reg, k, eid, actor=person("mallory"))
    with db.session() as s:
        v = a.delete_evidence(s, reg, k, eid, actor=person("alice"))
        assert v.primary_label == "Unknown"
        actions = [(e.action, (e.before or {}).get("weight"), (e.after or {}).get("weight"))
                   for e in a.trail(s, k)]
    assert actions == [("evidence.added", None, 40), ("evidence.edited", 40, 60), ("evidence.deleted", 60, None)]


def test_evidence_under_other_coordinates_is_not_found(db, capture_id):
    reg = get_registry()
    with db.session() as s:
        evidence, _ = a.add_evidence(s, reg, key(capture_id), "Router", 10, "x", actor=person("alice"))
        eid = evidence.id
    with db.session() as s, pytest.raises(NotFound, match=f"no evidence {eid} on host-identity for mac-52-54-00-bb-00-20"):
        a.delete_evidence(s, reg, key(capture_id, "192.168.1.20"), eid, actor=person("alice"))


@pytest.mark.parametrize("label, weight, reason, message", [
    ("Router", 0, "r", "evidence weight must be 1..100 (got 0)"),
    ("Router", 140, "r", "evidence weight must be 1..100 (got 140)"),
    ("Router", 50, "  ", "reason is required"),
    ("", 50, "r", "label is required"),
    ("x" * 101, 50, "r", "label must be at most 100 characters (got 101)"),
])
def test_invalid_evidence_is_rejected_not_clamped(db, capture_id, label, weight, reason, message):
    refused = (InvalidAnnotation, InvalidText)
    with db.session() as s, pytest.raises(refused, match=message.replace("(", r"\(").replace(")", r"\)")):
        a.add_evidence(s, get_registry(), key(capture_id), label, weight, reason, actor=person("alice"))
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(AuditEvent)) == 0


def test_unknown_question_capture_or_entity(db, capture_id):
    reg = get_registry()
    with db.session() as s:
        with pytest.raises(NotFound, match="unknown question 'os-familee'; known questions: host-identity, hostname"):
            a.set_override(s, reg, key(capture_id, question="os-familee"), "x", "y", actor=person("a"))
        with pytest.raises(NotFound, match="no capture 'deadbeef'"):
            a.set_override(s, reg, Key("host-identity", "deadbeef", DNS), "x", "y", actor=person("a"))
        with pytest.raises(NotFound, match=f"no host or device '10.9.9.9' in capture {capture_id}"):
            a.set_override(s, reg, key(capture_id, "10.9.9.9"), "x", "y", actor=person("a"))


def test_dismissal_removes_a_label_from_the_race(db, capture_id):
    reg = get_registry()
    with db.session() as s:
        v = a.dismiss(s, reg, key(capture_id), "dns server", "it only forwards", actor=person("carol"))
        assert v.primary_label == "Router" and v.dismissed == ("DNS Server",)  # the vocabulary form
        assert v.candidates[-1].dismissed.by == "carol"
    with db.session() as s:
        v = a.undismiss(s, reg, key(capture_id), "DNS Server", actor=person("carol"))
        assert v.primary_label == "DNS Server" and v.dismissed == ()
        assert [e.action for e in a.trail(s, key(capture_id))] == ["dismissal.added", "dismissal.removed"]


def test_the_audit_log_only_grows(db, capture_id):
    reg = get_registry()
    counts = []
    steps = [lambda s: a.set_override(s, reg, key(capture_id), "Router", "r", actor=person("a")),
             lambda s: a.set_override(s, reg, key(capture_id), "Firewall", "r2", actor=person("b")),
             lambda s: a.clear_override(s, reg, key(capture_id), actor=person("a")),
             lambda s: a.add_evidence(s, reg, key(capture_id), "Router", 5, "r", actor=person("a")),
             lambda s: a.dismiss(s, reg, key(capture_id), "Router", "no", actor=person("a"))]
    for step in steps:
        with db.session() as s:
            step(s)
            counts.append(s.scalar(select(func.count()).select_from(AuditEvent)))
    assert counts == [1, 2, 3, 4, 5]
    with db.session() as s:
        first = s.scalars(select(AuditEvent).order_by(AuditEvent.id)).all()[0]
        assert (first.action, first.after["label"], first.actor) == ("override.set", "Router", "a")


def test_reanalysis_keeps_human_answers(db, settings, capture_id):
    with db.session() as s:
        a.set_override(s, get_registry(), key(capture_id), "Router", "gateway", actor=person("alice"))
    assert analyze(db, settings, capture_id) == "done"
    from tracepcap.adjudicate.runner import stored_verdict
    with db.session() as s:
        v = stored_verdict(s, key(capture_id))
    assert (v.primary_label, v.basis, v.override.actor) == ("Router", "HUMAN", "alice")


@pytest.fixture
def apple_host(db, settings, captures):
    """signal.pcap: 192.168.2.17 sends Apple-stack SYNs and nothing says Mac or iPhone."""
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "signal.pcap", uploaded_by="system",
                                max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    return key(cid, "192.168.2.17", "os-family")


def test_a_parent_level_answer_is_accepted_like_any_other(db, apple_host):
    reg = get_registry()
    with db.session() as s:
        assert stored_verdict(s, apple_host).parent_of == ("iOS", "macOS")
        v = a.accept(s, reg, apple_host, actor=person("alice"))
        assert (v.primary_label, v.basis, v.override.rationale, v.parent_of) == (
            "Apple", Basis.HUMAN, a.ACCEPTED, ())


def test_a_parent_level_answer_narrows_to_one_of_its_children_only(db, apple_host):
    reg = get_registry()
    with db.session() as s:
        with pytest.raises(InvalidAnnotation, match="'Windows' is not one of the contested candidates"):
            a.resolve(s, reg, apple_host, "Windows", actor=person("alice"))
        v = a.resolve(s, reg, apple_host, "macOS", actor=person("alice"))
        assert (v.primary_label, v.basis, v.override.rationale) == (
            "macOS", Basis.HUMAN, "chose macOS within Apple, which the evidence did not tell apart")


def test_an_os_override_does_not_move_the_device_type_built_on_the_machine_os(db, capture_id):
    """Cross-question inputs read machine answers only (docs/ARCHITECTURE.md): a human's
    os-family answer stands in its own question; host-identity keeps its stored votes."""
    reg = get_registry()
    with db.session() as s:
        before = stored_verdict(s, key(capture_id))
        a.set_override(s, reg, key(capture_id, question="os-family"), "Windows", "asset register",
                       actor=person("alice"))
        after = stored_verdict(s, key(capture_id))
    assert after == before
