"""A small capture of traffic that violates its protocol, for the notice tests (issue 12)."""

from __future__ import annotations

from tracepcap.testing import windows
from tracepcap.testing.scenario import Scenario

PC, DC = "10.0.0.21", "10.0.0.10"
SELF_POINTING_ANSWER = b"\x00\x01\x81\x80\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c"  # its name points at itself


def odd_lan(path):
    """Frame 1: a whole AS-REQ; 2: one cut after 20 bytes; 3: a DNS answer whose question
    name points at itself; 4: the same cut AS-REQ again."""
    net = Scenario()
    pc, dc = net.host(PC, "00:1b:21:4a:7e:21"), net.host(DC, "00:26:b9:5c:20:10")
    request = windows.krb_as_req("alice", "CORP.EXAMPLE")
    net.udp(pc, dc, 50000, 88, request)
    net.udp(pc, dc, 50001, 88, request[:20])
    net.udp(dc, pc, 53, 40000, SELF_POINTING_ANSWER)
    net.udp(pc, dc, 50002, 88, request[:20])
    return net.write_pcap(path)
