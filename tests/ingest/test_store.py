"""Ingest: content addressing, dedupe, sniffing by content, the streaming size limit."""

from __future__ import annotations

import gzip
import io
import os
import time

import pytest

from tracepcap.errors import CaptureTooLarge, NotFound, UnusableCapture
from tracepcap.ingest import capture_path, find_capture, store_capture, sweep_stale_uploads
from tracepcap.ingest.store import DECOMPRESSED_SUFFIX, INFLATE_PREFIX, STALE_UPLOAD_SECONDS, UPLOAD_PREFIX


def test_same_bytes_twice_are_one_capture(db, settings, captures):
    data = (captures / "dns_demo.pcap").read_bytes()
    with db.session() as s:
        first, created = store_capture(s, settings.capture_dir, io.BytesIO(data), name="a.pcap",
                                       uploaded_by="alice", max_bytes=settings.max_capture_bytes)
        assert created and first.status == "queued" and first.format == "pcap"
    with db.session() as s:
        second, created = store_capture(s, settings.capture_dir, io.BytesIO(data), name="b.pcap",
                                        uploaded_by="bob", max_bytes=settings.max_capture_bytes)
        assert not created and second.id == first.id and second.name == "a.pcap"
    stored = capture_path(settings.capture_dir, first.sha256)
    assert stored.read_bytes() == data
    assert [p.name for p in settings.capture_dir.rglob("*") if p.is_file()] == [first.sha256]


def test_format_is_sniffed_from_bytes_not_name(db, settings, captures):
    data = (captures / "telegram_voice.pcapng").read_bytes()
    with db.session() as s:
        capture, _ = store_capture(s, settings.capture_dir, io.BytesIO(gzip.compress(data)),
                                   name="voice.txt", uploaded_by="system", max_bytes=1 << 30)
        assert capture.format == "pcapng+gzip"


class CountingStream(io.RawIOBase):
    """An endless pcap-looking stream that counts how much was pulled from it."""

    def __init__(self, head: bytes) -> None:
        self.head, self.pulled = head, 0

    def read(self, n=-1):
        n = 1 << 20 if n is None or n < 0 else n
        chunk = (self.head if self.pulled == 0 else b"\0" * n)[:n]
        self.pulled += len(chunk)
        return chunk


def test_size_limit_is_checked_while_streaming(db, settings, captures):
    stream = CountingStream((captures / "dns_demo.pcap").read_bytes()[:24])
    with db.session() as s, pytest.raises(CaptureTooLarge, match="larger than the limit of 3000000"):
        store_capture(s, settings.capture_dir, stream, name="big", uploaded_by="system",
                      max_bytes=3_000_000)
    assert stream.pulled < 3_000_000 + (2 << 20)  # stopped within a chunk of the limit
    assert not any(p.is_file() for p in settings.capture_dir.rglob("*"))  # nothing left behind


def test_not_a_capture_is_refused_and_nothing_is_stored(db, settings):
    with db.session() as s, pytest.raises(UnusableCapture, match="match no pcap or pcapng magic"):
        store_capture(s, settings.capture_dir, io.BytesIO(b"GIF89a" + b"\0" * 100), name="x.pcap",
                      uploaded_by="system", max_bytes=1 << 20)
    assert not any(p.is_file() for p in settings.capture_dir.rglob("*"))


def test_find_capture_by_id_prefix_and_sha(db, settings, captures):
    with db.session() as s:
        capture, _ = store_capture(s, settings.capture_dir, open(captures / "ftp.pcap", "rb"),
                                   name="ftp.pcap", uploaded_by="system", max_bytes=1 << 30)
    with db.session() as s:
        assert find_capture(s, capture.id).id == capture.id
        assert find_capture(s, capture.id[:6]).id == capture.id
        assert find_capture(s, capture.sha256.upper()).id == capture.id
        with pytest.raises(NotFound, match="no capture with id, prefix or sha256 'ffff0000'"):
            find_capture(s, "ffff0000")


def test_an_upload_that_breaks_off_leaves_no_temporary_file(db, settings, captures):
    data = (captures / "dns_demo.pcap").read_bytes()

    def cut_off():
        yield data[:1000]
        raise ConnectionResetError("client went away")
    with db.session() as s, pytest.raises(ConnectionResetError):
        store_capture(s, settings.capture_dir, cut_off(), name="a.pcap", uploaded_by="alice",
                      max_bytes=settings.max_capture_bytes)
    assert list(settings.capture_dir.iterdir()) == []


def test_temporary_files_of_killed_uploads_are_swept_but_live_ones_stay(settings):
    settings.capture_dir.mkdir(parents=True)
    orphan = settings.capture_dir / f"{UPLOAD_PREFIX}orphan"
    live = settings.capture_dir / f"{UPLOAD_PREFIX}live"
    kept = settings.capture_dir / "ab" / ("ab" + "0" * 62)
    for path in (orphan, live, kept):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"x")
    hours_ago = time.time() - 2 * STALE_UPLOAD_SECONDS
    os.utime(orphan, (hours_ago, hours_ago))
    os.utime(kept, (hours_ago, hours_ago))
    assert sweep_stale_uploads(settings.capture_dir) == 1
    assert not orphan.exists() and live.exists() and kept.exists()
    assert sweep_stale_uploads(settings.data_dir / "nowhere") == 0


def test_half_written_decompressed_copies_of_killed_requests_are_swept(settings):
    """The frame view's `.inflate-*` beside a stored capture: a stale one goes at start, one
    being written (fresh) stays, and so do the capture and its finished copy."""
    folder = settings.capture_dir / "ab"
    folder.mkdir(parents=True)
    capture = folder / ("ab" + "0" * 62)
    orphan = folder / f"{INFLATE_PREFIX}{capture.name}-killed"
    live = folder / f"{INFLATE_PREFIX}{capture.name}-writing"
    copy = folder / (capture.name + DECOMPRESSED_SUFFIX)
    hours_ago = time.time() - 2 * STALE_UPLOAD_SECONDS
    for path in (capture, orphan, live, copy):
        path.write_bytes(b"x")
        if path is not live:
            os.utime(path, (hours_ago, hours_ago))
    assert sweep_stale_uploads(settings.capture_dir) == 1
    assert not orphan.exists() and live.exists() and capture.exists() and copy.exists()


def test_the_working_directory_of_a_killed_sharded_walk_is_swept(settings):
    """Spill files and conversation runs beside a capture (extract/spill.py): a directory whose
    newest file is stale goes, a live walk's stays."""
    from tracepcap.ingest.store import SHARD_DIR_PREFIX
    folder = settings.capture_dir / "ab"
    killed, live = folder / f"{SHARD_DIR_PREFIX}killed", folder / f"{SHARD_DIR_PREFIX}live"
    hours_ago = time.time() - 2 * STALE_UPLOAD_SECONDS
    for work in (killed, live):
        work.mkdir(parents=True)
        (work / "spill-0-1").write_bytes(b"x")
        (work / "run-1").write_bytes(b"x")
        os.utime(work / "spill-0-1", (hours_ago, hours_ago))
        os.utime(work, (hours_ago, hours_ago))
    os.utime(killed / "run-1", (hours_ago, hours_ago))
    assert sweep_stale_uploads(settings.capture_dir) == 1
    assert not killed.exists() and live.exists()
