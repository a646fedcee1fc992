"""Every question's machine verdicts are decided as Scan votes, outside any writing transaction
(`runner.Decided`: those of the questions other signals read, os-family and vendor-model, Scan
decided anyway), and the swap reuses them on entities without annotations, deciding the others
as always: what an analysis stores equals a full re-decide of every question (on shared
captures), a human's answer or evidence is in the verdict stored after a re-analysis, even
one given between Scan and the swap, and each question is decided once per entity, none in
the swap."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from sqlalchemy import select

from tracepcap import analysis
from tracepcap.adjudicate import annotations as a
from tracepcap.adjudicate import runner
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import adjudicate_capture, analyze
from tracepcap.ingest import store_file
from tracepcap.scan.signals import inputs_of
from tracepcap.store.models import Entity, VerdictRow, VoteRow
from fake_actor import person

SHARED = ["dns_demo.pcap", "demo_all_rules.pcap", "monitor_large_week1_baseline.pcap", "http_demo.pcap",
          "telegram_voice.pcapng", "free5gc.pcap"]


def _inputs() -> set[str]:
    return {q for signals in get_registry().signals().values() for s in signals for q in inputs_of(s)}


def _verdicts(db, cid: str) -> dict:
    with db.session() as s:
        return {(r.question, r.entity_key): (r.primary_label, r.basis, r.confidence, r.contested, r.document)
                for r in s.scalars(select(VerdictRow).where(VerdictRow.capture_id == cid))}


def _store(db, settings, path) -> str:
    with db.session(write=True) as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="test", max_bytes=1 << 30)
        return capture.id


def _count_decides(monkeypatch) -> Counter:
    calls: Counter = Counter()
    real = runner.decide

    def counted(adj, key, votes, notes):
        calls[adj.question] += 1
        return real(adj, key, votes, notes)
    made = runner.machine_row

    def counted_row(adj, capture_id, entity, votes, weighed=None):  # a decide straight to the kept row
        calls[adj.question] += 1
        return made(adj, capture_id, entity, votes, weighed)
    monkeypatch.setattr(runner, "decide", counted)
    monkeypatch.setattr(runner, "machine_row", counted_row)
    return calls


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_what_an_analysis_stores_equals_a_full_re_decide(db, settings, captures, monkeypatch):
    registry, inputs = get_registry(), _inputs()
    assert inputs >= {"os-family"}
    for name in SHARED:
        cid = _store(db, settings, captures / name)
        calls = _count_decides(monkeypatch)
        in_swap: Counter = Counter()
        swap_in = analysis._swap_in

        def counted_swap(*args, **kwargs):
            before = Counter(calls)
            try:
                return swap_in(*args, **kwargs)
            finally:
                in_swap.update(calls - before)
        monkeypatch.setattr(analysis, "_swap_in", counted_swap)
        assert analyze(db, settings, cid, registry) in ("done", "partial")
        with db.session() as s:
            entities = len(s.scalars(select(Entity.key).where(Entity.capture_id == cid)).all())
        assert entities > 0
        for adj in registry:  # decided once, as Scan voted (the entities without votes share one), not in the swap
            assert 0 < calls[adj.question] <= entities, (name, adj.question)
        assert sum(in_swap.values()) == 0, (name, in_swap)
        stored = _verdicts(db, cid)
        monkeypatch.undo()
        assert adjudicate_capture(db, registry, cid) == {}  # every question decided again, nothing reused
        assert _verdicts(db, cid) == stored, name


def test_annotations_written_before_a_re_analysis_are_in_its_verdicts(db, settings, captures):
    registry = get_registry()
    cid = _store(db, settings, captures / "dns_demo.pcap")
    assert analyze(db, settings, cid, registry) == "done"
    with db.session() as s:
        keys = s.scalars(select(Entity.key).where(Entity.capture_id == cid).order_by(Entity.position)).all()
    first, second, third = keys[:3]
    before = _verdicts(db, cid)
    with db.session(write=True) as s:
        a.set_override(s, registry, Key("os-family", cid, first), "Windows", "its admin said so", actor=person("alice"))
        a.add_evidence(s, registry, Key("os-family", cid, second), "Windows", 40, "a Windows update agent",
                       actor=person("bob"))
        a.set_override(s, registry, Key("vendor-model", cid, third), "Cisco", "the label on the box",
                       actor=person("carol"))
    assert analyze(db, settings, cid, registry) == "done"
    after = _verdicts(db, cid)
    assert after[("os-family", first)][:2] == ("Windows", "HUMAN")
    assert "a Windows update agent" in str(after[("os-family", second)][4])
    assert after[("vendor-model", third)][:2] == ("Cisco", "HUMAN")
    untouched = [k for k in before if k not in {("os-family", first), ("os-family", second), ("vendor-model", third)}
                 and k[0] in _inputs()]
    assert untouched and all(after[k] == before[k] for k in untouched)
    assert adjudicate_capture(db, registry, cid) == {}
    assert _verdicts(db, cid) == after


def test_a_verdict_decided_from_votes_unlike_the_stored_ones_is_decided_again(db, settings, captures):
    registry = get_registry()
    adj = registry.get("os-family")
    with runner.Decided("c", registry) as decided:
        answer = runner.machine_answer(registry, decided)
        plain = runner.Vote("Linux", 30, "a TTL of 64 (+30)", "measured", (1,), "ttl")
        answer("os-family", "10.0.0.1", [plain])
        answer("os-family", "10.0.0.2", [runner.Vote("Linux", 30, "a TTL of 64 (+30)", "measured", [1], "ttl")])
        answer("os-family", "10.0.0.3", [])
        kept = decided.rows("os-family", ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
        assert kept is not None and kept.unkept == {"10.0.0.2"}  # a list of frames is not what the store gives back
        row = kept.next("10.0.0.1")
        fresh = runner.decide(adj, Key("os-family", "c", "10.0.0.1"), [plain], runner.Annotations(None, [], []))
        assert row[1:] == (fresh.primary_label, str(fresh.basis), fresh.confidence, fresh.contested,
                           json.dumps(fresh.to_document()))
        assert kept.next("10.0.0.3")[0] == "10.0.0.3"
        assert decided.rows("os-family", ["10.0.0.1", "10.0.0.3", "10.0.0.2"]) is None  # another order: not reused
        assert decided.rows("vendor-model", ["10.0.0.1"]) is None


def test_an_answer_given_between_scan_and_the_swap_is_not_replaced_by_scans_verdict(db, settings, captures,
                                                                                       monkeypatch):
    registry = get_registry()
    cid = _store(db, settings, captures / "dns_demo.pcap")
    assert analyze(db, settings, cid, registry) == "done"
    with db.session() as s:
        first = s.scalars(select(Entity.key).where(Entity.capture_id == cid).order_by(Entity.position)).first()
    swap_in = analysis._swap_in

    def a_human_answers_first(*args, **kwargs):
        with db.session(write=True) as s:  # after Scan decided os-family for every entity
            a.set_override(s, registry, Key("os-family", cid, first), "Windows", "seen its console",
                           actor=person("alice"))
        return swap_in(*args, **kwargs)

    monkeypatch.setattr(analysis, "_swap_in", a_human_answers_first)
    assert analyze(db, settings, cid, registry) == "done"
    assert _verdicts(db, cid)[("os-family", first)][:2] == ("Windows", "HUMAN")


def _vote_sets(db, settings, captures) -> list[tuple[str, str, list]]:
    """(question, entity, its votes as stored) of every voted entity of the shared captures, and
    made-up ones: a contest settled at a parent, a disputed leader, analyst-only labels, a
    human-assisted question's suggestion, ties."""
    registry = get_registry()
    out = []
    for name in SHARED:
        cid = _store(db, settings, captures / name)
        assert analyze(db, settings, cid, registry) in ("done", "partial")
        with db.session() as s:
            grouped: dict[tuple[str, str], list] = {}
            for r in s.scalars(select(VoteRow).where(VoteRow.capture_id == cid).order_by(VoteRow.id)):
                grouped.setdefault((r.question, r.entity_key), []).append(
                    runner.Vote(r.label, r.weight, r.reason, r.grade, tuple(r.frames), r.signal))
        out += [(q, e, votes) for (q, e), votes in grouped.items()]
    v = runner.Vote
    out += [
        ("os-family", "a", [v("macOS", 30, "m (+30)", "MEASURED", (1,), "x"), v("iOS", 30, "i (+30)", "MEASURED", (2,), "y")]),
        ("os-family", "b", [v("Linux", 40, "l (+40)", "MEASURED", (1,), "x"), v("Linux", -20, "not (-20)", "REPORTED", (), "y")]),
        ("os-family", "c", [v("Windows", 20, "w (+20)", "REPORTED", (3, 4), "x"), v("Windows", 20, "w2 (+20)", "INFERRED", (), "z"),
                            v("Linux", 10, "l (+10)", "MEASURED", (1,), "y")]),
        ("os-family", "d", [v("Windows", 10, "a (+10)", "ANALYST", (), runner.ANALYST_SIGNAL)]),
        ("os-family", "e", [v("Unknown", 0, "nothing (+0)", "MEASURED", (5,), "ttl")]),
        ("node-role", "f", [v("DNS Server", 40, "d (+40)", "MEASURED", (1,), "s"), v("dns server", 30, "e (+30)", "MEASURED", (2,), "t")]),
        ("node-role", "g", [v("Web Server", 50, "w (+50)", "INFERRED", (1,), "s")]),
        ("host-identity", "h", [v("Phone", 20, "p (+20)", "MEASURED", (1,), "s"), v("Laptop", 20, "l (+20)", "MEASURED", (2,), "t")]),
    ]
    return out


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_row_made_straight_from_the_votes_is_the_decided_verdicts(db, settings, captures):
    registry = get_registry()
    cases = _vote_sets(db, settings, captures)
    assert len(cases) > 200
    weighed: dict = {}  # what the rows weighed, shared across entities as Decided shares it
    for question, entity, votes in cases + cases:  # twice: the second time from what was weighed
        adj = registry.get(question)
        verdict = runner.decide(adj, Key(question, "cap", entity), votes, runner.Annotations(None, [], []))
        for made in (runner.machine_row(adj, "cap", entity, votes), runner.machine_row(adj, "cap", entity, votes, weighed)):
            assert made is not None, (question, entity)
            row, answer = made
            assert row == (entity, verdict.primary_label, str(verdict.basis), verdict.confidence, verdict.contested,
                           json.dumps(verdict.to_document())), (question, entity)
            assert answer == runner.answer_of(adj, verdict), (question, entity)
    assert len(weighed) < len(cases)  # entities with votes alike but for reasons and frames weigh once
    shapes = {(json.loads(runner.machine_row(registry.get(q), "cap", e, vs)[0][5])["contested"],
               bool(json.loads(runner.machine_row(registry.get(q), "cap", e, vs)[0][5])["parent_of"]))
              for q, e, vs in cases}
    assert shapes >= {(False, False), (True, False), (False, True)}  # plain, contested, settled at a parent


def test_a_row_is_not_made_from_votes_unlike_the_stored_ones():
    adj = get_registry().get("os-family")
    v = runner.Vote
    assert runner.machine_row(adj, "c", "e", [v("Linux", 30, "t (+30)", "MEASURED", [1], "ttl")]) is None
    assert runner.machine_row(adj, "c", "e", [v("Linux", 30, "t (+30)", "MEASURED", (1,), "ttl", "bob")]) is None
    assert runner.machine_row(adj, "c", "e", [v("Linux", 30, " ", "MEASURED", (1,), "ttl")]) is None
    assert runner.machine_row(adj, "c", "e", []) is None
