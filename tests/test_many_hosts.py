"""A capture of many hosts through the whole analysis (SQLite and PostgreSQL): the store is
written in batches, never row by row, and the streamed report is byte for byte the
document built whole. Counted, not timed (benchmarks/many_hosts_bench.py times it)."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from sqlalchemy import event, func, select

from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.present.read.document import capture_document
from tracepcap.present.read.shapes import plain
from tracepcap.present.report import write_capture
from tracepcap.store.models import Capture, Host, VerdictRow
from tracepcap.testing.crowd import build_crowd

HOSTS = 600


@pytest.fixture
def analyzed(db, settings, tmp_path):
    """analyzed(path) -> (capture id, INSERT statements per table while analyzing it)."""
    def run(path):
        with db.session() as s:
            capture, _ = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name,
                                    max_bytes=settings.max_capture_bytes)
            capture_id = capture.id
        inserts: Counter[str] = Counter()

        def count(conn, cursor, statement, parameters, context, executemany):
            if statement.lstrip().upper().startswith("INSERT INTO"):
                inserts[statement.split()[2].strip('"')] += 1
        event.listen(db.engine, "before_cursor_execute", count)
        try:
            assert analyze(db, settings, capture_id) == "done"
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
        return capture_id, inserts
    return run


def test_many_hosts_are_stored_in_batches(analyzed, db, tmp_path):
    capture_id, inserts = analyzed(build_crowd(tmp_path / "crowd.pcap", HOSTS))
    with db.session() as s:
        verdicts = s.scalars(select(VerdictRow.primary_label).where(VerdictRow.capture_id == capture_id)).all()
        hosts = s.scalar(select(func.count()).select_from(Host).where(Host.capture_id == capture_id))
    assert hosts == HOSTS + 7  # the crowd, and its web, DHCP and three TLS servers, router, TLS client
    assert len(verdicts) == 5 * hosts  # every host answered, five questions (vendor-model: issue 25)
    assert None in verdicts and "Unknown" in verdicts  # contested rows (no label) among the others
    # one statement per batch of each table: a row-by-row write (the ORM splitting its
    # batch wherever a column is None) would count one per host
    assert inserts and max(inserts.values()) <= 8, inserts


def _as_streamed(document: dict) -> str:
    """The whole document laid out as the report streams it: the keys before the hosts and
    those after them indented, a host a line."""
    keys = list(document)
    at = keys.index("hosts")
    head = {key: document[key] for key in keys[:at]}
    tail = {key: document[key] for key in keys[at + 1:]}
    hosts = ",\n    ".join(json.dumps(host) for host in document["hosts"])
    return (json.dumps(head, indent=2)[:-2] + ',\n  "hosts": [\n    ' + hosts + "\n  ],"
            + json.dumps(tail, indent=2)[1:] + "\n")


def test_streamed_report_is_the_whole_document(analyzed, db, tmp_path, captures):
    registry = get_registry()
    for path in (build_crowd(tmp_path / "crowd.pcap", 300), captures / "whatsapp_login_chat.pcap"):
        capture_id, _ = analyzed(path)
        with db.session() as s:  # a verdict rewritten after a human's answer (the ORM writes it), text to escape
            first = s.scalars(select(VerdictRow.entity_key).where(VerdictRow.capture_id == capture_id)).first()
        with db.session(write=True) as s:
            annotations.set_override(s, registry, Key("host-identity", capture_id, first), 'Prïnter "☃"',
                                     "tab\there\nand a line", actor=SYSTEM_ACTOR)
        with db.session() as s:
            capture = s.get(Capture, capture_id)
            document = plain(capture_document(s, capture, registry))
            streamed = io.StringIO()
            write_capture(s, capture, registry, streamed, as_json=True)
            table = io.StringIO()
            write_capture(s, capture, registry, table, as_json=False)
        assert json.loads(streamed.getvalue()) == document
        assert streamed.getvalue() == _as_streamed(document)  # the stored verdict text is copied byte for byte
        assert "\\u2603" in streamed.getvalue()
        host_lines = [line for line in streamed.getvalue().splitlines() if line.startswith('    {"key": ')]
        assert len(host_lines) == len(document["hosts"])  # a host a line
        assert [h["ip"] for h in document["hosts"]][:2] and all(h["verdicts"] for h in document["hosts"])
        lines = table.getvalue().splitlines()
        assert f"{len(document['hosts'])} hosts" in lines[0]
        assert sum(line.startswith("    host-identity: ") for line in lines) == len(document["hosts"])


def test_empty_host_list_streams_as_an_empty_array():
    from tracepcap.present.report import write_json
    out = io.StringIO()
    write_json({"capture": {"id": "x"}}, iter(()), out)
    assert json.loads(out.getvalue()) == {"capture": {"id": "x"}, "hosts": []}
    out = io.StringIO()
    write_json({"capture": {"id": "x"}}, iter(()), out, {"credentials": [], "applications": []})
    assert json.loads(out.getvalue()) == {"capture": {"id": "x"}, "hosts": [], "credentials": [], "applications": []}
