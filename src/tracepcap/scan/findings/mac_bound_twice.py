"""mac-bound-twice: ARP, ND or DHCP bound two or more addresses to one MAC. Low in the proxy-ARP
shape (one MAC answering for many addresses, none of them bound to another MAC: a router or a
host with aliases); medium when one of them is also bound to another MAC (a spoofer claiming
it). Ownership picks among them by other evidence, and the summary says which it picked and
why. A redundant gateway's virtual MAC (VRRP, CARP, HSRP) may carry several virtual addresses
and is not reported, nor are an interface's IPv6 addresses (link-local, global, temporary) bound
beside at most one IPv4 address."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import IP_MAC_BINDING
from ..context import CaptureContext
from ..ownership import virtual_gateway
from . import Finding


def find(context: CaptureContext) -> Iterator[Finding]:
    bound_macs: dict[str, int] = {}  # ip -> how many MACs are bound to it
    for ips in context.bindings.values():
        for ip in ips:
            bound_macs[ip] = bound_macs.get(ip, 0) + 1
    for mac, ips in sorted(context.bindings.items()):
        if len(ips) < 2 or virtual_gateway(mac):
            continue
        if sum(":" not in ip for ip in ips) < 2 and not any(bound_macs[ip] > 1 for ip in ips):
            continue  # one IPv4 address and IPv6 ones: one interface's addresses (link-local, global, temporary)
        frames: dict[str, tuple[int, int]] = {}  # ip -> (first, last) frame binding it to the MAC
        for ip in ips:
            for fact in context.facts_of_kind(ip, IP_MAC_BINDING.name):
                if fact.value.lower() == mac:
                    first, last = frames.get(ip, (fact.first_frame, fact.last_frame))
                    frames[ip] = (min(first, fact.first_frame), max(last, fact.last_frame))
        order = sorted(frames, key=lambda ip: (frames[ip], ip))
        contested = [ip for ip in order if bound_macs[ip] > 1]
        listed = ", ".join(f"{ip} ({_frames(frames[ip])})" for ip in order)
        summary = f"{mac} is bound to {len(order)} addresses: {listed}"
        if contested:
            summary += f"; {', '.join(contested)} {'is' if len(contested) == 1 else 'are'} bound to another MAC as well"
        else:
            summary += "; one MAC answering for several addresses (proxy ARP, or a host with aliases)"
        owners = context.ownership.get(mac, ())
        summary += (". " + "; ".join(f"It is taken as {o.ip}'s: {o.reason}" for o in owners) if owners
                    else ". No address is taken as its owner")
        yield Finding("mac-bound-twice", "medium" if contested else "low", tuple(order), summary,
                      tuple(sorted({frame for pair in frames.values() for frame in pair})))


def _frames(pair: tuple[int, int]) -> str:
    first, last = pair
    return f"frame {first}" if first == last else f"frames {first}, {last}"
