"""NFLOG records: the logged packet found among the attributes in either byte order, the
hardware address kept, a record without a payload read as nothing."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, nflog
from tracepcap.testing import frames as f, links

PACKET = f.ipv4("10.0.0.1", "10.0.0.2", 17, f.udp("10.0.0.1", "10.0.0.2", 1, 2, b"x"))


@pytest.mark.parametrize("big_endian", [False, True])
def test_payload_and_address_in_either_byte_order(big_endian):
    data = links.nflog(links.AF_INET, PACKET, mac="02:00:00:00:00:0a", prefix="DROP in",
                       big_endian=big_endian)
    mac, ethertype, at = nflog.decode(data)
    assert (mac.hex(":"), ethertype, data[at:at + len(PACKET)]) == ("02:00:00:00:00:0a", 0x0800, PACKET)


def test_family_names_the_protocol_and_the_packet_header_stands_in():
    assert nflog.decode(links.nflog(links.AF_INET6, PACKET))[1] == 0x86DD
    assert nflog.decode(links.nflog(0, PACKET, ethertype=0x0800))[1] == 0x0800


def test_a_record_without_a_payload():
    data = links.nflog(links.AF_INET, None, prefix="counted")
    assert nflog.decode(data) == (None, 0, len(data))


def test_bad_records():
    with pytest.raises(Malformed):
        nflog.decode(b"\x02\x01\x00\x00")  # version 1
    with pytest.raises(Malformed):
        nflog.decode(b"\x02\x00\x00\x00\x02\x00\x09\x00")  # an attribute shorter than its header


def test_cut_short(sweep):
    data = links.nflog(links.AF_INET, PACKET, mac="02:00:00:00:00:0a", prefix="p")
    with pytest.raises(Truncated):
        nflog.decode(data[:3])
    sweep(nflog.decode, data)
