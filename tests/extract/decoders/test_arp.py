"""ARP and IPv6 neighbor discovery messages: who says which address is at which MAC."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, arp, ndp
from tracepcap.testing import discovery as d
from tracepcap.testing import frames as f

MAC = "00:1b:21:0a:0b:0c"


def test_real_reply(link):
    # monitor_large_week1_baseline.pcap frame 2: 10.0.2.10 is at 00:aa:bb:cc:dd:10, to 10.0.1.1
    msg = arp.decode(link("monitor_large_week1_baseline.pcap", 2))
    assert msg == arp.Arp(arp.REPLY, bytes.fromhex("00aabbccdd10"), "10.0.2.10",
                          bytes.fromhex("00aabbccdd01"), "10.0.1.1")
    assert not msg.gratuitous


def test_real_request(link):
    # telegram_voice.pcapng frame 331: who has 192.168.12.67? tell 192.168.12.1
    msg = arp.decode(link("telegram_voice.pcapng", 331))
    assert (msg.op, msg.sender_ip, msg.target_ip, msg.target_mac) == (
        arp.REQUEST, "192.168.12.1", "192.168.12.67", bytes(6))


def test_gratuitous_and_probe():
    assert arp.decode(d.gratuitous_arp(MAC, "10.0.0.5")[14:]).gratuitous
    probe = f.arp(f.ARP_REQUEST, MAC, "0.0.0.0", "00:00:00:00:00:00", "0.0.0.0")
    assert not arp.decode(probe).gratuitous  # RFC 5227 2.1.1: a probe claims nothing


def test_other_protocols_are_not_read():
    assert arp.decode(b"\x00\x01\x86\xdd\x06\x10\x00\x01" + bytes(44)) is None


def test_arp_sweep(link, sweep):
    sweep(arp.decode, link("telegram_voice.pcapng", 333))


def test_neighbor_advertisement():
    msg = ndp.decode(d.neighbor_advert("fe80::1", "ff02::1", "2001:db8::1", MAC, solicited=False))
    assert msg == ndp.Nd(ndp.NEIGHBOR_ADVERT, ndp.NA_OVERRIDE, "2001:db8::1", None,
                         bytes.fromhex("001b210a0b0c"))


def test_router_advertisement():
    msg = ndp.decode(d.router_advert("fe80::1", "ff02::1", MAC))
    assert (msg.msg_type, msg.target, msg.source_lla) == (ndp.ROUTER_ADVERT, None,
                                                          bytes.fromhex("001b210a0b0c"))


def test_other_icmpv6_is_not_nd():
    assert ndp.decode(f.icmp_echo(1, 1, b"x", src_ip="fe80::1", dst_ip="fe80::2")) is None


def test_zero_length_option_is_malformed():
    data = d.neighbor_advert("fe80::1", "ff02::1", "fe80::1", MAC)
    with pytest.raises(Malformed, match="length 0"):
        ndp.decode(data[:25] + b"\x00" + data[26:])
    with pytest.raises(Truncated):
        ndp.decode(data[:-1])


def test_nd_sweep(sweep):
    sweep(ndp.decode, d.neighbor_advert("fe80::1", "ff02::1", "fe80::1", MAC))
    sweep(ndp.decode, d.router_advert("fe80::1", "ff02::1", MAC))
