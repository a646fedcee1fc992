"""The streaming reader: every container variant, and bad files that must not crash or hang."""

from __future__ import annotations

import gzip
import io
import random
import struct

import pytest

from tracepcap.errors import UnusableCapture
from tracepcap.extract.packet import decode_frame
from tracepcap.extract.reader import CaptureReader
from tracepcap.limits import Limits
from tracepcap.testing import frames
from tracepcap.testing.writers import PcapngWriter, PcapWriter

T0 = 1_700_000_000.123456789


def udp_frame(i: int) -> bytes:
    payload = frames.udp("10.0.0.1", "10.0.0.2", 40000 + i, 53, b"x" * i)
    return frames.ethernet("00:00:0c:00:00:01", "00:1b:21:00:00:02", 0x0800,
                           frames.ipv4("10.0.0.1", "10.0.0.2", 17, payload))


def write_pcap(path, n=5, **kw):
    with open(path, "wb") as f:
        w = PcapWriter(f, **kw)
        for i in range(n):
            w.write(T0 + i, udp_frame(i))
    return path


def read_all(path):
    with CaptureReader(path) as reader:
        out = [(lt, ts, orig, bytes(data)) for lt, ts, orig, data in reader.records()]
        return reader, out


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("nanos", [False, True])
def test_pcap_byte_orders_and_resolutions(tmp_path, big_endian, nanos):
    path = write_pcap(tmp_path / "a.pcap", big_endian=big_endian, nanos=nanos)
    reader, records = read_all(path)
    assert reader.format == ("pcap-ns" if nanos else "pcap")
    assert reader.partial is None and reader.packets == 5
    assert [r[3] for r in records] == [udp_frame(i) for i in range(5)]
    assert records[1][1] == pytest.approx(T0 + 1, abs=1e-6)
    assert all(r[0] == 1 for r in records)


def test_pcapng_sections_interfaces_and_link_types(tmp_path):
    ip = frames.ipv4("192.0.2.1", "192.0.2.2", 17, frames.udp("192.0.2.1", "192.0.2.2", 1, 2, b"hi"))
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.section()
    eth = w.interface(1)
    raw = w.interface(101, tsresol_nanos=True)
    w.write(T0, udp_frame(0), iface=eth)
    w.write(T0 + 0.5, ip, iface=raw)
    w.raw_block(0x0BAD0BAD, b"unknown block body")  # unknown types are skipped
    w.section()  # a second section restarts interface numbering
    sll2 = w.interface(276)
    w.write(T0 + 1, frames.linux_sll2("00:1b:21:00:00:09", 0x0800, ip), iface=sll2)
    w.write_simple(frames.linux_sll2("00:1b:21:00:00:09", 0x0800, ip))
    path = tmp_path / "multi.pcap"  # named .pcap, pcapng inside: sniffed from the bytes
    path.write_bytes(buf.getvalue())
    reader, records = read_all(path)
    assert reader.format == "pcapng" and reader.partial is None
    assert [r[0] for r in records] == [1, 101, 276, 276]
    assert records[1][1] == pytest.approx(T0 + 0.5, abs=1e-6)  # a float holds ~0.2 us at 1.7e9 s
    pkt = decode_frame(records[2][0], memoryview(records[2][3]), 3, records[2][1], 0)
    assert (pkt.src, pkt.dst, pkt.src_mac.hex(":")) == ("192.0.2.1", "192.0.2.2", "00:1b:21:00:00:09")


def test_pcapng_big_endian(tmp_path):
    buf = io.BytesIO()
    w = PcapngWriter(buf, big_endian=True)
    w.interface(1)
    w.write(T0, udp_frame(3))
    (tmp_path / "be.pcapng").write_bytes(buf.getvalue())
    reader, records = read_all(tmp_path / "be.pcapng")
    assert reader.partial is None and records[0][3] == udp_frame(3)


def test_gzip_compressed_capture(tmp_path):
    plain = write_pcap(tmp_path / "a.pcap").read_bytes()
    (tmp_path / "a.pcap.gz").write_bytes(gzip.compress(plain))
    reader, records = read_all(tmp_path / "a.pcap.gz")
    assert reader.format == "pcap+gzip" and len(records) == 5 and reader.partial is None


