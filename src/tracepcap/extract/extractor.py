"""The contract every extractor meets (our hookspec): what it declares, when it is called.

An extractor turns decoded packets into facts of one family. It declares, at its top:
`NAME`, `VERSION`, the `KINDS` it emits (FactKind objects with their fixed grade), and what
it wants to see. The pipeline decodes each packet once and hands it only to the extractors
that asked for it; order among extractors never matters because they are independent.

Calling convention:
- `observe(pkt, flow)` for each packet it asked for (`EVERY_IP`, `UDP_PORTS`, `EVERY_UDP`,
  `TCP_PORTS`, `EVERY_TCP`, `IP_PROTOS`, `NON_IP`, `CARRIERS`); TCP segments only when they
  carry data or a SYN, FIN or RST, in capture order (`segments.py` puts
  them in sequence order); `flow` is the conversation the packet belongs to (None for
  non-IP frames and for carriers).
  A tunnelled frame is seen as its innermost packet; the packets that carried it (each
  with `carries` set) go to `EVERY_IP` extractors too, and to those asking for `CARRIERS`,
  which also see the innermost packet itself (`tunnel` set, `carries` None, `flow` None).
- Senders (`SENDERS`): what every IP packet says of its sender (address, MAC, TTL, VLAN tags,
  whether it went to a group) is tallied by the pipeline itself, keyed by all five: `sighted(pkt)`
  is called for the first packet of each such key, and `repeated(tallies)` once before
  `finish()`, with {(src, src MAC, TTL, VLAN ids, to a group): [repeats, last frame, last
  time]}. Most packets repeat a key, so they cost a dict update instead of a call per
  extractor. Past `Limits.max_facts` keys every packet of a new key is `sighted`.
- `TCP_SYNS`: each TCP segment with SYN set; `UDP_REPLIES`: a UDP datagram of a conversation
  whose answering side has sent exactly one (`flow.pkts_ba == 1`), to check further. Carriers
  are tallied and offered to these too.
- `observe_stream(head)` once per TCP direction with its first bytes in sequence order
  (`TCP_STREAMS`), when the head is complete (limit reached, FIN/RST, or end of capture).
- `finish()` once at the end: emit what needed the whole capture (joins, lookups).
An exception from any of these is caught per call by the pipeline, counted with its frame,
and turns the extractor's manifest row to partial; the walk goes on.
Never: open the capture, write the store, or decide between conflicting facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..limits import Limits
from .facts import Emitter, FactKind
from .flows import Flow
from .packet import Packet

# read by mypyc when setup.py compiles this module (mypy, its build requirement, brings
# mypy_extensions); a no-op where it is not installed
try:
    from mypy_extensions import mypyc_attr
except ImportError:
    from .._pure import mypyc_attr  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class StreamHead:
    """The first bytes one side of a TCP connection sent, reassembled in sequence order."""

    flow: Flow
    src: str
    sport: int
    dst: str
    dport: int
    data: bytes
    first_frame: int
    first_ts: float
    from_initiator: bool | None  # None when no SYN was seen


# compiled with setup.py's hot path, and subclassed by extractors that are not (plug-ins too)
@mypyc_attr(allow_interpreted_subclasses=True)
class Extractor:
    NAME: ClassVar[str]
    VERSION: ClassVar[str]
    KINDS: ClassVar[tuple[FactKind, ...]] = ()
    EVERY_IP: ClassVar[bool] = False
    SENDERS: ClassVar[bool] = False  #: `sighted` / `repeated` (module doc)
    TCP_SYNS: ClassVar[bool] = False  #: TCP segments with SYN set
    UDP_REPLIES: ClassVar[bool] = False  #: datagrams of a UDP conversation's first answer
    NON_IP: ClassVar[bool] = False  #: frames that are not IP (ARP, LLDP, CDP, ...)
    UDP_PORTS: ClassVar[frozenset[int]] = frozenset()  #: datagrams from or to these ports
    #: every UDP datagram, whatever its ports (a protocol recognised by its own header)
    EVERY_UDP: ClassVar[bool] = False
    TCP_PORTS: ClassVar[frozenset[int]] = frozenset()  #: TCP segments from or to these ports
    #: every TCP segment with data, whatever its ports (a protocol recognised by its bytes)
    EVERY_TCP: ClassVar[bool] = False
    #: with EVERY_TCP, the first payload bytes a direction it does not read yet must start
    #: with for it to begin reading; it then marks the direction in `flow.followed` (bit 1
    #: a -> b, bit 2 b -> a) and gets every segment of it. The pipeline drops the other
    #: segments, so most of a capture costs one test instead of a call. None: every segment.
    TCP_FIRST_BYTES: ClassVar[frozenset[int] | None] = None
    IP_PROTOS: ClassVar[frozenset[int]] = frozenset()  #: other IP protocols (ICMPv6: 58)
    TCP_STREAMS: ClassVar[bool] = False  #: the first bytes of each TCP direction
    CARRIERS: ClassVar[bool] = False  #: packets that carried a tunnel (`pkt.carries`), and the inner one

    def __init__(self, emit: Emitter, limits: Limits) -> None:
        self.emit = emit
        self.limits = limits
        self.evicted = 0  #: entries this extractor dropped from a bounded table (manifest)
        self.note: str | None = None  #: what it could not do, for its manifest row (set in finish)

    def observe(self, pkt: Packet, flow: Flow | None) -> None:
        pass

    def observe_stream(self, head: StreamHead) -> None:
        pass

    def sighted(self, pkt: Packet) -> None:
        pass

    def repeated(self, tallies: dict[tuple, list]) -> None:
        pass

    def finish(self) -> None:
        pass
