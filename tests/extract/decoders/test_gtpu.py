"""GTP-U headers: a real G-PDU from free5gc, optional fields, extension header chains,
path management, and what is not GTPv1-U."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, gtpu
from tracepcap.testing import tunnels as t

PACKET = b"\x45" + bytes(27)


def test_real_g_pdu(carrier_payload):
    # free5gc.pcap frame 249: flags 0x32 (sequence number present), T-PDU, length 52, TEID 1;
    # an ICMP echo request from the UE 60.60.0.1 follows at offset 12
    data = carrier_payload("free5gc.pcap", 249)
    teid, msg_type, inner, end = gtpu.decode(data, 0)
    assert (teid, msg_type, inner, end) == (1, gtpu.G_PDU, 12, 60)
    assert data[inner:inner + 1] == b"\x45" and data[inner + 12:inner + 16] == bytes((60, 60, 0, 1))


def test_extension_headers_are_walked():
    data = t.gtpu(0xDEAD, PACKET, sequence=1, extensions=[(0x85, b"\x00\x09"), (0x40, b"\x01\x02\x03\x04\x05")])
    assert gtpu.decode(data, 0) == (0xDEAD, gtpu.G_PDU, 8 + 4 + 4 + 8, len(data))


def test_minimal_header():
    assert gtpu.decode(t.gtpu(7, PACKET), 0) == (7, gtpu.G_PDU, 8, 8 + len(PACKET))


def test_echo_request():
    assert gtpu.decode(t.gtpu(0, b"", sequence=3, msg_type=1), 0)[1:] == (1, 12, 12)


@pytest.mark.parametrize("first_byte", [0x10, 0x50, 0x20])  # GTPv0, GTPv2 flags, GTP' (PT 0)
def test_not_gtpv1_u(first_byte):
    data = bytearray(t.gtpu(1, PACKET))
    data[0] = first_byte
    assert gtpu.decode(bytes(data), 0) is None


def test_zero_length_extension_is_malformed():
    data = bytearray(t.gtpu(1, PACKET, extensions=[(0x85, b"\x00\x09")]))
    data[12] = 0
    with pytest.raises(Malformed, match="length 0"):
        gtpu.decode(bytes(data), 0)


def test_cut_short(sweep):
    with pytest.raises(Truncated):
        gtpu.decode(t.gtpu(1, b"", extensions=[(0x85, b"\x00\x09")])[:14], 0)
    sweep(lambda buf: gtpu.decode(buf, 0), t.gtpu(9, PACKET, sequence=5, extensions=[(0x85, b"\x00\x09")]))


def test_real_frame_sweep(carrier_payload, sweep):
    sweep(lambda buf: gtpu.decode(buf, 0), carrier_payload("free5gc.pcap", 250))
