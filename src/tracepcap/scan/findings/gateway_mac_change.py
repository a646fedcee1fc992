"""gateway-mac-change: the default gateway's address answered from one MAC, then from another
(a router replaced, a failover without a virtual MAC, or an attacker taking over after the
real gateway went quiet). The gateway is an address owning a MAC that carries traffic from
beyond the site (context.router_macs). Each MAC it spoke from, or was bound to by ARP/ND, is
listed with the first and last frames; it is a change (medium) when the MACs' spans do not
overlap: the second began after the first was last heard. Overlapping spans are two devices
claiming one address at once, and a later MAC that another address owns is a device speaking as
the gateway (ARP spoofing): both are ip-mac-conflict's, not this. The finding links the
gateway's entity and the device of each later MAC."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import IP_MAC_BINDING, MAC
from ...keys import mac_key
from ..context import CaptureContext
from . import Finding

SPEAKS = (MAC.name, IP_MAC_BINDING.name)


def find(context: CaptureContext) -> Iterator[Finding]:
    gateways = sorted({ip for mac in context.router_macs for ip in context.mac_owners.get(mac, ())})
    for ip in gateways:
        spans: dict[str, list[int]] = {}  # MAC -> [first, last] frame it spoke as the address
        for kind in SPEAKS:
            for fact in context.facts_of_kind(ip, kind):
                mac = fact.value.lower()
                span = spans.setdefault(mac, [fact.first_frame, fact.last_frame])
                span[0], span[1] = min(span[0], fact.first_frame), max(span[1], fact.last_frame)
        if len(spans) < 2:
            continue
        order = sorted(spans.items(), key=lambda p: (p[1][0], p[0]))
        if any(later[0] <= earlier[1] for (_, earlier), (_, later) in zip(order, order[1:], strict=False)):
            continue  # spoken from at once: ip-mac-conflict reports it
        if any(set(context.mac_owners.get(mac, ())) - {ip} for mac, _ in order[1:]):
            continue  # a later MAC is another device's own: a spoofer, which ip-mac-conflict names
        parts = [f"{mac} (frames {first}-{last})" if first != last else f"{mac} (frame {first})"
                 for mac, (first, last) in order]
        devices = [context.entity_of.get(mac_key(mac)) for mac, _ in order[1:]]
        yield Finding("gateway-mac-change", "medium",
                      (ip, *dict.fromkeys(d for d in devices if d is not None)),
                      f"the default gateway {ip} answered from {len(order)} MACs, one after another: "
                      f"{', then '.join(parts)}",
                      tuple(sorted({frame for _, span in order for frame in span})))
