"""The frame index and its cursor: any frame read from the nearest mark gives the record the
full walk gives, for every container variant; a slice re-reads as the same frames."""

from __future__ import annotations

import gzip
import io
import struct
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tracepcap.errors import CaptureTooLarge
from tracepcap.extract import frame_index
from tracepcap.extract.frame_index import FrameCursor, FrameIndex, build, index_path, load_or_build, readable
from tracepcap.extract.reader import CaptureReader
from tracepcap.limits import Limits
from tracepcap.extract.slices import pcapng_slice
from tracepcap.testing import frames
from tracepcap.testing.writers import PcapngWriter, PcapWriter

T0 = 1_700_000_000.123456789
N = 40


def udp_frame(i: int) -> bytes:
    payload = frames.udp("10.0.0.1", "10.0.0.2", 40000 + i, 53, b"x" * (i % 7))
    return frames.ethernet("00:00:0c:00:00:01", "00:1b:21:00:00:02", 0x0800,
                           frames.ipv4("10.0.0.1", "10.0.0.2", 17, payload))


def pcap_bytes(**kw) -> bytes:
    buf = io.BytesIO()
    w = PcapWriter(buf, **kw)
    for i in range(N):
        w.write(T0 + i / 10, udp_frame(i))
    return buf.getvalue()


def pcapng_bytes() -> bytes:
    """Two sections of opposite byte order, two interfaces (microseconds, nanoseconds) in the
    first and an SLL2 one in the second."""
    little, big = io.BytesIO(), io.BytesIO()
    w = PcapngWriter(little)
    eth = w.interface(1, name="eth0")
    raw = w.interface(101, tsresol_nanos=True, name="tun0")
    for i in range(N // 2):
        if i % 3:
            w.write(T0 + i, udp_frame(i), iface=eth)
        else:
            w.write(T0 + i, udp_frame(i)[14:], iface=raw)
    w2 = PcapngWriter(big, big_endian=True)
    w2.interface(276)
    for i in range(N // 2, N):
        w2.write(T0 + i, frames.linux_sll2("00:1b:21:00:00:09", 0x0800, udp_frame(i)[14:]))
    return little.getvalue() + big.getvalue()


VARIANTS = {
    "pcap": lambda: pcap_bytes(),
    "pcap-big-ns": lambda: pcap_bytes(big_endian=True, nanos=True),
    "pcapng": pcapng_bytes,
    "pcap-gzip": lambda: gzip.compress(pcap_bytes()),
    "pcapng-gzip": lambda: gzip.compress(pcapng_bytes()),
}


def walk(path):
    with CaptureReader(path) as reader:
        return [(lt, ts, orig, bytes(data)) for lt, ts, orig, data in reader.records()]


@pytest.fixture(params=sorted(VARIANTS))
def capture(request, tmp_path):
    path = tmp_path / "capture"
    path.write_bytes(VARIANTS[request.param]())
    return path


def small_index(path) -> FrameIndex:
    """An index marking every 7th frame, so reads start from marks in the middle."""
    index = FrameIndex(every=7)
    with CaptureReader(path, recorder=index) as reader:
        index.format = reader.format
        for _ in reader.records():
            pass
        index.frames = reader.packets
    return index


def test_every_frame_from_its_mark_is_the_walks_record(capture):
    records = walk(capture)
    index = small_index(capture)
    assert index.frames == len(records) == N
    assert [m[0] for m in index.marks] == list(range(1, N + 1, 7))
    with FrameCursor(readable(capture, index), index) as cursor:
        for n in range(1, N + 1):
            frame = next(cursor.frames_from(n))
            linktype, ts, orig, data = records[n - 1]
            assert (frame.number, frame.linktype(index), frame.orig_len, frame.data) == (n, linktype, orig, data)
            assert frame.time(index) == pytest.approx(ts, abs=1e-6)
        assert [f.number for f in cursor.frames_from(35)] == [35, 36, 37, 38, 39, 40]


def test_the_index_round_trips_through_its_file(capture):
    index = build(capture)
    index.save(index_path(capture))
    again = load_or_build(capture)
    assert again.to_json() == index.to_json()
    assert again.frames == N and again.marks[0][0] == 1


def test_a_missing_index_is_built_on_first_use(capture):
    assert not index_path(capture).exists()
    assert load_or_build(capture).frames == N
    assert index_path(capture).exists()


def test_a_slice_reads_back_as_the_same_frames_with_their_numbers(capture, tmp_path):
    records = walk(capture)
    index = small_index(capture)
    wanted = [2, 3, 9, 21, 22, 40]
    with FrameCursor(readable(capture, index), index) as cursor:
        chosen = [f for f in cursor.frames_from(1) if f.number in wanted]
        sliced = b"".join(pcapng_slice(index, chosen, "original.pcap"))
    out = tmp_path / "slice.pcapng"
    out.write_bytes(sliced)
    again = walk(out)
    assert [r[3] for r in again] == [records[n - 1][3] for n in wanted]
    assert [r[0] for r in again] == [records[n - 1][0] for n in wanted]
    assert [r[1] for r in again] == pytest.approx([records[n - 1][1] for n in wanted], abs=1e-6)
    for n in wanted:
        assert f"frame {n} of original.pcap".encode() in sliced


def test_a_gzipd_capture_is_decompressed_once_beside_it(tmp_path):
    path = tmp_path / "capture"
    path.write_bytes(gzip.compress(pcap_bytes()))
    index = build(path)
    plain = readable(path, index)
    assert plain != path and plain.read_bytes() == pcap_bytes()
    stamp = plain.stat().st_mtime_ns
    assert readable(path, index) == plain and plain.stat().st_mtime_ns == stamp
    assert readable(path, index, Limits(max_read_bytes=100)).stat().st_size == len(pcap_bytes())  # made once: kept
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".inflate-")]


