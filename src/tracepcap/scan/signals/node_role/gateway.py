"""The default gateway owns the MAC that carries the traffic of addresses beyond the segment:
addresses that arrive hops away, or from outside its own subnet (a capture whose routed
packets kept TTL 64 still shows the router's MAC fronting other networks), provided one of
them is forwarding evidence: an address from beyond the site, or one arriving hops away. Site
subnets alone at an unspent TTL on one MAC are the addresses of one box, not routed networks. A DHCP server's
router option (option 3) names the gateway of its clients' subnet: the named address, when
it owns a MAC, is voted for; any other address of that subnet is not its gateway."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import GATEWAY_OPTION
from ...context import HostFacts, is_local
from ...ownership import parsed_address, subnet_of
from ...vote import Vote

WEIGHT = 60
MIN_FRONTED = 2
NAMED_WEIGHT = 40


def vote(host: HostFacts) -> Iterator[Vote]:
    if host.ip is None:  # a device seen only by its MAC carries no routed traffic of its own
        return
    own = subnet_of(host.ip)
    mine = host.addresses
    owned = host.owned_macs()
    if not owned:
        return
    named = [f for f in host.facts(GATEWAY_OPTION)]
    if named:
        first = min(named, key=lambda f: f.first_frame)
        yield Vote("Default Gateway", NAMED_WEIGHT, f"the DHCP server {first.value} names it the "
                   f"router of its clients (option 3, frame {first.first_frame}) (+{NAMED_WEIGHT})",
                   first.grade, (first.first_frame,))
    else:
        other = next((ip for ip in host.capture.dhcp_gateways
                      if ip not in mine and parsed_address(ip).version == own.version
                      and parsed_address(ip) in own), None)
        if other is not None:  # its DHCP server named another address its subnet's gateway
            return
    for fact in owned:
        routed = [ip for ip, _ in host.capture.ips_by_mac.get(fact.value, [])
                  if ip not in mine and (addr := parsed_address(ip)).version == own.version
                  and not addr.is_link_local and (addr not in own or host.capture.host(ip).hops)]
        if not any(not is_local(ip) or host.capture.host(ip).hops for ip in routed):
            continue  # no forwarding evidence: other site subnets at an unspent TTL are one box's
        if len(routed) >= MIN_FRONTED:
            yield Vote("Default Gateway", WEIGHT, f"its MAC {fact.value} carries {len(routed)} addresses "
                       f"from outside {own} or hops away (+{WEIGHT})", fact.grade, (fact.first_frame,))
