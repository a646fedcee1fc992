"""Notices (issue 12): traffic that violates its protocol is recorded, not taken for damage.
A truncated Kerberos payload on udp/88 and a DNS name that points at itself leave the capture
`done` (exit 0) with their extractors `completed`, and each notice appears with its kind,
sender and frame in `analyze --json`, in the table and in the store; an extractor that raises
anything else is a bug, and only that makes it (and the capture) partial. On SQLite and
PostgreSQL."""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import func, select

from tracepcap.analysis import analyze
from tracepcap.extract.extractors.kerberos import Kerberos
from tracepcap.extract.pipeline import extract
from tracepcap.limits import Limits
from tracepcap.ingest import store_file
from tracepcap.present.cli import ExitCode, main
from tracepcap.store.models import Capture, Notice, NoticeCount
from tracepcap.testing import windows
from tracepcap.testing.scenario import Scenario
from notice_traffic import DC, PC, odd_lan

@pytest.fixture
def run(settings, monkeypatch, capsys):
    monkeypatch.setenv("TRACEPCAP_DATA_DIR", str(settings.data_dir))

    def run(*args):
        code = main(["analyze", *map(str, args), "--db", settings.database_url])
        out, err = capsys.readouterr()
        return code, out, err
    return run


def row_of(document, name):
    return next(row for row in document["manifest"] if row["extractor"] == name)


def test_malformed_traffic_is_a_notice_and_the_capture_is_done(run, tmp_path):
    code, out, err = run(odd_lan(tmp_path / "odd.pcap"), "--json")
    doc = json.loads(out)
    assert (code, err, doc["capture"]["status"]) == (ExitCode.OK, "", "done")
    assert row_of(doc, "kerberos") == {"extractor": "kerberos", "version": row_of(doc, "kerberos")["version"],
                                       "status": "completed", "facts": 1,
                                       "error": "2 notices (kerberos-truncated 2)"}
    assert row_of(doc, "dns")["status"] == "completed"
    assert row_of(doc, "dns")["error"] == "1 notice (dns-malformed 1)"
    assert doc["notice_counts"] == {"dns-malformed": 1, "kerberos-truncated": 2}
    assert [(n["kind"], n["entity"], n["frame"]) for n in doc["notices"]] == [
        ("kerberos-truncated", PC, 2), ("dns-malformed", DC, 3), ("kerberos-truncated", PC, 4)]
    assert doc["notices"][1]["text"] == "dns-name: malformed, pointer at 12 to 12 does not point back"
    # the whole request before the cut ones was still read
    pc = next(h for h in doc["hosts"] if h["ip"] == PC)
    assert {(f["kind"], f["value"]) for f in pc["facts"]} >= {("krb-principal", "alice@CORP.EXAMPLE")}

    code, out, _ = run(tmp_path / "odd.pcap")
    assert code == ExitCode.OK
    assert ("  notices: 3 (traffic that violated its protocol: kerberos-truncated 2, dns-malformed 1)"
            in out.splitlines())


def test_an_extractor_bug_is_partial_with_its_traceback_in_the_log(run, tmp_path, monkeypatch, caplog):
    def broken(self, pkt, flow):
        raise ValueError("a bug, not the traffic")
    monkeypatch.setattr(Kerberos, "observe", broken)
    with caplog.at_level(logging.WARNING, logger="tracepcap.extract.pipeline"):
        code, out, _ = run(odd_lan(tmp_path / "odd.pcap"), "--json")
    doc = json.loads(out)
    assert (code, doc["capture"]["status"]) == (ExitCode.PARTIAL, "partial")
    assert row_of(doc, "kerberos")["status"] == "partial"
    assert row_of(doc, "kerberos")["error"] == "3 failures; first frame 1: ValueError: a bug, not the traffic"
    assert doc["notice_counts"] == {"dns-malformed": 1}  # the other extractors' notices are still there
    bug = next(r for r in caplog.records if "kerberos" in r.getMessage())
    assert bug.exc_info and bug.exc_info[0] is ValueError


def test_stored_notices_are_bounded_and_every_one_is_counted(tmp_path):
    net = Scenario()
    pc, dc = net.host(PC, "00:1b:21:4a:7e:21"), net.host(DC, "00:26:b9:5c:20:10")
    for port in range(50000, 50005):
        net.udp(pc, dc, port, 88, b"\x6a\x84\xff\xff\xff\xff")  # a tag claiming 4 GiB
    result = extract(net.write_pcap(tmp_path / "many.pcap"), "cap", classes=[Kerberos],
                     limits=Limits(max_notices=2))
    assert [n.frame for n in result.notices] == [1, 2]
    assert sum(result.notice_counts.values()) == 5 and result.complete


def test_a_frame_that_does_not_decode_is_a_notice_from_the_decoder(tmp_path, run):
    net = Scenario()
    pc, dc = net.host(PC, "00:1b:21:4a:7e:21"), net.host(DC, "00:26:b9:5c:20:10")
    net.udp(pc, dc, 50000, 88, windows.krb_as_req("alice", "CORP.EXAMPLE"))
    net.emit(bytes.fromhex("0026b95c2010001b214a7e21" "0800") + b"\x45\x00")  # an IPv4 header cut at 2 bytes
    code, out, _ = run(net.write_pcap(tmp_path / "cut.pcap"), "--json")
    doc = json.loads(out)
    assert (code, doc["capture"]["status"]) == (ExitCode.OK, "done")
    assert row_of(doc, "reader")["status"] == "completed"  # the file was read to its end
    assert row_of(doc, "decoder") == {"extractor": "decoder", "version": "1", "status": "completed", "facts": 1,
                                      "error": "1 frames not decodable: 1 notice (decoder-truncated 1)"}
    assert [(n["kind"], n["entity"], n["frame"]) for n in doc["notices"]] == [("decoder-truncated", None, 2)]


def test_reanalysis_replaces_the_notices(db, settings, tmp_path):
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, odd_lan(tmp_path / "odd.pcap"), uploaded_by="system",
                                max_bytes=settings.max_capture_bytes)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    assert analyze(db, settings, cid) == "done"
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Notice).where(Notice.capture_id == cid)) == 3
        assert dict(s.execute(select(NoticeCount.kind, NoticeCount.count)
                              .where(NoticeCount.capture_id == cid)).all()) == {
            "dns-malformed": 1, "kerberos-truncated": 2}
        s.delete(s.get(Capture, cid))
    with db.session() as s:  # deleting the capture deletes its notices (and no staged ones remain)
        assert s.scalar(select(func.count()).select_from(Notice)) == 0
        assert s.scalar(select(func.count()).select_from(NoticeCount)) == 0
