"""Which packets one shard of a sharded walk keeps, and what it reports for the merge.

Every shard streams the whole capture and decodes each frame's headers; it keeps a frame
when the frame's shard key hashes (CRC-32: stable across processes and machines, unlike
Python's salted `hash()`) to its index. The key is chosen so that every piece of state the
walk keeps lives inside one shard:

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

Every shard sees every frame in `keep`, so the flags and the frame count are the same in all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from zlib import crc32

from .packet import ETHERTYPE_ARP, PROTO_TCP, PROTO_UDP, Packet

GLOBAL = 0  #: the shard that holds cross-flow state
#: UDP ports whose state spans flows: DHCP (67, 68), DHCPv6 (546, 547)
GLOBAL_UDP_PORTS = frozenset((67, 68, 546, 547))
ETHERTYPE_LLDP = 0x88CC
LENGTH_FIELD_MAX = 0x05DC  # an 802.3 length, not an ethertype: LLC frames such as CDP


def shard_of(key: str, shards: int) -> int:
    """The shard a key belongs to: stable across processes, runs and machines."""
    return crc32(key.encode()) % shards


def flow_key(pkt: Packet) -> str:
    """The shard key of a decoded IP packet (module doc); `pkt` is the outermost IP layer."""
    src, dst = pkt.src, pkt.dst
    if pkt.proto == PROTO_TCP and not pkt.fragment:
        a, b = (src, pkt.sport), (dst, pkt.dport)
        if b < a:
            a, b = b, a
        return f"6 {a[0]} {a[1]} {b[0]} {b[1]}"
    if dst < src:
        src, dst = dst, src
    return f"{pkt.proto} {src} {dst}"


def _link_announcement(pkt: Packet) -> bool:
    return pkt.ethertype == ETHERTYPE_LLDP or 0 < pkt.ethertype <= LENGTH_FIELD_MAX


@dataclass(slots=True)
class Shard:
    """One shard of `count`: the pipeline calls `keep` for every decoded frame and
    `keep_undecodable` for one that did not decode, and `collect` once at the end."""

    index: int
    count: int
    announcements: bool = False  #: an LLDP or CDP frame was seen (in any shard's part)
    inner_arp: bool = False  #: ARP inside an IP tunnel
    conflicts: set[str] = field(default_factory=set)  #: what forces one walk instead
    extractors: dict = field(default_factory=dict)  #: name -> (bugs, first bug, evicted, note)
    tallies: dict = field(default_factory=dict)  #: decoder/decapsulation notice counts
    tunnelled: int = 0

    def keep_undecodable(self, frame: int) -> bool:
        return self.index == GLOBAL

    def keep(self, pkt: Packet) -> bool:
        outer = pkt
        while outer.outer is not None:
            outer = outer.outer
        if outer is not pkt:  # tunnelled: goes with its outermost carrier
            self._inner(pkt)
        if outer.src is None:
            if _link_announcement(outer):
                self.announcements = True
            return self.index == GLOBAL
        if outer.proto == PROTO_UDP and not outer.fragment and (
                outer.sport in GLOBAL_UDP_PORTS or outer.dport in GLOBAL_UDP_PORTS):
            return self.index == GLOBAL
        if self.count == 1:
            return True
        return crc32(flow_key(outer).encode()) % self.count == self.index

    def _inner(self, pkt: Packet) -> None:
        if pkt.src is None:
            if _link_announcement(pkt):
                self.conflicts.add("LLDP or CDP inside a tunnel")
            elif pkt.ethertype == ETHERTYPE_ARP:
                self.inner_arp = True
        elif pkt.proto == PROTO_UDP and not pkt.fragment and (
                pkt.sport in GLOBAL_UDP_PORTS or pkt.dport in GLOBAL_UDP_PORTS):
            self.conflicts.add("DHCP inside a tunnel")

    def collect(self, undecodable, tunnelled: int, too_deep, inner_lost, instances, tallies) -> None:
        """What the merge needs beyond ExtractResult (manifest_rows' inputs, as plain data)."""
        if self.inner_arp and self.announcements:
            self.conflicts.add("ARP inside a tunnel, with LLDP or CDP in the capture")
        self.tunnelled = tunnelled
        self.tallies = {"decoder": dict(undecodable.by_kind), "too-deep": dict(too_deep.by_kind),
                        "inner-lost": dict(inner_lost.by_kind)}
        self.extractors = {ex.NAME: (ex.VERSION, tallies[ex.NAME].count, tallies[ex.NAME].first,
                                     dict(tallies[ex.NAME].by_kind), ex.evicted, ex.note)
                           for ex in instances}
