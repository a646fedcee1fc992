"""The default gateway owns the MAC that carries the traffic of addresses beyond the segment:
addresses that arrive hops away, or from outside its own subnet (a capture whose routed
packets kept TTL 64 still shows the router's MAC fronting other networks)."""

from __future__ import annotations

from collections.abc import Iterator

from ...context import HostFacts
from ...ownership import parsed_address, subnet_of
from ...vote import Vote

WEIGHT = 60
MIN_FRONTED = 2


def vote(host: HostFacts) -> Iterator[Vote]:
    if host.ip is None:  # a device seen only by its MAC carries no routed traffic of its own
        return
    own = subnet_of(host.ip)
    mine = host.addresses
    for fact in host.owned_macs():
        routed = [ip for ip, _ in host.capture.ips_by_mac.get(fact.value, [])
                  if ip not in mine and (addr := parsed_address(ip)).version == own.version
                  and not addr.is_link_local and (addr not in own or host.capture.host(ip).hops)]
        if len(routed) >= MIN_FRONTED:
            yield Vote("Default Gateway", WEIGHT, f"its MAC {fact.value} carries {len(routed)} addresses "
                       f"from outside {own} or hops away (+{WEIGHT})", fact.grade, (fact.first_frame,))
