"""`hostname-claim` facts (source dhcp: host name option 12, client FQDN option 81),
`dhcp-parameter-list` (option 55, codes in order joined by ","), `dhcp-vendor-class`
(option 60, e.g. "dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835"), `dhcp-user-class`
(option 77) and `dhcp-client-id` (option 61 by its type: "ethernet <mac>" as Windows, macOS
and Android send it, "rfc4361 iaid .. duid-llt <mac>" as dhcpcd and systemd do) facts of
DHCPv4 clients, and `served udp/67` for hosts that sent a BOOTREPLY
(which the services extractor cannot pair: replies go to broadcast or another 5-tuple), and an
`ip-mac-binding` (source dhcp) of each unrelayed DHCPACK's yiaddr to its Ethernet chaddr: the
server leased that address to that MAC, evidence of who owns the MAC (scan/ownership.py rule 1).

A client that asks from its own address (a renewal) is that address. One that asks from
0.0.0.0 (or through a relay) has none yet: its sightings wait, keyed by (xid, chaddr), in
a table of at most `limits.max_pending` transactions, and land at finish() on the address
the server acknowledged (yiaddr of the DHCPACK), else the one it requested (option 50),
else its ciaddr. A transaction that ends with none of them (a DISCOVER nobody answered)
lands on the client's MAC instead (the entity `mac-aa-bb-..`, keys.py), with a
`mac` and an `oui-vendor` fact of that MAC: Scan makes it a MAC-only device, or joins it to
the device that owns the MAC. That MAC is chaddr's; a client whose chaddr names no Ethernet
MAC (hardware type 0, a zero length, all zeros) is named by the Ethernet MAC of its client
identifier (option 61 type 1), as Zeek's dhcp.log names it. Witness frames are the frames the client sent the claim in.
"""

from __future__ import annotations

from ...keys import mac_key
from ..decoders import dhcp
from ..extractor import Extractor
from ..facts import FactKind
from ..kinds import (
    DHCP_CLIENT_ID,
    DHCP_PARAMETER_LIST,
    DHCP_USER_CLASS,
    DHCP_VENDOR_CLASS,
    HOSTNAME_CLAIM,
    IP_MAC_BINDING,
    MAC,
    OUI_VENDOR,
    SERVED,
)
from .link_identity import vendor_of

NAME, VERSION = "dhcp", "5"
SERVER_PORT, CLIENT_PORT = 67, 68
UNSPECIFIED = "0.0.0.0"
NAK = object()  # the server refused: the requested address is not the client's


def claims(msg: dhcp.Dhcp) -> list[tuple[FactKind, str, str | None]]:
    """(kind, value, source) of what a client's message says about it."""
    out: list[tuple[FactKind, str, str | None]] = []
    options = msg.options
    if name := dhcp.text(options.get(dhcp.OPT_HOSTNAME, b"")).rstrip("."):
        out.append((HOSTNAME_CLAIM, name, "dhcp"))
    if dhcp.OPT_CLIENT_FQDN in options and (name := dhcp.client_fqdn(options[dhcp.OPT_CLIENT_FQDN]).rstrip(".")):
        out.append((HOSTNAME_CLAIM, name, "dhcp"))
    if params := options.get(dhcp.OPT_PARAM_LIST):
        out.append((DHCP_PARAMETER_LIST, ",".join(str(code) for code in params), None))
    if vendor := dhcp.text(options.get(dhcp.OPT_VENDOR_CLASS, b"")):
        out.append((DHCP_VENDOR_CLASS, vendor, None))
    if user := dhcp.user_class(options.get(dhcp.OPT_USER_CLASS, b"")):
        out.append((DHCP_USER_CLASS, user, None))
    if options.get(dhcp.OPT_CLIENT_ID):
        out.append((DHCP_CLIENT_ID, dhcp.client_id(options[dhcp.OPT_CLIENT_ID]), None))
    return out


def usable_mac(data: bytes) -> bool:
    """Is `data` an Ethernet MAC a device can own: 6 bytes, unicast, not all zeros?"""
    return len(data) == 6 and not data[0] & 0x01 and any(data)


def client_id_mac(options: dict[int, bytes]) -> bytes | None:
    """The Ethernet MAC a client names itself by in option 61 (type 1), if any."""
    data = options.get(dhcp.OPT_CLIENT_ID, b"")
    if len(data) == 7 and data[0] == dhcp.CLIENT_ID_ETHERNET and usable_mac(data[1:]):
        return data[1:]
    return None


