"""Conversations: one row per 5-tuple (plus, for a tunnelled packet, the identity of the
tunnels it came through), with packets and bytes each way and the initiator only when it
was measured (a SYN without ACK was seen), never guessed from port numbers.

A conversation leaves the table at the end of the walk, when it has been silent for
`Limits.flow_idle_seconds`, or, past `Limits.max_flows` held at once, as the least recently
active. Silence is judged at checkpoints (every `IdleClock.EVERY` records) against the
capture's clock (the latest timestamp read so far), and each flow's silence is dated by the
first checkpoint after its last packet: both depend on record numbers and timestamps of the
whole capture only, never on which other flows a walk holds, so every shard of a sharded
walk expires exactly the flows one walk would."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import ClassVar, cast

from .decoders.tcp import ACK, SYN
from .packet import PROTO_TCP, Packet

PROTO_NAMES = {1: "icmp", 6: "tcp", 17: "udp", 58: "icmpv6", 132: "sctp"}


class Flow:
    """`a` is the first side seen sending; `initiator` is "a", "b" or None (unknown)."""

    __slots__ = ("proto", "a", "aport", "b", "bport", "first_ts", "last_ts", "first_frame",
                 "pkts_ab", "bytes_ab", "pkts_ba", "bytes_ba", "initiator", "head_done",
                 "followed", "last_frame")

    def __init__(self, proto: int, a: str, aport: int, b: str, bport: int, ts: float, frame: int) -> None:
        self.proto, self.a, self.aport, self.b, self.bport = proto, a, aport, b, bport
        self.first_ts = self.last_ts = ts
        self.first_frame = self.last_frame = frame
        self.pkts_ab = self.bytes_ab = self.pkts_ba = self.bytes_ba = 0
        self.initiator: str | None = None
        self.head_done = 0  # bit 1: a->b stream head delivered, bit 2: b->a
        self.followed = 0  # bit 1: an EVERY_TCP extractor reads a->b, bit 2: b->a

    def row(self) -> dict:
        """The conversation as stored: oriented initiator -> responder when known."""
        swap = self.initiator == "b"
        src, sport, dst, dport = (self.b, self.bport, self.a, self.aport) if swap else (
            self.a, self.aport, self.b, self.bport)
        out = (self.pkts_ba, self.bytes_ba, self.pkts_ab, self.bytes_ab) if swap else (
            self.pkts_ab, self.bytes_ab, self.pkts_ba, self.bytes_ba)
        return {"proto": PROTO_NAMES.get(self.proto, str(self.proto)), "src": src, "sport": sport,
                "dst": dst, "dport": dport, "first_time": self.first_ts, "last_time": self.last_ts,
                "first_frame": self.first_frame, "packets_fwd": out[0], "bytes_fwd": out[1],
                "packets_rev": out[2], "bytes_rev": out[3],
                "initiator": src if self.initiator else None}


class FlowTable:
    """Holds at most `limit` flows; past it the least recently active one is handed to `spill`
    and forgotten (a later packet of it starts a new row), counted in `evicted`."""

    def __init__(self, limit: int, spill: Callable[[Flow], None]) -> None:
        self.limit = limit
        self.spill = spill
        self.evicted = 0
        self.flows: OrderedDict[tuple, Flow] = OrderedDict()  # least recently active first

    def update(self, pkt: Packet) -> tuple[Flow, bool]:
        """Account the packet; return its flow and whether it travels a -> b."""
        # only IP packets are accounted: their addresses are set
        src, dst, sport, dport = cast(str, pkt.src), cast(str, pkt.dst), pkt.sport, pkt.dport
        key: tuple  # grows by the tunnels' identities below
        if (src, sport) <= (dst, dport):
            key = (pkt.proto, src, sport, dst, dport)
        else:
            key = (pkt.proto, dst, dport, src, sport)
        if pkt.tunnel is not None:  # the same inner addresses in two tunnels: two conversations
            key += pkt.tunnel_key()
        flow = self.flows.get(key)
        if flow is None:
            if len(self.flows) >= self.limit:  # the least recently active goes: O(1)
                self.spill(self.flows.popitem(last=False)[1])
                self.evicted += 1
            flow = self.flows[key] = Flow(pkt.proto, src, sport, dst, dport, pkt.ts, pkt.frame)
        else:
            self.flows.move_to_end(key)
        forward = flow.a == src and flow.aport == sport
        if forward:
            flow.pkts_ab += 1
            flow.bytes_ab += pkt.ip_len
        else:
            flow.pkts_ba += 1
            flow.bytes_ba += pkt.ip_len
        flow.last_ts, flow.last_frame = pkt.ts, pkt.frame
        if pkt.proto == PROTO_TCP and pkt.flags & (SYN | ACK) == SYN and flow.initiator is None:
            flow.initiator = "a" if forward else "b"
        return flow, forward

    def expire(self, silent: Callable[[Flow], bool], closing: Callable[[Flow], None]) -> None:
        """Write out, least recently active first, the flows `silent` says are; `closing`
        is told of each before it is written out."""
        flows = self.flows
        while flows:
            flow = flows[next(iter(flows))]
            if not silent(flow):
                return
            flows.popitem(last=False)
            closing(flow)
            self.spill(flow)

    def drain(self) -> None:
        for flow in self.flows.values():
            self.spill(flow)
        self.flows.clear()


class IdleClock:
    """The capture's clock at every checkpoint (module doc), and which flows it finds silent."""

    EVERY: ClassVar[int] = 8192  #: records between checkpoints (ClassVar: a class attribute compiled too)

    def __init__(self, idle_seconds: float) -> None:
        self.idle = idle_seconds
        self.now = float("-inf")  #: the latest timestamp read so far
        self.marks: list[float] = []  #: the clock at checkpoint i, after record (i + 1) * EVERY

    def checkpoint(self) -> None:
        self.marks.append(self.now)

    def silent(self, flow: Flow) -> bool:
        # checkpoint i runs before record (i + 1) * EVERY is read: the first one after the
        # flow's last record is number last_frame // EVERY
        return self.now - self.marks[flow.last_frame // self.EVERY] >= self.idle
