"""The default gateway owns the MAC that carries the traffic of addresses beyond the segment."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from ...context import HostFacts
from ...vote import Vote

WEIGHT = 60
MIN_FRONTED = 2


def vote(host: HostFacts) -> Iterator[Vote]:
    if host.ip is None:  # a device seen only by its MAC carries no routed traffic of its own
        return
    version = ipaddress.ip_address(host.ip).version
    mine = host.addresses
    for fact in host.owned_macs():
        routed = [ip for ip, _ in host.capture.ips_by_mac.get(fact.value, [])
                  if ip not in mine and ipaddress.ip_address(ip).version == version and host.capture.host(ip).hops]
        if len(routed) >= MIN_FRONTED:
            yield Vote("Default Gateway", WEIGHT, f"its MAC {fact.value} carries {len(routed)} addresses "
                       f"that arrive hops away (+{WEIGHT})", fact.grade, (fact.first_frame,))