# -- the cursor reads what the walk accepted (issue 23, item 5) --------------------------------

def epb(iface: int, data: bytes) -> bytes:
    return struct.pack("<IIIII", iface, 0, 0, len(data), len(data)) + data


MALFORMED = {
    # an EPB naming interface 5 when the section has two (the second defined after it)
    "interface-without-idb": lambda w: w.raw_block(0x00000006, epb(5, udp_frame(9))),
    # an EPB of 16 bytes, shorter than its 20 bytes of fixed fields, last in the file
    "epb-shorter-than-its-fields": lambda w: w.raw_block(0x00000006, b"\x00" * 4),
    # a PB naming an interface the section does not have
    "pb-interface-without-idb": lambda w: w.raw_block(0x00000002, struct.pack("<HHIIII", 7, 0, 0, 0, 4, 4) + b"abcd"),
}


@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_the_cursor_stops_where_the_walk_stopped_on_a_malformed_block(tmp_path, shape):
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.interface(1)
    for i in range(10):
        w.write(T0 + i, udp_frame(i))
    MALFORMED[shape](w)
    if shape != "epb-shorter-than-its-fields":
        w.interface(101)
        w.write(T0 + 20, udp_frame(20))
    path = tmp_path / "capture"
    path.write_bytes(buf.getvalue())
    records = walk(path)
    index = small_index(path)
    assert index.frames == len(records) == 10
    with FrameCursor(readable(path, index), index) as cursor:
        seen = list(cursor.frames_from(1))
        assert [(f.number, f.data) for f in seen] == [(n + 1, records[n][3]) for n in range(10)]
        assert [f.time(index) for f in seen] == pytest.approx([r[1] for r in records], abs=1e-6)
        assert [f.number for f in cursor.frames_at([9, 10, 11])] == [9, 10]
        assert [f.number for f in cursor.frames_from(10)] == [10]


# -- the gzip'd copy: once, bounded, swept (issue 23, item 1) ---------------------------------

def test_concurrent_first_requests_make_one_copy(tmp_path, monkeypatch):
    path = tmp_path / "capture"
    path.write_bytes(gzip.compress(pcap_bytes()))
    index = build(path)
    made = []
    mkstemp = frame_index.tempfile.mkstemp

    def slow_mkstemp(*args, **kw):  # widen the window in which a second copy could start
        made.append(kw.get("prefix"))
        time.sleep(0.2)
        return mkstemp(*args, **kw)

    monkeypatch.setattr(frame_index.tempfile, "mkstemp", slow_mkstemp)
    with ThreadPoolExecutor(6) as pool:
        paths = list(pool.map(lambda _: readable(path, index), range(6)))
    assert len(set(paths)) == 1 and paths[0].read_bytes() == pcap_bytes()
    assert len(made) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".inflate-")]


def test_the_copy_ends_where_the_walk_stopped(tmp_path):
    """Past the record limit nothing is copied: the copy is the bytes the index can reach."""
    path = tmp_path / "capture"
    path.write_bytes(gzip.compress(pcap_bytes()))
    index = build(path, Limits(max_records=5))
    assert index.frames == 5
    plain = readable(path, index)
    assert plain.stat().st_size == index.end < len(pcap_bytes())
    with FrameCursor(plain, index) as cursor:
        assert [f.number for f in cursor.frames_from(1)] == [1, 2, 3, 4, 5]


def zero_bomb(path, mib: int = 64) -> None:
    with gzip.open(path, "wb") as f:
        f.write(pcap_bytes()[:24])
        for _ in range(mib):
            f.write(bytes(1 << 20))


def test_a_bomb_is_refused_not_copied(tmp_path):
    path = tmp_path / "capture"
    zero_bomb(path)
    index = build(path)
    assert index.stopped_by == "TRACEPCAP_MAX_DECOMPRESSION_RATIO"
    with pytest.raises(CaptureTooLarge, match="decompresses to more than 1000 times"):
        readable(path, index)
    assert [p.name for p in tmp_path.iterdir()] == ["capture"]


def test_a_copy_inflating_past_the_ratio_is_refused_and_removed(tmp_path):
    """An index walked under a looser ratio (or before the limit existed): the copy checks the
    ratio itself, and leaves nothing behind."""
    path = tmp_path / "capture"
    zero_bomb(path)
    index = build(path, Limits(max_decompression_ratio=10**6, max_records=10**6))
    assert index.stopped_by == "TRACEPCAP_MAX_RECORDS"
    with pytest.raises(CaptureTooLarge, match="TRACEPCAP_MAX_DECOMPRESSION_RATIO"):
        readable(path, index)
    assert [p.name for p in tmp_path.iterdir()] == ["capture"]


def test_a_killed_writers_half_copy_is_removed_by_the_next_writer(tmp_path):
    path = tmp_path / "capture"
    path.write_bytes(gzip.compress(pcap_bytes()))
    left = tmp_path / ".inflate-capture-killed"
    left.write_bytes(b"half")
    readable(path, build(path))
    assert not left.exists()
