"""ip-mac-conflict: one address sent from, or was bound to, two MACs (the ARP spoofing
shape). High when the address is on the capture's own segment (it owns a MAC there: its MAC
should never change; a router's MAC its packets arrived with is not counted, a MAC nobody owns
that sent as it is), low when it is
routed or remote (every MAC it arrived through counts: two gateways carried it, a gateway
change). Each MAC is listed with the first and last frames it spoke as the address; a MAC
another address owns (the spoofer's) names that address, which joins the finding's entities."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import IP_MAC_BINDING, MAC
from ...keys import mac_key
from ..context import CaptureContext
from . import Finding


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
        bound_here = {fact.value.lower() for fact in host.facts(IP_MAC_BINDING)}
        macs: dict[str, set[int]] = {}  # MAC -> first and last frames it spoke as the address
        # frames it sent and ARP/ND bindings claimed for it, kinds a-z as all_facts has them
        for fact in sorted(host.facts(MAC) + host.facts(IP_MAC_BINDING), key=lambda f: f.kind):
            mac = fact.value.lower()
            if (fact.kind == MAC.name and not routed and mac not in bound_here
                    and not _speaks_for(context, ip, mac)):
                continue
            macs.setdefault(mac, set()).update((fact.first_frame, fact.last_frame))
        if len(macs) < 2:
            continue
        spoofers = []
        parts = []
        for mac, frames in sorted(macs.items(), key=lambda p: min(p[1])):
            ordered = sorted(frames)
            part = f"{mac} (frame{'s' if len(ordered) > 1 else ''} {', '.join(map(str, ordered))})"
            others = [owner for owner in context.mac_owners.get(mac, ()) if owner != ip]
            if others and not routed:
                part += f", the MAC of {' and '.join(others)}"
                spoofers += others
            elif not routed and (device := context.entity_of.get(mac_key(mac))) not in (None, context.entity_of.get(ip)):
                part += f", the MAC of the device {device}"  # one seen without an address of its own
                spoofers.append(device)
            parts.append(part)
        yield Finding("ip-mac-conflict", "low" if routed else "high", (ip, *dict.fromkeys(spoofers)),
                      f"{ip} {'arrived through' if routed else 'was claimed by'} {len(macs)} MACs: "
                      f"{', '.join(parts)}",
                      tuple(sorted(set().union(*macs.values()))))
