"""Facts, conversations and votes go to the store in bulk: on PostgreSQL one COPY per table,
on SQLite `executemany` batches in one transaction, never a statement per row; what is read
back is what was written, JSON, NULLs, floats and hostile text included."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import event, select

from tracepcap.store.bulk import insert_rows
from tracepcap.store.models import Capture, Conversation, ObservationRow, VoteRow

CID = "c0ffee" * 2


def _capture() -> Capture:
    return Capture(id=CID, sha256=CID * 5, name="bulk.pcap", size=1, format="pcap", status="done",
                   progress_bytes=0, uploaded_at=datetime.now(UTC), uploaded_by="test")


def _statements(db):
    seen: list[tuple[str, bool]] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        seen.append((statement.split()[0].upper(), executemany))
    event.listen(db.engine, "before_cursor_execute", count)
    return seen, lambda: event.remove(db.engine, "before_cursor_execute", count)


def test_rows_go_in_bulk_and_come_back_as_written(db):
    with db.session(write=True) as s:
        s.add(_capture())
    votes = [{"capture_id": CID, "question": "host-identity", "entity_key": f"10.0.{i // 250}.{i % 250}",
              "signal": "s", "label": "Printer", "weight": i % 100, "reason": f"tab\there 'quoted' \\ {i}",
              "grade": "REPORTED", "frames": [i, i + 1] if i % 2 else []} for i in range(12_001)]
    conversations = [{"capture_id": CID, "proto": "tcp", "src": "10.0.0.1", "sport": i, "dst": "10.0.0.2",
                      "dport": 80, "first_time": 1.5 + i, "last_time": 2.25 + i, "first_frame": i,
                      "packets_fwd": 1, "bytes_fwd": 60, "packets_rev": 0, "bytes_rev": 0,
                      "initiator": None if i % 3 else "10.0.0.1"} for i in range(7_000)]
    facts = [{"capture_id": CID, "entity": "10.0.0.1", "kind": "hostname-claim", "value": f"h\\x00st-{i}",
              "source": "dhcp", "grade": "REPORTED", "first_frame": i, "last_frame": i, "count": 1,
              "first_time": 0.1, "last_time": 0.1, "extractor": "dhcp", "extractor_version": "3"}
             for i in range(5)]
    seen, stop = _statements(db)
    try:
        with db.session(write=True) as s:
            assert insert_rows(s, VoteRow, iter(votes)) == len(votes)
            assert insert_rows(s, Conversation, conversations, batch=5000) == len(conversations)
            assert insert_rows(s, ObservationRow, facts) == len(facts)
            assert insert_rows(s, ObservationRow, []) == 0
    finally:
        stop()
    writes = [(verb, many) for verb, many in seen if verb in ("INSERT", "COPY")]
    if db.engine.dialect.name == "postgresql":  # COPY on the driver's connection, no INSERT
        assert writes == []
    else:  # executemany, 5000 rows a statement: 3 + 2 + 1
        assert writes == [("INSERT", True)] * 6
    with db.session() as s:
        got = [dict(signal=v.signal, weight=v.weight, reason=v.reason, frames=v.frames, entity_key=v.entity_key)
               for v in s.scalars(select(VoteRow).order_by(VoteRow.id))]
        assert got == [dict(signal=v["signal"], weight=v["weight"], reason=v["reason"], frames=v["frames"],
                            entity_key=v["entity_key"]) for v in votes]
        rows = s.execute(select(Conversation.first_time, Conversation.last_time, Conversation.initiator)
                         .order_by(Conversation.id)).all()
        assert [tuple(r) for r in rows] == [(c["first_time"], c["last_time"], c["initiator"]) for c in conversations]
        assert [o.value for o in s.scalars(select(ObservationRow).order_by(ObservationRow.id))] == \
            [f["value"] for f in facts]


def test_rows_as_tuples_with_json_given_as_text_come_back_as_written(db):
    import json
    with db.session(write=True) as s:
        s.add(_capture())
    keys = ("capture_id", "question", "entity_key", "signal", "label", "weight", "reason", "grade", "frames")
    votes = [(CID, "os-family", f"10.1.0.{i}", "ttl", "Linux", i, f"reason {i}", "MEASURED", [i, {"k": "v"}])
             for i in range(7)]
    with db.session(write=True) as s:
        assert insert_rows(s, VoteRow, iter(votes), keys=keys, batch=3) == 7
        assert insert_rows(s, VoteRow, ((*v[:8], json.dumps(v[8])) for v in votes), keys=keys,
                           encoded=("frames",)) == 7
    with db.session() as s:
        got = [(v.entity_key, v.weight, v.reason, v.frames) for v in s.scalars(select(VoteRow).order_by(VoteRow.id))]
    assert got == [(v[2], v[5], v[6], v[8]) for v in votes] * 2
