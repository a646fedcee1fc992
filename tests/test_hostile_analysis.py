"""Hostile captures through the whole analysis (issue 17, items 2, 3 and 10), on SQLite and
PostgreSQL: text from the wire is stored visible whatever bytes it held, a failure's error is
a sentence without SQL, a capture deleted or cancelled mid-analysis stops quietly, and the
read limits end a bomb with a partial capture and a sentence."""

from __future__ import annotations

import gzip
import logging
import time

import pytest
from sqlalchemy import select
from sqlalchemy.exc import DataError

from tracepcap import analysis
from tracepcap.adjudicate import annotations
from tracepcap.analysis import DELETED, analyze
from tracepcap.ingest import store_file
from tracepcap.settings import Settings
from tracepcap.store.models import Capture, Host, ManifestEntry, ObservationRow
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario
from tracepcap.visible import visible
from fake_actor import person

MAC = "a4:83:e7:00:00:01"
HOSTILE_NAME = b"ev\x00il\xff\x1b[2J"  # NUL, a byte that is not UTF-8, an ANSI "clear screen"
SHOWN_NAME = "ev\\x00il\\xff\\x1b[2J"


def stored(db, settings, path) -> str:
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="system",
                                max_bytes=settings.max_capture_bytes)
        return capture.id


def hostile_lan(path):
    """A bound client: DHCP REQUEST whose host name option holds HOSTILE_NAME (frame 1), then
    an HTTP request whose Host and User-Agent hold a NUL and a C1 control."""
    net = Scenario()
    client = net.host("192.168.1.50", MAC)
    server = net.host("192.168.1.1", "00:00:0c:00:00:01")
    net.udp(client, "255.255.255.255", 68, 67, app.dhcp(
        app.BOOTREQUEST, 0x77, MAC, app.REQUEST, ciaddr="192.168.1.50",
        extra_options=[(12, HOSTILE_NAME)]))
    net.tcp_session(client, server, 40000, 80, client=[app.http_request(
        "GET", "/", "web\x00.example", user_agent="Mozilla/5.0\x00\x85evil")],
        server=[app.http_response(server="nginx")])
    return net.write_pcap(path)


def test_visible_renders_controls_and_undecodable_bytes():
    assert visible(HOSTILE_NAME.decode("utf-8", "surrogateescape")) == SHOWN_NAME
    assert visible("line\r\nbreak\tand\x7fDEL\x9bCSI") == "line\\x0d\\x0abreak\\x09and\\x7fDEL\\x9bCSI"
    assert visible("\ud800 lone") == "\\ud800 lone"
    plain = "CORP\\alice caf\u00e9 \u65e5\u672c"  # a backslash and non-ASCII letters stay as sent
    assert visible(plain) is plain


def test_a_nul_from_the_wire_is_stored_visible_and_the_capture_is_analyzed(db, settings, tmp_path):
    cid = stored(db, settings, hostile_lan(tmp_path / "hostile.pcap"))
    assert analyze(db, settings, cid) in ("done", "partial")
    with db.session() as s:
        assert s.get(Capture, cid).error is None or "internal" not in s.get(Capture, cid).error
        assert s.scalars(select(Host.ip).where(Host.capture_id == cid)).all()
        values = {(o.kind, o.value) for o in s.scalars(
            select(ObservationRow).where(ObservationRow.capture_id == cid))}
    assert ("hostname-claim", SHOWN_NAME) in values
    assert ("user-agent", "Mozilla/5.0\\x00\\x85evil") in values
    assert ("hostname-claim", "web\\x00.example") in values
    assert not any("\x00" in v or "\x1b" in v for _, v in values)


def test_a_file_name_with_bytes_that_are_not_utf8_is_stored_visible(db, settings, captures, tmp_path):
    odd = tmp_path / "dns\udcff\x07.pcap"  # how Python spells a non-UTF-8 byte in a Linux path
    odd.write_bytes((captures / "dns_demo.pcap").read_bytes())
    cid = stored(db, settings, odd)
    with db.session() as s:
        assert s.get(Capture, cid).name == "dns\\xff\\x07.pcap"


def test_an_internal_error_is_a_sentence_and_the_sql_goes_to_the_log(db, settings, captures,
                                                                    monkeypatch, caplog):
    cid = stored(db, settings, captures / "dns_demo.pcap")

    def broken(*_args):
        raise DataError("INSERT INTO observation (value) VALUES (%(value)s)", {"value": "secret"},
                        ValueError("A string literal cannot contain NUL (0x00) characters."))
    monkeypatch.setattr(analysis, "_swap_in", broken)
    with caplog.at_level(logging.ERROR, logger="tracepcap.analysis"):
        assert analyze(db, settings, cid) == "failed"
    with db.session() as s:
        error = s.get(Capture, cid).error
    assert error == "internal error (DataError) while analyzing; the server log has the details"
    assert "INSERT INTO observation" in caplog.text and "secret" not in error


