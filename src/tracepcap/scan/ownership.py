"""Who owns each MAC of a capture: decided by evidence, never by traffic volume.

Several addresses send from one MAC when a router forwards for others (or a proxy answers for
them); only one of them, per address family, is the MAC's own. The evidence, strongest first:

1. an ARP or ND binding (reply, gratuitous announcement, neighbour advertisement) of the
   address to the MAC: the owner said so itself; or a DHCP server's acknowledgement leasing
   the address to the MAC. When several addresses are bound to one MAC (proxy ARP, or a
   spoofer claiming another's address) the binding decides only if exactly one of them is
   bound to no other MAC (the spoofer's own address); else it decides none, the reason says
   so and the rules below choose among the bound addresses;
2. an IPv6 address whose interface identifier is the MAC's EUI-64;
3. the MAC carries addresses from beyond the site (public addresses arriving hops away) and
   exactly one site-local address, on a subnet of the segment (one where devices owning their
   MACs by rules 1, 2 or 4 live): that one is the router's own interface, whatever its TTL
   says (a home router's DNS proxy answers with its upstream's TTL: 57 in a shared capture);
4. the one address whose packets arrive with an unspent initial TTL (zero hops);
   among several zero-hop senders nothing in the bytes decides: the one with most frames is
   taken, and the reason says so.

A lone sender hops away does not own the MAC: in a shared capture the Raspberry Pi's MAC (a
device with no address: DHCP from 0.0.0.0) sent as the home router, which is an IP-MAC
conflict to report, not a second MAC of the router's.

A VRRP, CARP or HSRP virtual MAC is shared by the routers of a redundant gateway: no device
owns it alone. Its owner is the virtual gateway address the rules find bound to it (the
master answers ARP for it with the virtual MAC), and the reason says the MAC is shared.

An address known to be off-site (public, hops away) never owns a MAC; nor does any of several
public addresses sending from one MAC, whatever their TTL (a router that forwards without
decrementing it); a MAC whose senders are all routed has no owner among them (the capture saw
the router's traffic, not the router). An address that also sends from another MAC with fewer
hops is forwarded here (a router's copy of a client's frames: the capture sees both sides of
the router) and never owns this MAC.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from dataclasses import dataclass, replace
from functools import cache

SUBNET_BITS = {4: 24, 6: 64}  # the segment's subnets are guessed at these lengths


@dataclass(frozen=True, slots=True)
class Sender:
    """An address that sent from the MAC (or was bound to it), with what ownership reads."""

    ip: str
    frames: int  # frames it sent with the MAC
    hops: int | None  # from its main TTL
    local: bool  # a site-local address (RFC 1918, ULA, link-local, CGN)
    bound: bool  # an ARP/ND binding (or a DHCP lease) names this MAC for it
    contested: bool = False  # bound to another MAC as well
    binding: str = "ARP/ND"  # what bound it, for the reason: "ARP", "ND", "a DHCP lease"
    #: the address also sends from another MAC with fewer hops: these frames are a router's
    #: forwarded copies of its own (a capture point that sees both sides of the router)
    forwarded: bool = False


@dataclass(frozen=True, slots=True)
class Ownership:
    ip: str
    reason: str


def eui64_of(mac: str) -> int:
    """The modified EUI-64 interface identifier built from a 48-bit MAC (RFC 4291 2.5.1)."""
    raw = bytes.fromhex(mac.replace(":", "").replace("-", ""))
    return int.from_bytes(bytes((raw[0] ^ 0x02,)) + raw[1:3] + b"\xff\xfe" + raw[3:6], "big")


def virtual_gateway(mac: str) -> str | None:
    """What a redundant-gateway virtual MAC is ("the VRRP virtual MAC of group 10"), or None
    for any other MAC. VRRP (RFC 5798 7.3) and CARP share 00:00:5e:00:01:XX (IPv6:
    00:00:5e:00:02:XX); HSRP version 1 uses 00:00:0c:07:ac:XX, version 2 00:00:0c:9f:fX:XX."""
    raw = bytes.fromhex(mac.replace(":", "").replace("-", ""))
    if len(raw) != 6:
        return None
    if raw[:5] in (b"\x00\x00\x5e\x00\x01", b"\x00\x00\x5e\x00\x02"):
        return f"the VRRP (or CARP) virtual MAC of group {raw[5]}"
    if raw[:5] == b"\x00\x00\x0c\x07\xac":
        return f"the HSRP virtual MAC of group {raw[5]}"
    if raw[:4] == b"\x00\x00\x0c\x9f" and raw[4] >> 4 == 0xF:
        return f"the HSRPv2 virtual MAC of group {(raw[4] & 0x0F) << 8 | raw[5]}"
    return None


# Unbounded while a scan runs, emptied after it (`forget_addresses`): a bounded LRU smaller
# than the capture's addresses missed on every lookup once a capture outgrew it (a router's
# MAC carries thousands of addresses, each read by several signals), which made Scan grow
# faster than its host count.
@cache
def parsed_address(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(ip)


@cache  # as parsed_address
def subnet_of(ip: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """The subnet a segment's address is guessed to be on (SUBNET_BITS)."""
    address = parsed_address(ip)  # parsed once (cached); the network is built from it, not from text
    return ipaddress.ip_network((address, SUBNET_BITS[address.version]), strict=False)