def test_truncated_gzip_keeps_what_was_read(tmp_path):
    plain = write_pcap(tmp_path / "a.pcap", n=200).read_bytes()
    packed = gzip.compress(plain)
    (tmp_path / "cut.pcap.gz").write_bytes(packed[: len(packed) // 2])
    reader, records = read_all(tmp_path / "cut.pcap.gz")
    assert 0 < len(records) < 200 and reader.partial


def test_every_truncation_point_reads_a_prefix(tmp_path):
    """Cut the file at every byte: the reader returns whole records only, says partial when
    a record was cut, and never raises."""
    full = write_pcap(tmp_path / "a.pcap", n=3).read_bytes()
    for cut in range(24, len(full)):
        path = tmp_path / "cut.pcap"
        path.write_bytes(full[:cut])
        reader, records = read_all(path)
        complete_records = 0
        offset = 24
        for i in range(3):
            offset += 16 + len(udp_frame(i))
            if offset <= cut:
                complete_records += 1
        assert len(records) == complete_records, cut
        boundary = cut in {24 + sum(16 + len(udp_frame(j)) for j in range(k)) for k in range(4)}
        assert (reader.partial is None) == boundary, (cut, reader.partial)


def test_record_longer_than_the_file_is_partial(tmp_path):
    data = bytearray(write_pcap(tmp_path / "a.pcap", n=2).read_bytes())
    second = 24 + 16 + len(udp_frame(0))
    data[second + 8:second + 12] = (5000).to_bytes(4, "little")  # incl_len past the end
    (tmp_path / "long.pcap").write_bytes(bytes(data))
    reader, records = read_all(tmp_path / "long.pcap")
    assert len(records) == 1
    assert "record 2 claims 5000 bytes but the file ends" in reader.partial


def test_absurd_record_length_is_partial(tmp_path):
    data = bytearray(write_pcap(tmp_path / "a.pcap", n=1).read_bytes())
    data[24 + 8:24 + 12] = (0x7FFFFFFF).to_bytes(4, "little")
    (tmp_path / "absurd.pcap").write_bytes(bytes(data))
    reader, records = read_all(tmp_path / "absurd.pcap")
    assert records == [] and "more than any frame" in reader.partial


def test_pcapng_corrupt_block_length_is_partial(tmp_path):
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.interface(1)
    w.write(T0, udp_frame(1))
    w.write(T0, udp_frame(2))
    data = bytearray(buf.getvalue())
    data[-4:] = (13).to_bytes(4, "little")  # trailing length no longer matches
    (tmp_path / "bad.pcapng").write_bytes(bytes(data))
    reader, records = read_all(tmp_path / "bad.pcapng")
    assert len(records) == 1 and "mismatched trailing length" in reader.partial


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"<!DOCTYPE html><html>", "first bytes 3c21444f match no pcap or pcapng magic"),
])
def test_not_a_capture(tmp_path, content, message):
    (tmp_path / "x.pcap").write_bytes(content)
    with pytest.raises(UnusableCapture, match=message):
        CaptureReader(tmp_path / "x.pcap")


def test_random_bytes_are_refused_or_read_without_crashing(tmp_path):
    rng = random.Random(7)
    for _ in range(50):
        (tmp_path / "r.bin").write_bytes(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400))))
        with pytest.raises(UnusableCapture):
            CaptureReader(tmp_path / "r.bin")


def test_random_bytes_after_a_valid_header_end_partial(tmp_path):
    rng = random.Random(11)
    header = write_pcap(tmp_path / "a.pcap", n=0).read_bytes()
    for _ in range(30):
        tail = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 2000)))
        (tmp_path / "r.pcap").write_bytes(header + tail)
        reader, records = read_all(tmp_path / "r.pcap")
        # it returns; either the records tile the file exactly, or it says where it stopped
        assert reader.partial or sum(16 + len(r[3]) for r in records) == len(tail)


# -- hostile captures (issue 17, items 3, 6, 7) ------------------------------------------------

@pytest.mark.parametrize("block_type", [0x00000006, 0x00000002])  # EPB, PB
@pytest.mark.parametrize("body", [b"", b"\x00" * 4, b"\x00" * 8, b"\x00" * 12])
def test_a_short_packet_block_at_the_end_is_a_truncation(tmp_path, block_type, body):
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.interface(1)
    w.write(T0, udp_frame(1))
    w.write(T0 + 1, udp_frame(2))
    w.raw_block(block_type, body)  # 12-24 bytes: too short to hold a packet header
    (tmp_path / "short.pcapng").write_bytes(buf.getvalue())
    reader, records = read_all(tmp_path / "short.pcapng")
    assert [r[3] for r in records] == [udp_frame(1), udp_frame(2)]  # nothing before it is lost
    assert f"block of type {block_type:#x} has impossible length {12 + len(body)}" in reader.partial


def test_an_interface_option_overrunning_its_block_keeps_the_interface(tmp_path):
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.section()
    # if_tsoffset (14) claiming 8 bytes with only 4 left in the block
    w.raw_block(0x00000001, struct.pack("<HHI", 1, 0, 65535) + struct.pack("<HH", 14, 8) + b"\x00" * 4)
    w._units, w._snaplens = [1_000_000], [65535]
    w.write(T0, udp_frame(1))
    (tmp_path / "opt.pcapng").write_bytes(buf.getvalue())
    reader, records = read_all(tmp_path / "opt.pcapng")
    assert reader.partial is None and [r[3] for r in records] == [udp_frame(1)]


@pytest.mark.parametrize("cut", [30, 40, 50, 63])
def test_a_gzip_cut_in_its_first_64_bytes_reads_like_the_same_cut_uncompressed(tmp_path, cut):
    plain = write_pcap(tmp_path / "a.pcap", n=3).read_bytes()[:cut]
    (tmp_path / "cut.pcap").write_bytes(plain)
    (tmp_path / "cut.pcap.gz").write_bytes(gzip.compress(plain)[:-8])  # no trailer: a cut stream
    plain_reader, plain_records = read_all(tmp_path / "cut.pcap")
    gz_reader, gz_records = read_all(tmp_path / "cut.pcap.gz")
    assert gz_records == plain_records and plain_reader.partial and gz_reader.partial
    assert plain_reader.partial in gz_reader.partial  # the same sentence, plus the stream's


