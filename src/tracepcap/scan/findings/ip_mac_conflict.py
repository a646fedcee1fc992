"""ip-mac-conflict: one address sent from, or was bound to, two MACs (the ARP spoofing
shape). High when the address is on the capture's own segment (it owns a MAC there: its MAC
should never change; a router's MAC its packets arrived with is not counted, a MAC nobody owns
that sent as it is), low when it is
routed or remote (every MAC it arrived through counts: two gateways carried it, a gateway
change)."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import IP_MAC_BINDING, MAC
from ..context import CaptureContext
from . import Finding

BINDING_KINDS = (MAC.name, IP_MAC_BINDING.name)  # frames it sent; ARP/ND bindings claimed for it


def _speaks_for(context: CaptureContext, ip: str, mac: str) -> bool:
    """A MAC an on-link address sent from counts as its own claim when the address owns it,
    or when nobody owns it and it carries no routed traffic (a spoofer's MAC sending as the
    address); a router's MAC its packets arrived with, or another device's, says nothing."""
    owners = context.mac_owners.get(mac, ())
    return ip in owners or (not owners and mac not in context.router_macs)


def find(context: CaptureContext) -> Iterator[Finding]:
    for ip in context.hosts:
        host = context.host(ip)
        routed = host.locality != "on-link"
        macs: dict[str, int] = {}
        for fact in host.all_facts:
            if fact.kind in BINDING_KINDS:
                if fact.kind == MAC.name and not routed and not _speaks_for(context, ip, fact.value):
                    continue
                mac = fact.value.lower()
                macs[mac] = min(macs.get(mac, fact.first_frame), fact.first_frame)
        if len(macs) < 2:
            continue
        listed = ", ".join(f"{mac} (frame {frame})" for mac, frame in sorted(macs.items(), key=lambda p: p[1]))
        yield Finding("ip-mac-conflict", "low" if routed else "high", (ip,),
                      f"{ip} {'arrived through' if routed else 'was claimed by'} {len(macs)} MACs: {listed}",
                      tuple(sorted(macs.values())))
