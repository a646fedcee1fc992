"""ip-mac-conflict: one address sent from, or was bound to, two MACs (the ARP spoofing
shape). High when the address is on the capture's own segment (zero hops: its MAC should
never change), low when it is routed (two gateways carried it: a gateway change)."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import IP_MAC_BINDING, MAC
from ..context import CaptureContext
from . import Finding

BINDING_KINDS = (MAC.name, IP_MAC_BINDING.name)  # frames it sent; ARP/ND bindings claimed for it


def find(context: CaptureContext) -> Iterator[Finding]:
    for ip in context.hosts:
        host = context.host(ip)
        macs: dict[str, int] = {}
        for fact in host.all_facts:
            if fact.kind in BINDING_KINDS:
                if fact.kind == MAC.name and context.mac_owners.get(fact.value) != ip:
                    continue  # a router's MAC its packets arrived with says nothing of its own
                mac = fact.value.lower()
                macs[mac] = min(macs.get(mac, fact.first_frame), fact.first_frame)
        if len(macs) < 2:
            continue
        routed = bool(host.hops)
        listed = ", ".join(f"{mac} (frame {frame})" for mac, frame in sorted(macs.items(), key=lambda p: p[1]))
        yield Finding("ip-mac-conflict", "low" if routed else "high", (ip,),
                      f"{ip} {'arrived through' if routed else 'was claimed by'} {len(macs)} MACs: {listed}",
                      tuple(sorted(macs.values())))