def test_corrupt_gzip_is_partial_not_zlib_error(tmp_path):
    plain = write_pcap(tmp_path / "a.pcap", n=200).read_bytes()
    packed = bytearray(gzip.compress(plain))
    packed[len(packed) // 2:len(packed) // 2 + 4] = b"\xff\xff\xff\xff"
    (tmp_path / "bad.pcap.gz").write_bytes(bytes(packed))
    reader, records = read_all(tmp_path / "bad.pcap.gz")
    # the damage decodes to garbage first or stops zlib: either way a partial with a reason
    assert 0 < len(records) < 200 and reader.partial
    assert [r[3] for r in records[:5]] == [udp_frame(i) for i in range(5)]


def test_records_past_the_limit_are_not_read(tmp_path):
    write_pcap(tmp_path / "a.pcap", n=10)
    with CaptureReader(tmp_path / "a.pcap", Limits(max_records=4)) as reader:
        records = list(reader.records())
    assert len(records) == 4 and reader.packets == 4
    assert reader.partial.startswith("the capture holds more than 4 records, the limit "
                                     "TRACEPCAP_MAX_RECORDS; the rest was not read (after 4 packets")


def test_a_gzip_bomb_stops_at_the_decompressed_byte_limit(tmp_path):
    """Zeros after a pcap header are 16-byte empty records: 64 MiB of them compress to ~64
    KiB. The walk stops at the byte limit with a sentence, having read only that far."""
    header = write_pcap(tmp_path / "a.pcap", n=0).read_bytes()
    with gzip.open(tmp_path / "bomb.pcap.gz", "wb") as f:
        f.write(header)
        for _ in range(64):
            f.write(bytes(1 << 20))
    assert (tmp_path / "bomb.pcap.gz").stat().st_size < 200_000
    with CaptureReader(tmp_path / "bomb.pcap.gz", Limits(max_read_bytes=1 << 20)) as reader:
        count = sum(1 for _ in reader.records())
        assert reader.bytes_read < 200_000  # it did not decompress the rest to find the end
    assert count == ((1 << 20) - 24) // 16
    assert "more than 1048576 bytes (after decompression), the limit " \
           "TRACEPCAP_MAX_DECOMPRESSED_BYTES" in reader.partial


# -- decompression ratio (issue 23, item 7) ----------------------------------------------------

def test_a_gzip_of_zeros_stops_at_the_decompression_ratio_fast(tmp_path):
    """A pcap header and 256 MiB of zeros (~256 KB gzip'd) is a bomb by its ratio alone: the
    walk stops after a few MiB, partial, naming the setting, under every other limit."""
    header = write_pcap(tmp_path / "a.pcap", n=0).read_bytes()
    with gzip.open(tmp_path / "bomb.pcap.gz", "wb") as f:
        f.write(header)
        for _ in range(256):
            f.write(bytes(1 << 20))
    with CaptureReader(tmp_path / "bomb.pcap.gz") as reader:
        count = sum(1 for _ in reader.records())
    assert count < (8 << 20) // 16  # stopped within the first few MiB, not at 256 MiB
    assert reader.stopped_by == "TRACEPCAP_MAX_DECOMPRESSION_RATIO"
    assert "decompresses to more than 1000 times its compressed size, the limit " \
           "TRACEPCAP_MAX_DECOMPRESSION_RATIO; the rest was not read" in reader.partial


def test_repeated_records_past_a_configured_ratio_stop_but_real_ones_read_whole(tmp_path):
    """The same UDP frame 200,000 times (one timestamp) deflates ~200:1: past a ratio of 50 it
    stops; the default ratio reads it whole, as it does a capture of varied frames."""
    path = tmp_path / "same.pcap.gz"
    with gzip.open(path, "wb") as f:
        w = PcapWriter(f)
        for _ in range(200_000):
            w.write(T0, udp_frame(3))
    with CaptureReader(path, Limits(max_decompression_ratio=50)) as reader:
        limited = sum(1 for _ in reader.records())
    assert limited < 200_000 and "TRACEPCAP_MAX_DECOMPRESSION_RATIO" in reader.partial
    reader, records = read_all(path)
    assert len(records) == 200_000 and reader.partial is None


# -- the checks the frame view shares (issue 23, item 5) ---------------------------------------

def test_an_epb_naming_an_interface_without_an_idb_ends_the_walk(tmp_path):
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.interface(1)
    w.write(T0, udp_frame(1))
    w.raw_block(0x00000006, struct.pack("<IIIII", 3, 0, 0, 4, 4) + b"abcd")  # interface 3: none
    w.write(T0 + 1, udp_frame(2))
    (tmp_path / "a.pcapng").write_bytes(buf.getvalue())
    reader, records = read_all(tmp_path / "a.pcapng")
    assert [r[3] for r in records] == [udp_frame(1)]
    assert "packet block names interface 3 of 1" in reader.partial