class _Pending:
    """One transaction's sightings: (kind, value, source) -> [first frame, first time,
    last frame, last time, count], the addresses it could still land on, and the MAC its
    client identifier names."""
    __slots__ = ("sightings", "requested", "ciaddr", "id_mac")

    def __init__(self) -> None:
        self.sightings: dict[tuple, list] = {}
        self.requested = self.ciaddr = self.id_mac = None


class Dhcp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, DHCP_PARAMETER_LIST, DHCP_VENDOR_CLASS, DHCP_USER_CLASS, DHCP_CLIENT_ID, SERVED,
             IP_MAC_BINDING, MAC, OUI_VENDOR)
    UDP_PORTS = frozenset((SERVER_PORT, CLIENT_PORT))

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._pending: dict[tuple[int, bytes], _Pending] = {}
        self._leases: dict[tuple[int, bytes], object] = {}  # ACK's yiaddr, or NAK

    def observe(self, pkt, flow) -> None:
        msg = dhcp.decode(pkt.payload)
        key = (msg.xid, msg.chaddr)
        if msg.op == dhcp.BOOTREPLY:
            if pkt.sport == SERVER_PORT and pkt.src != UNSPECIFIED:
                self.emit.fact(pkt.src, SERVED, f"udp/{SERVER_PORT}", pkt.frame, pkt.ts)
            if msg.msg_type == dhcp.ACK and msg.yiaddr != UNSPECIFIED:
                # an Ethernet client's own MAC; a relayed client's is on another segment
                if len(msg.chaddr) == 6 and not msg.chaddr[0] & 0x01 and msg.giaddr == UNSPECIFIED:
                    self.emit.fact(msg.yiaddr, IP_MAC_BINDING, msg.chaddr.hex(":"), pkt.frame, pkt.ts,
                                   source="dhcp")
                if self._leases.get(key, NAK) is NAK:  # the first ACK of a transaction holds
                    self._remember(self._leases, key, msg.yiaddr)
            elif msg.msg_type == dhcp.NAK and key not in self._leases:
                self._remember(self._leases, key, NAK)
            return
        found = claims(msg)
        if pkt.src != UNSPECIFIED and pkt.sport == CLIENT_PORT:  # the client's own address
            for kind, value, source in found:
                self.emit.fact(pkt.src, kind, value, pkt.frame, pkt.ts, source=source)
            return
        txn = self._pending.get(key)
        if txn is None:
            if not found:
                return  # nothing to attribute (yet): keep the table for clients that claim
            txn = self._remember(self._pending, key, _Pending())
        requested = msg.options.get(dhcp.OPT_REQUESTED_IP)
        if requested and len(requested) == 4 and any(requested):
            txn.requested = ".".join(map(str, requested))
        if msg.ciaddr != UNSPECIFIED:
            txn.ciaddr = msg.ciaddr
        if txn.id_mac is None:
            txn.id_mac = client_id_mac(msg.options)
        for claim in found:
            seen = txn.sightings.get(claim)
            if seen is None:
                txn.sightings[claim] = [pkt.frame, pkt.ts, pkt.frame, pkt.ts, 1]
            else:
                seen[2], seen[3], seen[4] = pkt.frame, pkt.ts, seen[4] + 1

    def _remember(self, table: dict, key, value):
        """Insert into a bounded table; past the limit the oldest entry is evicted."""
        if key not in table and len(table) >= self.limits.max_pending:
            del table[next(iter(table))]
            self.evicted += 1
        table[key] = value
        return value

    def finish(self) -> None:
        for key, txn in self._pending.items():
            lease = self._leases.get(key)
            address = txn.ciaddr if lease is NAK else lease or txn.requested or txn.ciaddr
            sightings = txn.sightings
            if address is None or address == UNSPECIFIED:
                chaddr = key[1] if usable_mac(key[1]) else txn.id_mac
                if chaddr is None or not sightings:
                    continue
                mac = chaddr.hex(":")
                address = mac_key(mac)
                (f0, t0, f1, t1, count) = min(sightings.values())
                sightings = dict(sightings)
                sightings[(MAC, mac, None)] = [f0, t0, f1, t1, 1]
                if vendor := vendor_of(mac):
                    sightings[(OUI_VENDOR, vendor, None)] = [f0, t0, f0, t0, 1]
            for (kind, value, source), (f0, t0, f1, t1, count) in sightings.items():
                self.emit.fact(address, kind, value, f0, t0, source=source)
                for _ in range(count - 1):  # each retransmission counts, as if emitted live
                    self.emit.fact(address, kind, value, f1, t1, source=source)
        self._pending.clear()
