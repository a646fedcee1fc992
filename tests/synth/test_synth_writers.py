"""pcap and pcapng writers, read back by dpkt (and by tshark when it is installed)."""

from __future__ import annotations

import io
import struct
import subprocess

import dpkt
import pytest

from tracepcap.testing.writers import PcapngWriter, PcapWriter

FRAME_A = bytes(range(60))
FRAME_B = b"\xff" * 6 + bytes(range(100))
TS_A, TS_B = 1_700_000_000.123456, 1_700_000_001.5


def _pcap(**kwargs) -> bytes:
    buf = io.BytesIO()
    writer = PcapWriter(buf, **kwargs)
    writer.write(TS_A, FRAME_A)
    writer.write(TS_B, FRAME_B)
    return buf.getvalue()


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("nanos", [False, True])
def test_pcap_reads_back_with_dpkt(nanos, big_endian):
    data = _pcap(nanos=nanos, big_endian=big_endian)
    reader = dpkt.pcap.Reader(io.BytesIO(data))
    assert reader.datalink() == dpkt.pcap.DLT_EN10MB
    packets = list(reader)
    assert [frame for _, frame in packets] == [FRAME_A, FRAME_B]
    assert float(packets[0][0]) == pytest.approx(TS_A, abs=1e-6)  # nanos: dpkt gives Decimal
    assert float(packets[1][0]) == pytest.approx(TS_B, abs=1e-6)


def test_pcap_magic_and_nanosecond_fraction():
    data = _pcap(nanos=True)
    assert data[:4] == struct.pack("<I", 0xA1B23C4D)
    header = dpkt.pcap.LEPktHdr(data[24:40])
    assert (header.tv_sec, header.tv_usec) == (1_700_000_000, 123456001)  # float rounding
    assert _pcap(big_endian=True)[:4] == b"\xa1\xb2\xc3\xd4"


def test_pcap_snaplen_cuts_the_frame_but_keeps_the_original_length():
    buf = io.BytesIO()
    PcapWriter(buf, snaplen=32, linktype=113).write(TS_A, FRAME_B)
    reader = dpkt.pcap.Reader(io.BytesIO(buf.getvalue()))
    assert reader.datalink() == 113 and reader.snaplen == 32
    header = dpkt.pcap.LEPktHdr(buf.getvalue()[24:40])
    assert (header.caplen, header.len) == (32, len(FRAME_B))
    assert [frame for _, frame in reader] == [FRAME_B[:32]]


def _blocks(data: bytes, bo: str = "<") -> list[tuple[int, bytes]]:
    """(type, whole block) pairs, walked by the total-length field and its trailing copy."""
    blocks, at = [], 0
    while at < len(data):
        kind, length = struct.unpack_from(bo + "II", data, at)
        assert length % 4 == 0 and struct.unpack_from(bo + "I", data, at + length - 4)[0] == length
        blocks.append((kind, data[at:at + length]))
        at += length
    return blocks


@pytest.mark.parametrize("big_endian", [False, True])
def test_pcapng_reads_back_with_dpkt(big_endian):
    buf = io.BytesIO()
    writer = PcapngWriter(buf, big_endian=big_endian)
    assert writer.interface(1) == 0
    writer.write(TS_A, FRAME_A)
    writer.write(TS_B, FRAME_B, orig_len=500)
    packets = list(dpkt.pcapng.Reader(io.BytesIO(buf.getvalue())))
    assert [frame for _, frame in packets] == [FRAME_A, FRAME_B]
    assert packets[0][0] == pytest.approx(TS_A, abs=1e-6)
    kinds = [kind for kind, _ in _blocks(buf.getvalue(), ">" if big_endian else "<")]
    assert kinds == [0x0A0D0D0A, 1, 6, 6]
    epb_cls = dpkt.pcapng.EnhancedPacketBlock if big_endian else dpkt.pcapng.EnhancedPacketBlockLE
    epb = epb_cls(_blocks(buf.getvalue(), ">" if big_endian else "<")[3][1])
    assert (epb.caplen, epb.pkt_len) == (len(FRAME_B), 500)


def test_pcapng_nanosecond_interface_sets_if_tsresol():
    buf = io.BytesIO()
    writer = PcapngWriter(buf)
    writer.interface(1, tsresol_nanos=True)
    writer.write(TS_A, FRAME_A)
    reader = dpkt.pcapng.Reader(io.BytesIO(buf.getvalue()))
    tsresol = [opt.data for opt in reader.idb.opts if opt.code == dpkt.pcapng.PCAPNG_OPT_IF_TSRESOL]
    assert tsresol == [b"\x09"]
    (ts, frame), = list(reader)
    assert frame == FRAME_A and ts == pytest.approx(TS_A, abs=1e-6)
    epb = dpkt.pcapng.EnhancedPacketBlockLE(_blocks(buf.getvalue())[2][1])
    assert (epb.ts_high << 32 | epb.ts_low) == 1_700_000_000_123_456_001  # the float's value


def test_pcapng_sections_interfaces_unknown_and_simple_blocks():
    buf = io.BytesIO()
    writer = PcapngWriter(buf)
    writer.section()
    writer.interface(1)
    writer.interface(113, tsresol_nanos=True)
    writer.write(TS_A, FRAME_A, iface=1)
    writer.raw_block(0x0BAD, b"unknown block body")
    writer.section()  # interface ids restart per section
    with pytest.raises(ValueError, match="interface must be"):
        writer.write(TS_B, FRAME_B, iface=1)
    writer.interface(1)
    writer.write_simple(FRAME_B)
    blocks = _blocks(buf.getvalue())
    assert [kind for kind, _ in blocks] == [0x0A0D0D0A, 1, 1, 6, 0x0BAD, 0x0A0D0D0A, 1, 3]
    shb = dpkt.pcapng.SectionHeaderBlockLE(blocks[0][1])
    assert (shb.bom, shb.v_major, shb.sec_len) == (0x1A2B3C4D, 1, -1)
    assert dpkt.pcapng.InterfaceDescriptionBlockLE(blocks[2][1]).linktype == 113
    epb = dpkt.pcapng.EnhancedPacketBlockLE(blocks[3][1])
    assert (epb.iface_id, epb.pkt_data) == (1, FRAME_A)
    spb = blocks[7][1]  # SPB: type, length, original length, data, length (pcapng 4.4)
    assert struct.unpack_from("<I", spb, 8)[0] == len(FRAME_B)
    assert spb[12:12 + len(FRAME_B)] == FRAME_B


def test_tshark_reads_multi_section_pcapng(tmp_path):
    path = tmp_path / "multi.pcapng"
    with open(path, "wb") as out:
        writer = PcapngWriter(out)
        writer.interface(1)
        writer.write(TS_A, FRAME_A)
        writer.section()
        writer.interface(1, tsresol_nanos=True)
        writer.write(TS_B, FRAME_B)
    result = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-e", "frame.len",
                             "-e", "frame.time_epoch"], capture_output=True, text=True,
                            check=True)
    rows = [line.split("\t") for line in result.stdout.split("\n") if line]
    assert [int(row[0]) for row in rows] == [len(FRAME_A), len(FRAME_B)]
    assert float(rows[1][1]) == pytest.approx(TS_B, abs=1e-6)
