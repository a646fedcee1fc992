"""The read layer of the capture page's findings banner, the host table's finding marker, the
audit log and the CSV rows (SQLite and PostgreSQL), on a synthetic capture whose findings are
known: an ARP spoofer and forty CDN names served by certificate from two servers each."""

from __future__ import annotations

import pytest
from fake_actor import person

from tracepcap.adjudicate import annotations as a
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import find_capture, store_file
from tracepcap.present.read.audit import AuditChoices, AuditFilter, audit_choices, audit_page
from tracepcap.present.read.captures import entity_findings, findings, findings_of, findings_overview
from tracepcap.present.read.document import CSV_COLUMNS, capture_export, csv_rows
from tracepcap.keys import mac_key
from tracepcap.present.read.hosts import HostFilter, host_page
from tracepcap.testing import findings as shapes

GATEWAY, SPOOFER = shapes.GATEWAY[0], shapes.SPOOFER[0]  # addresses: annotations resolve them to the devices
# findings, markers and rows name the on-link devices by their keys (issue 11)
GATEWAY_KEY, SPOOFER_KEY, VICTIM_KEY = (mac_key(h[1]) for h in (shapes.GATEWAY, shapes.SPOOFER, shapes.VICTIM))


@pytest.fixture
def capture_id(db, settings, tmp_path):
    path = shapes.build(tmp_path / "findings.pcap", shared_names=40)
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="system", max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    return cid


def test_the_banner_counts_by_severity_and_lists_the_high_ones(db, capture_id):
    with db.session() as s:
        found = findings(s, capture_id)
    overview = findings_overview(found)
    # the forty shared CDN names are one low line, not forty; the spoofer's DNS answers as the
    # gateway are a second high one
    assert overview.counts == {"high": 2, "medium": 1, "low": 1} and overview.total == 4
    assert list(overview.counts) == ["high", "medium", "low"]
    assert {high.kind: high.entities for high in overview.high} == {
        "ip-mac-conflict": (GATEWAY_KEY, SPOOFER_KEY), "dns-spoofing": (GATEWAY_KEY, SPOOFER_KEY)}
    shared = next(f for f in found if f.kind == "name-shared")
    assert shared.severity == "low" and len(shared.entities) == 80
    assert shared.summary.startswith("40 names are served by certificate from several hosts each")


def test_victim_and_spoofer_are_both_marked_and_filtered(db, capture_id):
    registry = get_registry()
    with db.session() as s:
        found = findings(s, capture_id)
        flagged = entity_findings(found)
        assert flagged[GATEWAY_KEY] == flagged[SPOOFER_KEY] == "high"  # the highest of their findings
        assert flagged["198.51.100.1"] == "low"
        assert VICTIM_KEY not in flagged  # the spoofer's target is named by no finding
        assert [f.severity for f in findings_of(found, SPOOFER_KEY)] == ["high", "high", "medium"]
        page = host_page(s, registry, capture_id, HostFilter(mark="finding"), offset=0, limit=500)
        assert page.total == len(flagged) and {r.key for r in page.rows} == set(flagged)
        rows = {r.key: r for r in host_page(s, registry, capture_id, HostFilter(), offset=0, limit=500).rows}
        assert rows[SPOOFER_KEY].finding == "high" and rows[VICTIM_KEY].finding is None


