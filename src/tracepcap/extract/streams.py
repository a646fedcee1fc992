"""Reassembly of the first bytes of each TCP direction, in sequence order.

A TLS ClientHello often spans two segments and a certificate nearly always does; decoding
single segments would silently lose those names. Each direction keeps at most
`stream_head_bytes`; at most `max_open_stream_heads` directions reassemble at once (the
oldest is delivered early when a new one needs room, counted in `evicted`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from .decoders.tcp import FIN, RST, SYN
from .extractor import StreamHead
from .flows import Flow
from .packet import Packet


class _Head:
    __slots__ = ("flow", "forward", "pkt_src", "sport", "dst", "dport", "base", "segments",
                 "size", "first_frame", "first_ts")

    def __init__(self, flow: Flow, forward: bool, pkt: Packet, base: int) -> None:
        self.flow, self.forward = flow, forward
        # only IP packets reach a stream head: their addresses are set
        self.pkt_src, self.sport, self.dst, self.dport = cast(str, pkt.src), pkt.sport, cast(str, pkt.dst), pkt.dport
        self.base = base
        self.segments: dict[int, bytes] = {}
        self.size = 0
        self.first_frame, self.first_ts = pkt.frame, pkt.ts


class StreamHeads:
    def __init__(self, head_bytes: int, max_open: int, deliver: Callable[[StreamHead], None]) -> None:
        self.head_bytes = head_bytes
        self.max_open = max_open
        self.deliver = deliver
        self.evicted = 0
        self._open: dict[tuple[Flow, bool], _Head] = {}
        self._syn_seq: dict[tuple[Flow, bool], int] = {}

    def feed(self, pkt: Packet, flow: Flow, forward: bool) -> None:
        bit = 1 if forward else 2
        if flow.head_done & bit:
            return
        key = (flow, forward)
        if pkt.flags & SYN:
            if len(self._syn_seq) > self.max_open * 4:  # SYNs never followed by data
                self._syn_seq.clear()
            self._syn_seq[key] = (pkt.seq + 1) & 0xFFFFFFFF
            return
        head = self._open.get(key)
        data = pkt.payload
        if head is None:
            if not data:
                if pkt.flags & (FIN | RST):
                    flow.head_done |= bit
                return
            if len(self._open) >= self.max_open:
                self.evicted += 1
                self._finish(next(iter(self._open)))
            base = self._syn_seq.pop(key, pkt.seq)
            if (pkt.seq + 1) & 0xFFFFFFFF == base:
                base = pkt.seq  # some generators start data at the SYN's own sequence number
            head = self._open[key] = _Head(flow, forward, pkt, base)
        if data:
            offset = (pkt.seq - head.base) & 0xFFFFFFFF
            if offset < self.head_bytes and offset not in head.segments:
                chunk = bytes(data[: self.head_bytes - offset])
                head.segments[offset] = chunk
                head.size += len(chunk)
        if pkt.flags & (FIN | RST) or self._contiguous(head) >= self.head_bytes:
            self._finish(key)

    def _contiguous(self, head: _Head) -> int:
        if head.size < self.head_bytes:
            return 0
        end = 0
        for offset in sorted(head.segments):
            if offset > end:
                break
            end = max(end, offset + len(head.segments[offset]))
        return end

    def _finish(self, key: tuple[Flow, bool]) -> None:
        head = self._open.pop(key)
        flow = head.flow
        flow.head_done |= 1 if head.forward else 2
        out = bytearray()
        for offset in sorted(head.segments):
            if offset > len(out):
                break  # a hole: what follows it is not in order yet, stop at the gap
            out += head.segments[offset][len(out) - offset:]
        if not out:
            return
        from_a = head.forward
        initiator = None if flow.initiator is None else (flow.initiator == ("a" if from_a else "b"))
        self.deliver(StreamHead(flow, head.pkt_src, head.sport, head.dst, head.dport,
                                bytes(out[: self.head_bytes]), head.first_frame, head.first_ts, initiator))

    def close(self, flow: Flow) -> None:
        """The flow is being written out: deliver its open heads, forget its SYNs."""
        for key in ((flow, True), (flow, False)):
            if key in self._open:
                self._finish(key)
            self._syn_seq.pop(key, None)

    def drain(self) -> None:
        for key in list(self._open):
            self._finish(key)
