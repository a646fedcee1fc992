"""What the link layer says about who owns a MAC beyond the sender's own `mac` fact (issue 24):

- `mac-ttl` ("aa:bb:cc:dd:ee:ff 128"), for each MAC and TTL an address's unicasts came with
  (what matters is an address whose unicasts came from several MACs):
  each MAC with the TTL they carried there. A capture point that sees both sides of a router holds a
  client's frames twice, once from its own MAC and once from the router's with the TTL one
  lower: the per-MAC TTL is what tells the router's copy from the client's own (scan/ownership.py).
- `dst-mac` ("aa:bb:cc:dd:ee:ff", on the destination address): the destination MAC of unicast
  IPv4 packets a site-local client sent to a site-local address on its own /24 subnet. Such a
  packet is delivered on the link, so the destination MAC is the address's own (or a proxy's).
  A gateway that never sends an IP packet of its own (it only forwards) is found this way.
- `mac` and `oui-vendor` on a MAC's own key (`mac-aa-bb-..`, keys.py) for every
  MAC that sent frames but never an IP packet (STP, LLDP, EAPOL, ARP only): every MAC that
  sends a frame is a device of the inventory, even with no IP address (Scan makes it a
  MAC-only device, or joins it to the device of the address an ARP binding gives it).
- `gateway-option` (on each address a DHCP OFFER or ACK names in its router option, option 3;
  value: the server that named it, source dhcp): the segment's default gateway, as its DHCP
  server says.
"""

from __future__ import annotations

import socket

from ...keys import mac_key
from ..decoders import dhcp
from ..extractor import Extractor
from ..kinds import DST_MAC, GATEWAY_OPTION, MAC, MAC_TTL, OUI_VENDOR
from ..packet import is_group
from .link_identity import vendor_of

OPT_ROUTER = 3  # RFC 2132 3.5: the client's default routers, in order of preference
SERVER_PORT = 67


def _site_subnet(ip: str) -> int | None:
    """The /24 an IPv4 site-local address is on (as an int), None for any other address:
    RFC 1918, RFC 6598 and RFC 3927, a capture point's own site (scan/context.py's LOCAL_NETWORKS)."""
    if ":" in ip:
        return None
    try:
        n = int.from_bytes(socket.inet_aton(ip), "big")
    except OSError:
        return None
    if (n >> 24 == 10 or n >> 20 == 0xAC1 or n >> 16 == 0xC0A8 or n >> 22 == 0x191
            or n >> 16 == 0xA9FE):  # 10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16
        return n >> 8
    return None


