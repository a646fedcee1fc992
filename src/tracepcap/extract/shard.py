"""Which shard of a sharded walk owns each frame, and what a shard reports for the merge.

A frame belongs to the shard its shard key hashes to (`shard_of`: integer arithmetic, stable
across processes and machines, unlike Python's salted `hash()`): `raw_owner` from its bytes
when it can, else `packet_owner` from the decoded frame. A shard that streams the whole
capture keeps its own frames (`Shard.keep_raw`, `keep`); a byte-range shard is handed only
its own (extract/spill.py routes them with the same two functions: `Shard(given=True)`).
The key is chosen so that every piece of state the walk keeps lives inside one shard:

- A flow (FlowTable's key) never spans shards: a plain TCP segment is keyed by its
  direction-normalised 5-tuple; every other IP packet (UDP, ICMP, GRE, IP-in-IP, ...) by
  its protocol and normalised address pair, of its OUTERMOST IP layer for a tunnelled
  frame. A tunnel's conversations (the carrier's 5-tuple and every inner flow, whose key
  names the carrier's addresses) then share the carrier's shard, whatever ports the
  carrier's source varies over (VXLAN, Geneve). Non-first fragments have no ports: keyed by
  address pair, the same key FlowTable gives them.
- State across flows is routed to one shard (GLOBAL, index 0): DHCP and DHCPv6 (a
  transaction's request and its server's ACK are different flows), every non-IP frame
  (LLDP/CDP land on the address their sender's MAC claimed in ARP), and frames that did not
  decode.
- What cannot be routed that way is flagged, and the merge then falls back to one walk:
  DHCP inside a tunnel, and ARP/LLDP/CDP inside a tunnel in a capture that has LLDP or CDP.

Most frames are never decoded by the shards that do not keep them: `raw_owner` reads the
key of an Ethernet frame's plain IPv4/IPv6 TCP/UDP/ICMP header straight from its bytes (the
same key `flow_key` gives the decoded packet); what it cannot read so simply (other link
types, VLAN stacks past the decoder's, IPv6 extension headers, non-IP, short frames) is
decoded and decided by `packet_owner`. A frame that does not decode belongs to the
shard its raw key names, else to GLOBAL: each frame is counted by exactly one shard.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from socket import AF_INET, AF_INET6, inet_pton
from struct import Struct

from .decoders.ethernet import MAX_TAGS, VLAN_TPIDS
from .packet import ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, LINKTYPE_ETHERNET, PROTO_TCP, PROTO_UDP, Packet

GLOBAL = 0  #: the shard that holds cross-flow state
#: UDP ports whose state spans flows: DHCP (67, 68), DHCPv6 (546, 547)
GLOBAL_UDP_PORTS = frozenset((67, 68, 546, 547))
RAW_IPV6_PROTOS = frozenset((6, 17, 58))  # next headers read in place (no extension header)
MIX_PRIME = (1 << 61) - 1
IPV4_ENDS = Struct("!II")  # source, destination
IPV6_ENDS = Struct("!QQQQ")
PORTS = Struct("!HH")
ETHERTYPE_LLDP = 0x88CC
LENGTH_FIELD_MAX = 0x05DC  # an 802.3 length, not an ethertype: LLC frames such as CDP


def shard_of(key: tuple[int, int, int], shards: int) -> int:
    """The shard a flow key (proto, lower end, higher end) belongs to: integer arithmetic,
    the same in every process, run and machine (Python's `hash()` is salted per process)."""
    proto, lo, hi = key
    mixed = (lo * 0x9E3779B97F4A7C15 + hi * 0xC2B2AE3D27D4EB4F + proto) % MIX_PRIME
    return (mixed ^ (mixed >> 29)) % shards


def flow_key(pkt: Packet) -> tuple[int, int, int]:
    """The shard key of a decoded IP packet (module doc); `pkt` is the outermost IP layer.
    Ends are addresses as integers, with the port below them for a plain TCP segment."""
    src, dst = _address(pkt.src), _address(pkt.dst)
    if pkt.proto == PROTO_TCP and not pkt.fragment:
        src, dst = src << 16 | pkt.sport, dst << 16 | pkt.dport
    return (pkt.proto, src, dst) if src <= dst else (pkt.proto, dst, src)


def _address(text: str) -> int:
    return int.from_bytes(inet_pton(AF_INET6 if ":" in text else AF_INET, text), "big")


def _link_announcement(pkt: Packet) -> bool:
    return pkt.ethertype == ETHERTYPE_LLDP or 0 < pkt.ethertype <= LENGTH_FIELD_MAX


def raw_owner(linktype: int, buf, count: int) -> int | None:
    """The shard an Ethernet frame's plain IPv4/IPv6 TCP/UDP/ICMP header names, read in place
    (the shard `packet_owner` gives the decoded packet); None when it must be decoded to tell."""
    if linktype != LINKTYPE_ETHERNET or len(buf) < 38:
        return None
    ethertype, at, tags = buf[12] << 8 | buf[13], 14, 0
    while ethertype in VLAN_TPIDS and tags < MAX_TAGS:
        if len(buf) < at + 4:
            return None
        ethertype, at, tags = buf[at + 2] << 8 | buf[at + 3], at + 4, tags + 1
    if ethertype == ETHERTYPE_IPV4:
        if len(buf) < at + 20:
            return None
        first = buf[at]
        if first >> 4 != 4 or first & 0x0F < 5:
            return None
        proto, fragment = buf[at + 9], (buf[at + 6] << 8 | buf[at + 7]) & 0x1FFF
        src, dst = IPV4_ENDS.unpack_from(buf, at + 12)
        l4 = at + (first & 0x0F) * 4
    elif ethertype == ETHERTYPE_IPV6:
        if len(buf) < at + 40 or buf[at] >> 4 != 6 or buf[at + 6] not in RAW_IPV6_PROTOS:
            return None
        proto, fragment = buf[at + 6], 0
        s0, s1, d0, d1 = IPV6_ENDS.unpack_from(buf, at + 8)
        src, dst = s0 << 64 | s1, d0 << 64 | d1
        l4 = at + 40
    else:
        return None
    if (proto in (PROTO_TCP, PROTO_UDP)) and not fragment:
        if len(buf) < l4 + 4:
            return None
        sport, dport = PORTS.unpack_from(buf, l4)
        if proto == PROTO_TCP:
            src, dst = src << 16 | sport, dst << 16 | dport
        elif sport in GLOBAL_UDP_PORTS or dport in GLOBAL_UDP_PORTS:
            return GLOBAL
    return shard_of((proto, src, dst) if src <= dst else (proto, dst, src), count)


def outermost(pkt: Packet) -> Packet:
    while pkt.outer is not None:
        pkt = pkt.outer
    return pkt


def packet_owner(pkt: Packet, count: int) -> int:
    """The shard a decoded frame belongs to: its outermost IP layer's flow key's, GLOBAL for
    what spans flows (module doc)."""
    outer = outermost(pkt)
    if outer.src is None:
        return GLOBAL
    if outer.proto == PROTO_UDP and not outer.fragment and (
            outer.sport in GLOBAL_UDP_PORTS or outer.dport in GLOBAL_UDP_PORTS):
        return GLOBAL
    if count == 1:
        return GLOBAL
    return shard_of(flow_key(outer), count)


@dataclass(slots=True)
class Shard:
    """One shard of `count`: the pipeline calls `keep_raw` for every frame, `keep` for every
    decoded one and `keep_undecodable` for one that did not decode, and `collect` once at the
    end. A `given` shard (a byte-range shard, extract/spill.py) is handed only its own frames:
    it keeps them all, and notes what the merge must know of them."""

    index: int
    count: int
    announcements: bool = False  #: an LLDP or CDP frame was seen (every shard decodes them)
    inner_arp: bool = False  #: ARP inside an IP tunnel (in a frame this shard kept)
    conflicts: set[str] = field(default_factory=set)  #: what forces one walk instead
    extractors: dict = field(default_factory=dict)  #: name -> (bugs, first bug, evicted, note)
    facts: list[tuple] = field(default_factory=list)  #: the fact table's rows (FactTable.rows)
    tallies: dict = field(default_factory=dict)  #: decoder/decapsulation notice counts
    tunnelled: int = 0
    #: flows held at each checkpoint before silent ones leave, and at the end: summed over
    #: the shards, what one walk would hold (extract/flows.py)
    flow_peaks: list[int] = field(default_factory=list)
    given: bool = False  #: handed only its own frames (they were routed by `owner`)
    mine: bool | None = None  #: the last raw decision: kept by key, or None (decode to decide)

    def keep_raw(self, linktype: int, buf) -> bool:
        """False when the frame's raw key names another shard (it is then not decoded)."""
        if self.given:
            self.mine = None
            return True
        owner = raw_owner(linktype, buf, self.count)
        self.mine = None if owner is None else owner == self.index
        return self.mine is not False

    def keep_undecodable(self, frame: int) -> bool:
        return self.given or (self.index == GLOBAL if self.mine is None else self.mine)

    def keep(self, pkt: Packet) -> bool:
        outer = outermost(pkt)
        if outer is not pkt:  # tunnelled: goes with its outermost carrier
            self._inner(pkt)
        if self.mine is not None:  # decided by its raw key
            return True
        if outer.src is None and _link_announcement(outer):
            self.announcements = True
        return self.given or packet_owner(pkt, self.count) == self.index

    def _inner(self, pkt: Packet) -> None:
        if pkt.src is None:
            if _link_announcement(pkt):
                self.conflicts.add("LLDP or CDP inside a tunnel")
            elif pkt.ethertype == ETHERTYPE_ARP:
                self.inner_arp = True
        elif pkt.proto == PROTO_UDP and not pkt.fragment and (
                pkt.sport in GLOBAL_UDP_PORTS or pkt.dport in GLOBAL_UDP_PORTS):
            self.conflicts.add("DHCP inside a tunnel")

    def collect(self, undecodable, tunnelled: int, too_deep, inner_lost, instances, tallies, table) -> None:
        """What the merge needs beyond ExtractResult (manifest_rows' inputs and the facts, as
        plain data)."""
        self.facts = table.rows()
        self.tunnelled = tunnelled
        self.tallies = {"decoder": dict(undecodable.by_kind), "too-deep": dict(too_deep.by_kind),
                        "inner-lost": dict(inner_lost.by_kind)}
        self.extractors = {ex.NAME: (ex.VERSION, tallies[ex.NAME].count, tallies[ex.NAME].first,
                                     dict(tallies[ex.NAME].by_kind), ex.evicted, ex.note)
                           for ex in instances}
