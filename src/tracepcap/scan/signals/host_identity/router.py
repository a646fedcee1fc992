"""A router fronts other networks: one MAC sends the traffic of many addresses that are not
on its own subnet or that arrive hops away. Only the MAC's owner (context.mac_owners) votes.
A second site-local address on another subnet that arrives zero hops away is the same box's
own (an appliance keeping its fixed setup address beside its DHCP lease, an alias): it
forwards nothing, so it does not vote (a second address on its own subnet is a faint hint)."""

from __future__ import annotations

from collections.abc import Iterator

from ....keys import ip_sort_key
from ...context import HostFacts, is_local
from ...ownership import parsed_address, subnet_of
from ...vote import Vote

PER_FRONTED = 10
# a MAC fronting eight or more addresses from beyond its subnet is a router's whatever else
# the box answers (a home gateway also answers DNS): it outweighs one served service
MAX_WEIGHT = 90
SAME_SUBNET_WEIGHT = 10  # one box with a second address, or a router: a faint hint
# a box that forwards for addresses beyond the site and hands the segment its leases or its
# name service is the segment's gateway router: those services are what a gateway gives its
# network, not a sign that it is a server instead
GATEWAY_SERVICES = {"udp/67": "DHCP", "udp/53": "DNS", "tcp/53": "DNS"}
GATEWAY_WEIGHT = 40


def gateway_named_elsewhere(host: HostFacts) -> bool:
    """A DHCP router option (option 3) names another address of its subnet the gateway:
    sharing a MAC with addresses of other site subnets at an unspent TTL is then no sign of
    routing (an alias, or a capture's made-up segment); only addresses from beyond the site are."""
    own = subnet_of(host.ip)
    return any(ip not in host.addresses and parsed_address(ip).version == own.version
               and parsed_address(ip) in own for ip in host.capture.dhcp_gateways)


def vote(host: HostFacts) -> Iterator[Vote]:
    if host.ip is None:  # a device seen only by its MAC
        return
    mine = host.addresses
    client = gateway_named_elsewhere(host)
    for fact in host.owned_macs():
        own = subnet_of(host.ip)
        # the other address family on one MAC is a dual-stack host, not a routed network
        others = [ip for ip, _ in host.capture.ips_by_mac.get(fact.value, [])
                  if ip not in mine and (addr := parsed_address(ip)).version == own.version
                  and not addr.is_link_local]
        if not others:
            continue
        # forwarding evidence: addresses from beyond the site, or arriving hops away; a
        # site-local address on another subnet at an unspent TTL is a second address of one
        # box (a device re-addressed during setup, an alias), not a routed network
        hops = {ip: host.capture.host(ip).hops for ip in others}
        forwarding = any(not is_local(ip) or hops[ip] for ip in others)
        off = sorted((ip for ip in others if hops[ip] or (parsed_address(ip) not in own and (
            not is_local(ip) or hops[ip] is None))), key=ip_sort_key) if forwarding else []
        if client:
            off = [ip for ip in off if not is_local(ip) or hops[ip]]
        same = [] if client else [ip for ip in others if parsed_address(ip) in own and ip not in off]
        if off:
            weight = min(MAX_WEIGHT, PER_FRONTED * (len(off) + 1))
            sample = ", ".join(off[:3]) + (", ..." if len(off) > 3 else "")
            yield Vote("Router", weight, f"its MAC {fact.value} also carries {len(off)} addresses "
                       f"outside {own} or hops away ({sample}) (+{weight})", fact.grade, (fact.first_frame,))
            served = host.served()
            gives = sorted({name for port, name in GATEWAY_SERVICES.items() if port in served})
            if len(off) > 1 and gives:
                first = min(served[port].first_frame for port in GATEWAY_SERVICES if port in served)
                yield Vote("Router", GATEWAY_WEIGHT, f"and it answers {' and '.join(gives)} for the "
                           f"segment, first in frame {first}: what a gateway router gives its network "
                           f"(+{GATEWAY_WEIGHT})", fact.grade, (first,))
        elif same:
            yield Vote("Router", SAME_SUBNET_WEIGHT, f"its MAC {fact.value} also carries "
                       f"{', '.join(same[:3])} on its own subnet (+{SAME_SUBNET_WEIGHT})",
                       fact.grade, (fact.first_frame,))