def test_a_capture_deleted_before_its_analysis_is_skipped(db, settings, captures):
    cid = stored(db, settings, captures / "dns_demo.pcap")
    with db.session() as s:
        annotations.delete_capture(s, settings.capture_dir, cid, actor=person("alice"))
    assert analyze(db, settings, cid) == DELETED


def test_a_capture_deleted_during_its_analysis_stops_quietly(db, settings, captures, caplog):
    cid = stored(db, settings, captures / "dns_demo.pcap")

    def delete_meanwhile() -> bool:  # asked at the walk's progress tick: delete, do not cancel
        with db.session() as s:
            if s.get(Capture, cid) is not None:
                annotations.delete_capture(s, settings.capture_dir, cid, actor=person("alice"))
        return False
    with caplog.at_level(logging.INFO, logger="tracepcap"):
        assert analyze(db, settings, cid, cancelled=delete_meanwhile) == DELETED
    assert "deleted while it was analyzed" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    with db.session() as s:
        assert s.get(Capture, cid) is None
        assert not s.scalars(select(Host).where(Host.capture_id == cid)).all()


def test_a_cancelled_analysis_is_failed_with_a_sentence(db, settings, captures):
    cid = stored(db, settings, captures / "dns_demo.pcap")
    assert analyze(db, settings, cid, cancelled=lambda: True) == "failed"
    with db.session() as s:
        assert s.get(Capture, cid).error == f"the analysis of capture {cid} was cancelled"


def test_a_gzip_bomb_ends_partial_at_the_configured_limit(db, settings, tmp_path, captures):
    bomb = tmp_path / "bomb.pcap.gz"
    with gzip.open(bomb, "wb") as f:
        f.write((captures / "dns_demo.pcap").read_bytes()[:24])  # a pcap header, then zeros
        for _ in range(16):
            f.write(bytes(1 << 20))
    limited = Settings(**{**settings.model_dump(), "max_decompressed_bytes": 1 << 20})
    cid = stored(db, limited, bomb)
    assert analyze(db, limited, cid) == "partial"
    with db.session() as s:
        capture = s.get(Capture, cid)
        assert capture.packets == ((1 << 20) - 24) // 16
        assert "the limit TRACEPCAP_MAX_DECOMPRESSED_BYTES; the rest was not read" in capture.error


def test_a_small_gzip_bomb_stops_fast_at_the_decompression_ratio(db, settings, tmp_path, captures):
    """~0.25 MB of gzip holding 256 MiB of empty records, under the default byte and record
    limits: the ratio alone stops it within seconds, and the manifest's reader row says so."""
    bomb = tmp_path / "bomb.pcap.gz"
    with gzip.open(bomb, "wb") as f:
        f.write((captures / "dns_demo.pcap").read_bytes()[:24])
        for _ in range(256):
            f.write(bytes(1 << 20))
    assert bomb.stat().st_size < 300_000
    cid = stored(db, settings, bomb)
    started = time.monotonic()
    assert analyze(db, settings, cid) == "partial"
    assert time.monotonic() - started < 60  # the 50 M record limit would walk 256 MiB: minutes
    with db.session() as s:
        capture = s.get(Capture, cid)
        assert capture.packets < (16 << 20) // 16
        reader = s.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == cid,
                                                       ManifestEntry.extractor == "reader")).one()
    assert reader.status == "partial"
    assert "decompresses to more than 1000 times its compressed size, the limit " \
           "TRACEPCAP_MAX_DECOMPRESSION_RATIO; the rest was not read" in reader.error
    assert "TRACEPCAP_MAX_DECOMPRESSION_RATIO" in capture.error


def test_read_limits_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRACEPCAP_MAX_DECOMPRESSED_BYTES", "1000")
    monkeypatch.setenv("TRACEPCAP_MAX_RECORDS", "7")
    monkeypatch.setenv("TRACEPCAP_MAX_DECOMPRESSION_RATIO", "50")
    limits = Settings().extract_limits
    assert (limits.max_read_bytes, limits.max_records, limits.max_decompression_ratio) == (1000, 7, 50)
    monkeypatch.setenv("TRACEPCAP_MAX_DECOMPRESSION_RATIO", "0")
    with pytest.raises(ValueError, match="max_decompression_ratio"):
        Settings()
    monkeypatch.setenv("TRACEPCAP_MAX_DECOMPRESSION_RATIO", "1000")
    monkeypatch.setenv("TRACEPCAP_MAX_RECORDS", "0")
    with pytest.raises(ValueError, match="max_records"):
        Settings()
