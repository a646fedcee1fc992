"""Shared checks for the synth tests: every byte is judged by dpkt, never by our code."""

from __future__ import annotations

import dpkt
import pytest


def checksum_problems(frame: bytes) -> list[str]:
    """Differences between the checksums in an Ethernet frame and dpkt's recomputation."""
    eth = dpkt.ethernet.Ethernet(frame)
    ip = eth.data
    if not isinstance(ip, (dpkt.ip.IP, dpkt.ip6.IP6)):
        return []
    problems = []
    copy = type(ip)(bytes(ip))
    l4 = copy.data
    fragment = isinstance(copy, dpkt.ip.IP) and (copy.mf or copy.offset)
    want_ip, want_l4 = getattr(copy, "sum", None), getattr(l4, "sum", None)
    if isinstance(copy, dpkt.ip.IP):
        copy.sum = 0
    if want_l4 is not None and not fragment:
        l4.sum = 0
    again = type(ip)(bytes(copy))  # dpkt fills zeroed IP, TCP, UDP, ICMP, ICMPv6 sums
    if isinstance(again, dpkt.ip.IP) and again.sum != want_ip:
        problems.append(f"ip sum {want_ip:#06x} != {again.sum:#06x}")
    if want_l4 is not None and not fragment and again.data.sum != want_l4:
        problems.append(f"{type(l4).__name__} sum {want_l4:#06x} != {again.data.sum:#06x}")
    return problems


@pytest.fixture
def checksums():
    """The checker as a fixture: `assert checksums(frame) == []`."""
    return checksum_problems