class LinkPaths(Extractor):
    NAME = "link-paths"
    VERSION = "2"
    KINDS = (MAC_TTL, DST_MAC, MAC, OUI_VENDOR)
    SENDERS = True  # the pipeline tallies (src, MAC, TTL, VLANs, to a group) and counts repeats
    EVERY_IP = True  # the destination MAC is in no tally
    NON_IP = True  # senders of frames that carry no IP packet

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._subnet: dict[str, int | None] = {}  # address -> its site /24, None if not site-local
        #: (dst, dst MAC) -> [first frame, first time, last frame, last time, count]
        self._delivered: dict[tuple[str, bytes], list] = {}
        self._ip_senders: set[bytes] = set()  # MACs that sent an IP packet
        #: (src, MAC, TTL) -> [first frame, first time, last frame, last time, count] of its unicasts
        self._paths: dict[tuple[str, bytes, int], list] = {}
        #: MAC -> [first frame, first time, last frame, last time, count] of its non-IP frames
        self._link_only: dict[bytes, list] = {}

    def sighted(self, pkt) -> None:
        if pkt.src_mac is not None:
            self._ip_senders.add(pkt.src_mac)
            if not is_group(pkt):
                key = (pkt.src, pkt.src_mac, pkt.ttl)
                seen = self._paths.get(key)
                if seen is None:
                    self._paths[key] = [pkt.frame, pkt.ts, pkt.frame, pkt.ts, 1]
                else:  # past the pipeline's tally limit every packet is sighted
                    seen[2], seen[3], seen[4] = pkt.frame, pkt.ts, seen[4] + 1

    def repeated(self, tallies) -> None:
        for (src, raw, ttl, _vlans, group), (times, frame, ts) in tallies.items():
            if times and raw is not None and not group and (seen := self._paths.get((src, raw, ttl))):
                seen[2], seen[3], seen[4] = max(seen[2], frame), max(seen[3], ts), seen[4] + times

    def observe(self, pkt, flow) -> None:
        if pkt.src is None:  # a frame without IP: its sender is a device all the same
            sender = pkt.src_mac
            if sender is None or sender[0] & 0x01 or not any(sender):
                return
            seen = self._link_only.get(sender)
            if seen is not None:
                seen[2], seen[3], seen[4] = pkt.frame, pkt.ts, seen[4] + 1
            elif len(self._link_only) < self.limits.max_pending:
                self._link_only[sender] = [pkt.frame, pkt.ts, pkt.frame, pkt.ts, 1]
            else:
                self.evicted += 1
            return
        mac = pkt.dst_mac
        if mac is None or mac[0] & 0x01 or pkt.outer is not None or pkt.carries is not None:
            return
        subnets = self._subnet
        dst, src = pkt.dst, pkt.src
        theirs = subnets.get(dst, -1)
        if theirs == -1:
            theirs = subnets[dst] = _site_subnet(dst)
        if theirs is None:
            return
        mine = subnets.get(src, -1)
        if mine == -1:
            mine = subnets[src] = _site_subnet(src)
        if mine != theirs:
            return
        key = (dst, mac)
        seen = self._delivered.get(key)
        if seen is not None:
            seen[2], seen[3], seen[4] = pkt.frame, pkt.ts, seen[4] + 1
        elif len(self._delivered) < self.limits.max_pending:
            self._delivered[key] = [pkt.frame, pkt.ts, pkt.frame, pkt.ts, 1]
        else:
            self.evicted += 1

    def finish(self) -> None:
        # every (address, MAC, TTL), not only an address's seen from several MACs: a shard of
        # a parallel walk may hold one of its MACs only, and the merged facts must be one walk's
        for (src, mac, ttl), (f0, t0, f1, t1, count) in self._paths.items():
            value = f"{mac.hex(':')} {ttl}"
            self.emit.fact(src, MAC_TTL, value, f0, t0)
            if count > 1:
                self.emit.again(src, MAC_TTL, value, count - 1, f1, t1)
        self._paths.clear()
        for (dst, mac), (f0, t0, f1, t1, count) in self._delivered.items():
            value = mac.hex(":")
            self.emit.fact(dst, DST_MAC, value, f0, t0)
            if count > 1:
                self.emit.again(dst, DST_MAC, value, count - 1, f1, t1)
        self._delivered.clear()
        # every sender of non-IP frames, also one that sent IP (its MAC key joins its device): a
        # shard of a parallel walk cannot know whether another shard saw the MAC send IP
        for raw, (f0, t0, f1, t1, count) in self._link_only.items():
            text = raw.hex(":")
            key = mac_key(text)
            self.emit.fact(key, MAC, text, f0, t0)
            if count > 1:
                self.emit.again(key, MAC, text, count - 1, f1, t1)
            if vendor := vendor_of(text):
                self.emit.fact(key, OUI_VENDOR, vendor, f0, t0)
        self._link_only.clear()


class GatewayOption(Extractor):
    NAME = "gateway-option"
    VERSION = "1"
    KINDS = (GATEWAY_OPTION,)
    UDP_PORTS = frozenset((SERVER_PORT,))

    def observe(self, pkt, flow) -> None:
        if pkt.sport != SERVER_PORT:
            return
        msg = dhcp.decode(pkt.payload)
        if msg.op != dhcp.BOOTREPLY or msg.msg_type not in (dhcp.OFFER, dhcp.ACK):
            return
        routers = msg.options.get(OPT_ROUTER, b"")
        for at in range(0, len(routers) - len(routers) % 4, 4):
            router = socket.inet_ntoa(routers[at:at + 4])
            if router != "0.0.0.0":
                self.emit.fact(router, GATEWAY_OPTION, pkt.src, pkt.frame, pkt.ts, source="dhcp")