def owner(mac: str, senders: list[Sender], segment: Collection = ()) -> Ownership | None:
    """The owner of `mac` among senders of one address family, or None when the evidence
    shows none of them is (all routed) or none was seen. `segment`: the subnets on-link
    devices were found in (rule 3 needs it)."""
    found = _owner(mac, senders, segment)
    try:
        shared = virtual_gateway(mac)
    except ValueError:
        shared = None
    if found is None or shared is None:
        return found
    return Ownership(found.ip, f"{mac} is {shared}, shared by the routers of a redundant gateway, "
                               f"and {found.ip} is the virtual gateway address: {found.reason}")


def _owner(mac: str, senders: list[Sender], segment: Collection) -> Ownership | None:
    bound = [s for s in senders if s.bound]
    settled = [s for s in bound if not s.contested]
    if len(settled) == 1 and len(bound) == 1:
        return Ownership(bound[0].ip, f"{bound[0].binding} binds {bound[0].ip} to {mac}")
    if len(settled) == 1:
        return Ownership(settled[0].ip, f"{len(bound)} addresses are bound to {mac} "
                                        f"({', '.join(s.ip for s in bound)}); only {settled[0].ip} "
                                        "is bound to no other MAC")
    if bound:
        contested = [s.ip for s in bound if s.contested]
        why = (f"{len(bound)} addresses are bound to {mac} ({', '.join(s.ip for s in bound)})"
               if len(bound) > 1 else f"{bound[0].ip} is bound to {mac}")
        if contested and len(bound) == 1:
            why += " and to another MAC as well"
        elif contested:
            why += f", and {', '.join(contested)} to another MAC as well"
        pool = [replace(s, bound=False) for s in (bound if len(bound) > 1 else senders)]
        # a contested address is the last choice: a spoofer's MAC is its own address's first
        found = (_owner(mac, [s for s in pool if s.ip not in contested], segment)
                 or _owner(mac, pool, segment))
        if found is not None:
            return Ownership(found.ip, f"{why}, so the binding decides nothing: {found.reason}")
        return None
    candidates = senders
    try:
        eui = eui64_of(mac)
    except ValueError:
        eui = None
    for s in candidates:
        addr = parsed_address(s.ip)
        if eui is not None and addr.version == 6 and int(addr) & ((1 << 64) - 1) == eui:
            return Ownership(s.ip, f"{s.ip} is {mac}'s EUI-64 address")
    # an address from beyond the site is remote whatever its TTL when the MAC carries several
    # of them (a router that forwards without decrementing, or a capture inside the router);
    # a lone public address sending zero hops away is a host on a public segment
    public = sum(1 for s in candidates if not s.local)
    remote = [s for s in candidates if not s.local and (s.hops or public > 1)]
    candidates = [s for s in candidates if not s.forwarded and (s.local or not (s.hops or public > 1))]
    site = [s for s in candidates if s.local]
    if remote and len(site) == 1 and subnet_of(site[0].ip) in segment:
        return Ownership(site[0].ip, f"{mac} carries {len(remote)} addresses from beyond the site and "
                                     f"one site-local address on the segment's subnet {subnet_of(site[0].ip)}, "
                                     f"{site[0].ip}: the router's own interface")
    # a site-local address whose unicasts gave no TTL (it sent only broadcast and multicast: a
    # device during setup) is no further away than one that arrives zero hops away
    zero_hop = sorted((s for s in candidates if s.hops == 0 or (s.hops is None and s.local)),
                      key=lambda s: (-s.frames, s.ip))
    if len(zero_hop) == 1:
        return Ownership(zero_hop[0].ip, f"{zero_hop[0].ip} is the one address sending from {mac} "
                                         "with an unspent initial TTL")
    if zero_hop:
        return Ownership(zero_hop[0].ip, f"{len(zero_hop)} addresses send from {mac} with an unspent "
                                         f"initial TTL and nothing in the capture decides among them; "
                                         f"{zero_hop[0].ip} sent the most frames")
    if len(candidates) == 1 and candidates[0].hops is None:  # no TTL to read (non-IP traffic)
        return Ownership(candidates[0].ip, f"{candidates[0].ip} is the only address sending from {mac}")
    return None
