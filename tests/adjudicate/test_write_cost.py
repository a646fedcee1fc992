"""One human write costs what it must (issue 23, item 8): it re-adjudicates the question and
entity it touched (and the questions deferring to it), never the capture, so the statements it
runs do not grow with the capture's hosts; a bulk import re-adjudicates each touched key once,
however many rows name it."""

from __future__ import annotations

from sqlalchemy import event, select

from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.annotations import bulk
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.store.models import Entity, VerdictRow


def _analyzed(db, settings, path) -> tuple[str, list[str]]:
    with db.session(write=True) as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="test", max_bytes=settings.max_capture_bytes)
    analyze(db, settings, capture.id)
    with db.session() as s:
        return capture.id, list(s.scalars(select(Entity.key).where(Entity.capture_id == capture.id)))


def _statements(db, work) -> list[str]:
    seen: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        seen.append(statement)
    event.listen(db.engine, "before_cursor_execute", count)
    try:
        work()
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    return seen


def _verdict_times(db, cid):
    with db.session() as s:
        return {(v.question, v.entity_key): v.updated_at for v in s.scalars(select(VerdictRow).where(
            VerdictRow.capture_id == cid))}


def test_one_write_runs_as_many_statements_on_a_small_capture_as_on_a_large_one(db, settings, captures):
    registry = get_registry()
    counts = []
    for name in ("dns_demo.pcap", "demo_all_rules.pcap"):
        cid, entities = _analyzed(db, settings, captures / name)
        before = _verdict_times(db, cid)

        def write(key=Key("host-identity", cid, entities[-1])):
            with db.session(write=True) as s:
                annotations.set_override(s, registry, key, "Router", "r", actor=SYSTEM_ACTOR)
        counts.append(len(_statements(db, write)))
        after = _verdict_times(db, cid)
        rewritten = {k for k in after if after[k] != before.get(k)}
        assert {e for _q, e in rewritten} == {entities[-1]}  # no other entity's verdict is rewritten
    assert len(set(counts)) == 1, counts  # 5 hosts or 49: the same statements


def test_a_bulk_import_readjudicates_each_key_once(db, settings, captures, monkeypatch):
    registry = get_registry()
    cid, entities = _analyzed(db, settings, captures / "demo_all_rules.pcap")
    reruns = []
    real = bulk.rerun_many
    monkeypatch.setattr(bulk, "rerun_many", lambda s, r, keys: (reruns.append(set(keys)), real(s, r, keys))[1])
    rows = [bulk.Row(i + 1, {"kind": "evidence", "entity": entities[i % 3], "label": "Printer", "weight": 5,
                             "reason": f"r{i}"}) for i in range(60)]
    with db.session(write=True) as s:
        result = bulk.apply_bulk(s, registry, cid, rows, actor=SYSTEM_ACTOR)
    assert result.evidence == 60
    assert reruns == [{Key("host-identity", cid, e) for e in entities[:3]}]


def test_identity_facts_of_many_entities_are_each_ones_own(db, settings, captures):
    from tracepcap.adjudicate.ledger.staleness import identity_facts, identity_facts_many
    cid, entities = _analyzed(db, settings, captures / "demo_all_rules.pcap")
    with db.session() as s:
        many = identity_facts_many(s, cid, set(entities))
        assert many == {e: identity_facts(s, cid, e) for e in entities}
        assert any(facts["mac"] for facts in many.values())  # not only empty lists