def test_the_audit_log_filters_by_actor_action_and_question_newest_first(db, capture_id):
    registry = get_registry()
    identity, os_family = Key("host-identity", capture_id, SPOOFER), Key("os-family", capture_id, SPOOFER)
    with db.session(write=True) as s:
        a.set_override(s, registry, identity, "Workstation", "the analyst's laptop", actor=person("alice"))
        a.add_evidence(s, registry, os_family, "Linux", 30, "a Raspberry Pi", actor=person("bob"))
        a.dismiss(s, registry, identity, "Router", "it forwards only while spoofing", actor=person("bob"))
    with db.session() as s:
        events = audit_page(s, capture_id, AuditFilter(), offset=0, limit=10)
        assert events.total == 3 and [e.action for e in events] == ["dismissal.added", "evidence.added", "override.set"]
        assert events.items[0].change == "dismissed “Router”: it forwards only while spoofing"
        assert events.items[0].actor == "bob" and events.items[0].actor_subject.endswith("#sub-bob")
        assert audit_page(s, capture_id, AuditFilter(actor="bob"), offset=0, limit=10).total == 2
        assert [e.action for e in audit_page(s, capture_id, AuditFilter(question="host-identity"),
                                             offset=0, limit=10)] == ["dismissal.added", "override.set"]
        assert audit_page(s, capture_id, AuditFilter("bob", "evidence.added", "os-family"), offset=0, limit=10).total == 1
        second = audit_page(s, capture_id, AuditFilter(), offset=1, limit=1)
        assert (second.total, second.offset, second.limit) == (3, 1, 1)
        assert [e.action for e in second] == ["evidence.added"]
        assert audit_choices(s, capture_id) == AuditChoices(("alice", "bob"),
                                                            ("dismissal.added", "evidence.added", "override.set"),
                                                            ("host-identity", "os-family"))


def test_csv_rows_carry_evidence_dismissal_reasons_actors_and_times(db, capture_id):
    registry = get_registry()
    identity, os_family = Key("host-identity", capture_id, SPOOFER), Key("os-family", capture_id, SPOOFER)
    with db.session(write=True) as s:
        a.set_override(s, registry, identity, "Workstation", "the analyst's laptop", actor=person("alice"))
        a.dismiss(s, registry, identity, "Router", "=forwards only while spoofing", actor=person("bob"))
        a.add_evidence(s, registry, os_family, "Linux", 30, "a Raspberry Pi", actor=person("bob"))
    with db.session() as s:
        rows = [dict(zip(CSV_COLUMNS, r, strict=True))
                for r in csv_rows(capture_export(s, find_capture(s, capture_id), registry))]
    row = next(r for r in rows if r["ip"] == SPOOFER and r["question"] == "host-identity")
    assert row["override_label"] == "Workstation" and row["override_at"].startswith("20")
    assert row["dismissal_reasons"].startswith("Router by bob at 20")
    assert row["dismissal_reasons"].endswith(": =forwards only while spoofing")
    assert row["actors"] == "alice | bob" and row["last_human_at"] >= row["override_at"]
    os_row = next(r for r in rows if r["ip"] == SPOOFER and r["question"] == "os-family")
    assert os_row["evidence"].startswith("Linux (+30) by bob at 20") and os_row["evidence"].endswith(": a Raspberry Pi")
    untouched = next(r for r in rows if r["ip"] == GATEWAY and r["question"] == "host-identity")
    assert (untouched["evidence"], untouched["dismissal_reasons"], untouched["actors"], untouched["last_human_at"]) \
        == ("", "", "", "")


def test_an_accepted_role_shows_on_the_trail_of_the_answer_that_follows_it(db, capture_id):
    """Device type defers to a human's Role: the accept is on Device type's panel trail, with
    what it did there; clearing it too. The Role's own trail is unchanged."""
    from tracepcap.present.read.trail import trail as read_trail
    registry = get_registry()
    follower = next(adj for adj in registry if adj.defers is not None)
    role, mine = next(iter(follower.defers.labels.items()))
    with db.session(write=True) as s:
        a.set_override(s, registry, Key(follower.defers.question, capture_id, SPOOFER), role, "seen in the CMDB",
                       actor=person("alice"))
    with db.session(write=True) as s:
        a.clear_override(s, registry, Key(follower.defers.question, capture_id, SPOOFER), actor=person("alice"))
    with db.session() as s:
        trail = read_trail(s, registry, Key(follower.question, capture_id, SPOOFER))
        own = read_trail(s, registry, Key(follower.defers.question, capture_id, SPOOFER))
    title = registry.get(follower.defers.question).title
    assert [(e.action, e.via) for e in trail] == [("override.set", title), ("override.cleared", title)]
    assert trail[0].change == f"set the answer to “{role}” — seen in the CMDB — this answer follows it: {mine}"
    assert trail[1].change == f"reverted “{role}” to the machine's answer — this answer no longer follows {title}"
    assert [(e.action, e.via) for e in own] == [("override.set", None), ("override.cleared", None)]
