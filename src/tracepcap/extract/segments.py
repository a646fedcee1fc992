"""TCP bytes in sequence order, per direction, for extractors that read every message of a
connection (DNS over TCP, HTTP) rather than only its first bytes (streams.py).

`InOrder` turns one direction's segments, as captured, into its bytes in order: a
retransmission's old bytes are dropped, a segment that arrives early waits (at most
`waiting_bytes` of them) until the hole before it fills. When the waiting room overflows,
the hole is given up: the caller is told bytes were lost and resynchronises.
`Followed` holds the per-direction state of one extractor, at most `limit` at once: past it
the oldest is dropped and counted; a direction's state goes when its FIN or RST is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .decoders.tcp import SYN
from .flows import Flow
from .packet import Packet

SEQ_SPACE = 1 << 32
HALF = 1 << 31
State = TypeVar("State")


class InOrder:
    __slots__ = ("next_seq", "waiting", "waiting_size", "limit")

    def __init__(self, seq: int, waiting_bytes: int) -> None:
        self.next_seq = seq
        self.waiting: dict[int, bytes] = {}
        self.waiting_size = 0
        self.limit = waiting_bytes

    def push(self, seq: int, data) -> tuple[bytes, bool]:
        """(the bytes now in order, whether bytes were lost just before them)."""
        offset = (seq - self.next_seq) % SEQ_SPACE
        if offset >= HALF:  # starts before what we have: a retransmission, maybe longer
            overlap = SEQ_SPACE - offset
            if overlap >= len(data):
                return b"", False
            data, offset = data[overlap:], 0
        if offset:
            if self.waiting_size + len(data) <= self.limit:
                if len(data) > len(self.waiting.get(seq, b"")):
                    self.waiting_size += len(data) - len(self.waiting.get(seq, b""))
                    self.waiting[seq] = bytes(data)
                return b"", False
            self.waiting.clear()  # the hole never filled: give it up and start again here
            self.waiting_size = 0
            self.next_seq = (seq + len(data)) % SEQ_SPACE
            return bytes(data), True
        out = bytes(data)
        self.next_seq = (self.next_seq + len(data)) % SEQ_SPACE
        while self.waiting:
            more = False
            for start in list(self.waiting):
                ahead = (start - self.next_seq) % SEQ_SPACE
                if ahead == 0 or ahead >= HALF:
                    chunk = self.waiting.pop(start)
                    self.waiting_size -= len(chunk)
                    skip = (SEQ_SPACE - ahead) % SEQ_SPACE
                    if skip < len(chunk):
                        out += chunk[skip:]
                        self.next_seq = (self.next_seq + len(chunk) - skip) % SEQ_SPACE
                        more = True
            if not more:
                break
        return out, False


def is_forward(pkt: Packet, flow: Flow) -> bool:
    """Was `pkt` sent by the flow's side `a`?"""
    return pkt.sport == flow.aport and pkt.src == flow.a


class Followed(Generic[State]):
    """One extractor's state for each TCP direction it follows (module doc), keyed by
    (flow, sent by side a), and where each direction's data starts when its SYN was seen."""

    __slots__ = ("limit", "track_syns", "states", "syns", "evicted")

    def __init__(self, limit: int, track_syns: bool = True) -> None:
        self.limit, self.track_syns = limit, track_syns
        self.states: dict[tuple[Flow, bool], State] = {}
        self.syns: dict[tuple[Flow, bool], int] = {}
        self.evicted = 0

    def find(self, pkt: Packet, flow: Flow) -> tuple[tuple[Flow, bool], State | None]:
        """The key of `pkt`'s direction and its state (None until `start`). A SYN notes
        where the direction's data will start; FIN and RST are the caller's to `end`."""
        key = (flow, pkt.sport == flow.aport and pkt.src == flow.a)
        if pkt.flags & SYN and self.track_syns:
            if len(self.syns) >= self.limit * 4:  # SYNs never followed by data
                self.syns.clear()
            self.syns[key] = (pkt.seq + 1) % SEQ_SPACE
        return key, self.states.get(key)

    def start(self, key: tuple[Flow, bool], make: Callable[[int], State], pkt: Packet) -> State:
        """Follow a direction from `pkt`, its first data seen: `make` gets the sequence
        number its data starts at (after its SYN when that was seen and tracked, else `pkt`'s)."""
        if len(self.states) >= self.limit:
            del self.states[next(iter(self.states))]
            self.evicted += 1
        seq = self.syns.pop(key, pkt.seq)
        if (pkt.seq - seq) % SEQ_SPACE >= HALF:
            seq = pkt.seq  # data before the SYN's sequence number: trust the data
        state = self.states[key] = make(seq)
        return state

    def end(self, key: tuple[Flow, bool]) -> None:
        """Forget a direction: its FIN or RST was read."""
        self.states.pop(key, None)
        self.syns.pop(key, None)
