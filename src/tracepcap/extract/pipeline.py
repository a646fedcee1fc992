"""Extract's entry point: walk a capture once and return its facts, conversations and
manifest. Deterministic: the same bytes give the same result.

The per-packet loop decodes headers once (`packet.decode_frame`), accounts the flow, feeds
the TCP stream heads, and hands the packet to the extractors that asked for it. A tunnelled
frame is handled as its innermost packet; the packets that carried it are accounted too
(their own conversations and endpoints, the EVERY_IP and CARRIERS extractors), and a
"decapsulation" manifest row counts tunnelled frames, nesting past the depth bound and
inner packets that did not decode. A broad
`except Exception` lives here and only here: one extractor failing on one packet is
recorded and the walk goes on.

Bytes that violate their protocol are normal in real captures, not damage: a decoder's
`Truncated` or `Malformed` (a frame whose headers do not decode, a tunnel whose inner packet
does not, an extractor's payload) becomes a **notice** (kind, entity, frame, short text;
Zeek's "weird"), counted per kind, the first `Limits.max_notices` kept, and the row it is
counted in stays `completed`. Any other exception from an extractor is a bug: its row is
`partial`, and the first traceback goes to the log.
"""

from __future__ import annotations

import importlib
import ipaddress
import logging
import pkgutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from ..keys import ip_sort_key
from ..limits import Limits
from ..visible import visible
from . import extractors as extractors_pkg
from .decoders import DecodeError, Malformed, Truncated
from .decoders.tcp import ACK, FIN, RST, SYN
from .extractor import Extractor
from .facts import Emitter, FactTable
from .flows import Flow, FlowTable, IdleClock
from .packet import DEPTH_EXCEEDED, PROTO_TCP, PROTO_UDP, Packet, decode_frame, is_group
from .reader import CaptureReader, Numbered, RecordSource
from .results import ExtractResult, ManifestRow, Notice, manifest_rows
from .shard import Shard
from .streams import StreamHead, StreamHeads

__all__ = ["ExtractResult", "ManifestRow", "Notice", "Notices", "discover", "extract", "manifest_rows"]

log = logging.getLogger(__name__)
SEGMENT_FLAGS = SYN | FIN | RST  # TCP segments without data that segment readers still see
SYN_ACK = SYN | ACK
PROGRESS_EVERY = IdleClock.EVERY  # records between progress callbacks, and flow checkpoints
BROADCAST_MAC = b"\xff" * 6


class Notices:
    """The notices of one walk: every one counted by its tally, the first `limit` kept, so a
    hostile capture costs a bounded list."""
    __slots__ = ("limit", "kept")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept: list[Notice] = []

    def add(self, kind: str, subject: object, frame: int, err: DecodeError) -> None:
        if len(self.kept) < self.limit:
            # a decoder's message may quote the packet: it is wire text like any fact value
            self.kept.append(Notice(kind, _entity(subject), frame, visible(str(err))[:NOTICE_TEXT]))


NOTICE_TEXT = 200  #: characters of a decoder's message kept in a notice


def _entity(subject: Any) -> str | None:
    """Who sent what a notice is about: a Packet's or StreamHead's source address, or MAC."""
    src = getattr(subject, "src", None)
    if src is None and getattr(subject, "src_mac", None):
        return subject.src_mac_text
    return src


def discover() -> list[type[Extractor]]:
    """Every Extractor subclass in tracepcap.extract.extractors, sorted by NAME.
    Import errors propagate: a broken module stops start-up instead of losing a protocol."""
    found: dict[str, type[Extractor]] = {}
    for info in pkgutil.iter_modules(extractors_pkg.__path__):
        module = importlib.import_module(f"{extractors_pkg.__name__}.{info.name}")
        for value in vars(module).values():
            # getattr: mypyc reads `cls.__module__` as an instance attribute of a class object
            if isinstance(value, type) and issubclass(value, Extractor) and value is not Extractor \
                    and getattr(value, "__module__", None) == module.__name__:
                if value.NAME in found:
                    raise RuntimeError(f"extractor name {value.NAME!r} is claimed by "
                                       f"{getattr(found[value.NAME], '__module__', None)} and {module.__name__}")
                found[value.NAME] = value
    return [found[name] for name in sorted(found)]


class _Tally:
    """What one extractor (or the decoder, or decapsulation) met: notices by kind, and bugs
    (how many, and the first)."""
    __slots__ = ("name", "notices", "kind", "by_kind", "count", "first")

    def __init__(self, name: str, notices: Notices, kind: str | None = None) -> None:
        self.name, self.notices, self.kind = name, notices, kind
        self.by_kind: dict[str, int] = {}
        self.count = 0
        self.first = ""

    @property
    def noticed(self) -> int:
        return sum(self.by_kind.values())

    def record(self, frame: int, err: Exception, subject: object = None) -> None:
        if isinstance(err, DecodeError):
            kind = self.kind or f"{self.name}-{_error_word(err)}"
            self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
            self.notices.add(kind, subject, frame, err)
            return
        if not self.count:
            self.first = visible(f"frame {frame}: {type(err).__name__}: {err}")
            log.warning("extractor %s failed on frame %d (a bug: later failures are only counted)",
                        self.name, frame, exc_info=err)
        self.count += 1

    def notice_text(self) -> str | None:
        if not self.by_kind:
            return None
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.by_kind.items()))
        return f"{self.noticed} notice{'' if self.noticed == 1 else 's'} ({kinds})"


def _error_word(err: DecodeError) -> str:
    return "truncated" if isinstance(err, Truncated) else "malformed" if isinstance(err, Malformed) else "undecodable"


#: an extractor's bound observe, or its observe_stream or finish adapted to (subject, flow)
Hook = tuple[Callable[[Any, Flow | None], None], _Tally]


def deliver(hooks: Iterable[Hook], frame: int, subject: object, flow: Flow | None) -> None:
    """Call each hook with (subject, flow): a packet, a stream head or None (at the end). This
    is the named boundary where a broad except lives: one extractor failing on one packet is
    counted against it (a notice when a decoder said the bytes violate their protocol, a bug
    otherwise) and the others, and the walk, go on. Fixed arity: it runs for every packet,
    and `*args` cost ~0.1 us a call (~2 % of the walk)."""
    for hook, tally in hooks:
        try:
            hook(subject, flow)
        except Exception as err:  # noqa: BLE001 - the named per-packet boundary
            tally.record(frame, err, subject)


def _deliver_by_port(by_port: dict[int, list[Hook]], frame: int, pkt: Packet, flow: Flow) -> None:
    """Deliver to the extractors that asked for the packet's source or destination port; one
    that asked for both (DHCP 67/68) sees the packet once."""
    senders = by_port.get(pkt.sport)
    receivers = by_port.get(pkt.dport) if pkt.dport != pkt.sport else None
    if senders:
        deliver(senders, frame, pkt, flow)
    if receivers:
        if senders:
            receivers = [hook for hook in receivers if hook not in senders]
        deliver(receivers, frame, pkt, flow)


def is_host_address(ip: str) -> bool:
    """Hosts are unicast addresses; broadcast, multicast and unspecified ones are not."""
    addr = ipaddress.ip_address(ip)
    if addr.is_multicast or addr.is_unspecified:
        return False
    return not (addr.version == 4 and addr == ipaddress.IPv4Address("255.255.255.255"))


class _Routes:
    """Set-up: the hooks each kind of packet goes to, by what each extractor asked for."""
    __slots__ = ("every_ip", "sighted_to", "syns_to", "replies_to", "non_ip", "streams_to", "carriers_to",
                 "every_udp", "every_tcp", "tcp_first_bytes", "by_tcp_port", "by_udp_port", "by_proto")

    def __init__(self, instances: list[Extractor], tallies: dict[str, _Tally]) -> None:
        self.every_ip: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.EVERY_IP]
        self.sighted_to: list[Hook] = [(_Sighted(ex), tallies[ex.NAME]) for ex in instances if ex.SENDERS]
        self.syns_to: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.TCP_SYNS]
        self.replies_to: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.UDP_REPLIES]
        self.non_ip: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.NON_IP]
        self.streams_to: list[Hook] = [(_Streams(ex), tallies[ex.NAME]) for ex in instances if ex.TCP_STREAMS]
        self.carriers_to: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.CARRIERS]
        self.every_udp: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.EVERY_UDP]
        self.every_tcp: list[Hook] = [(ex.observe, tallies[ex.NAME]) for ex in instances if ex.EVERY_TCP]
        # the first bytes at which one of them may begin reading a direction (None: any)
        first: frozenset[int] | None = frozenset()
        for ex in instances:
            if ex.EVERY_TCP:
                first = None if ex.TCP_FIRST_BYTES is None or first is None else first | ex.TCP_FIRST_BYTES
        self.tcp_first_bytes = first
        self.by_tcp_port: dict[int, list[Hook]] = {}
        self.by_udp_port: dict[int, list[Hook]] = {}
        self.by_proto: dict[int, list[Hook]] = {}
        for ex in instances:
            hook: Hook = (ex.observe, tallies[ex.NAME])
            for port in ex.UDP_PORTS:
                self.by_udp_port.setdefault(port, []).append(hook)
            for proto in ex.IP_PROTOS:
                self.by_proto.setdefault(proto, []).append(hook)
            for port in ex.TCP_PORTS:
                self.by_tcp_port.setdefault(port, []).append(hook)


class _Sighted:
    """An extractor's `sighted(pkt)` as a hook (subject, flow)."""
    __slots__ = ("extractor",)

    def __init__(self, extractor: Extractor) -> None:
        self.extractor = extractor

    def __call__(self, pkt: Any, flow: Flow | None) -> None:
        self.extractor.sighted(pkt)


class _Streams:
    """An extractor's `observe_stream(head)` as a hook (subject, flow)."""
    __slots__ = ("extractor",)

    def __init__(self, extractor: Extractor) -> None:
        self.extractor = extractor

    def __call__(self, head: Any, flow: Flow | None) -> None:
        self.extractor.observe_stream(head)


class _Spill:
    """The flow table's callback: a conversation written out goes to `on_conversation`, counted."""
    __slots__ = ("on_conversation", "count")

    def __init__(self, on_conversation: Callable[[dict], None]) -> None:
        self.on_conversation = on_conversation
        self.count = 0

    def __call__(self, flow: Flow) -> None:
        self.count += 1
        self.on_conversation(flow.row())


class _StreamsRead:
    """The stream heads' callback: a direction's first bytes, read, go to the TCP_STREAMS hooks."""
    __slots__ = ("hooks",)

    def __init__(self, hooks: list[Hook]) -> None:
        self.hooks = hooks

    def __call__(self, head: StreamHead) -> None:
        deliver(self.hooks, head.first_frame, head, head.flow)


class _Walk:
    """The state of one walk, shared by its loop (`_walk_records`) and the rarer steps it
    calls: the flow table and stream heads, the endpoints and senders seen, the counters."""
    __slots__ = ("routes", "spilled", "flows", "heads", "clock", "endpoints", "senders",
                 "senders_limit", "tunnelled", "undecodable", "too_deep", "inner_lost",
                 "frame", "now", "first_time", "last_time")

    def __init__(self, routes: _Routes, limits: Limits, notices: Notices,
                 on_conversation: Callable[[dict], None]) -> None:
        self.routes = routes
        # the table's and the heads' callbacks hold no reference back to the walk (no cycle:
        # what the walk held is freed as soon as it ends)
        self.spilled = _Spill(on_conversation)
        self.flows = FlowTable(limits.max_flows, self.spilled)
        self.heads = StreamHeads(limits.stream_head_bytes, limits.max_open_stream_heads,
                                 _StreamsRead(routes.streams_to))
        self.clock = IdleClock(limits.flow_idle_seconds)
        self.endpoints: dict[str, bool] = {}  # ip -> ever seen sending (or addressed by unicast MAC)
        # what each packet says of its sender (extractor.py, SENDERS): (src, src MAC, TTL, VLAN
        # ids, to a group) -> [repeats, last frame, last time]
        self.senders: dict[tuple, list] = {}
        self.senders_limit = limits.max_facts
        self.tunnelled = 0
        self.undecodable = _Tally("decoder", notices)
        self.too_deep = _Tally("decapsulation", notices, kind="decapsulation-too-deep")
        self.inner_lost = _Tally("decapsulation", notices)
        self.frame = 0
        self.now = float("-inf")
        self.first_time: float | None = None
        self.last_time: float | None = None

    def checkpoint(self, reader: RecordSource, total: int, shard: Shard | None,
                   on_progress: Callable[[int, int], None]) -> None:
        """Every PROGRESS_EVERY records: progress, and the flows silent too long written out."""
        on_progress(reader.bytes_read, total)
        self.clock.now = self.now
        self.clock.checkpoint()
        if shard is not None:
            shard.flow_peaks.append(len(self.flows.flows))
        self.flows.expire(self.clock.silent, self.heads.close)

    def catch_up(self, frame: int, mark: int, numbered: Numbered, reader: RecordSource, total: int,
                 shard: Shard | None, on_progress: Callable[[int, int], None]) -> int:
        """The checkpoints of a source of some records (`Numbered`) due by `frame`, each at the
        capture's clock then: those one walk ran among the records this walk did not see.
        Returns the next one's frame."""
        while mark <= frame:
            self.now = numbered.now_at(mark)
            self.checkpoint(reader, total, shard, on_progress)
            mark += PROGRESS_EVERY
        return mark

    def see(self, pkt: Packet) -> None:
        """An IP packet's addresses as endpoints (both are set)."""
        endpoints = self.endpoints
        endpoints[cast(str, pkt.src)] = True
        if pkt.dst_mac != BROADCAST_MAC:
            endpoints[cast(str, pkt.dst)] = True
        else:  # a broadcast frame's IP destination is no evidence of a host
            endpoints.setdefault(cast(str, pkt.dst), False)

    def tally_sender(self, pkt: Packet) -> None:
        """The SENDERS step of the main loop (written out there), for a carrier."""
        key = (pkt.src, pkt.src_mac, pkt.ttl, pkt.vlans, is_group(pkt))
        seen = self.senders.get(key)
        if seen is not None:
            seen[0] += 1
            seen[1], seen[2] = pkt.frame, pkt.ts
            return
        if len(self.senders) < self.senders_limit:
            self.senders[key] = [0, pkt.frame, pkt.ts]
        deliver(self.routes.sighted_to, pkt.frame, pkt, None)

    def offer(self, pkt: Packet, flow: Flow) -> None:
        """A carrier to the TCP_SYNS and UDP_REPLIES extractors, as the main loop does."""
        if pkt.fragment:
            return
        if pkt.proto == PROTO_TCP and pkt.flags & SYN:
            deliver(self.routes.syns_to, pkt.frame, pkt, flow)
        elif pkt.proto == PROTO_UDP and flow.pkts_ba == 1:
            deliver(self.routes.replies_to, pkt.frame, pkt, flow)

    def carried(self, pkt: Packet) -> None:
        """Account a tunnelled frame's carriers: their conversations, their endpoints as
        hosts, and the extractors that read every IP packet or carriers."""
        routes = self.routes
        if pkt.inner_error is not None:
            tally = self.too_deep if pkt.inner_error is DEPTH_EXCEEDED else self.inner_lost
            tally.record(pkt.frame, pkt.inner_error, pkt)
        if pkt.tunnel is not None or pkt.carries is not None:
            self.tunnelled += 1
        # a carrier whose inner packet was not read, or the inner packet itself (which tunnel
        # its addresses were in): both are the CARRIERS extractors'
        if pkt.carries is not None or pkt.tunnel is not None:
            deliver(routes.carriers_to, pkt.frame, pkt, None)
        carrier = pkt.outer
        while carrier is not None:
            carrier_flow, _ = self.flows.update(carrier)
            self.see(carrier)
            deliver(routes.every_ip, pkt.frame, carrier, carrier_flow)
            self.tally_sender(carrier)
            self.offer(carrier, carrier_flow)
            deliver(routes.carriers_to, pkt.frame, carrier, None)
            carrier = carrier.outer


def extract(path: Path, capture_id: str, *, limits: Limits = Limits(),
            on_conversation: Callable[[dict], None] = lambda row: None,
            on_progress: Callable[[int, int], None] = lambda done, total: None,
            classes: Iterable[type[Extractor]] | None = None, shard: Shard | None = None,
            recorder=None, reader: RecordSource | None = None) -> ExtractResult:
    """Walk the capture at `path`; conversations go to `on_conversation` as they complete.
    With `shard`, only the frames it keeps are walked (extract/shard.py, extract/parallel.py).
    A `recorder` (`frame_index.FrameIndex`) is handed to the reader to note the framing.
    A `reader` replaces the capture's own (a byte-range shard's records: extract/spill.py).

    Set-up (the extractors, their routes, the walk's state), the loop over the records
    (`_walk_records`), and tear-down (`_tear_down`: what is still open is written out, every
    extractor finishes, the result is assembled)."""
    table = FactTable(limits.max_facts)
    instances = [cls(Emitter(cls.NAME, cls.VERSION, table), limits) for cls in (classes or discover())]
    notices = Notices(limits.max_notices)
    tallies = {ex.NAME: _Tally(ex.NAME, notices) for ex in instances}
    walk = _Walk(_Routes(instances, tallies), limits, notices, on_conversation)
    source: RecordSource = CaptureReader(path, limits, recorder) if reader is None else reader
    try:
        _walk_records(walk, source, shard, on_progress)
        return _tear_down(walk, source, shard, on_progress, capture_id, instances, tallies, table, notices)
    finally:
        source.close()


def _walk_records(walk: _Walk, reader: RecordSource, shard: Shard | None,
                  on_progress: Callable[[int, int], None]) -> None:
    """The per-packet loop. The hot state is held in locals (attribute reads cost per packet)
    and the counters are written back to `walk` at the end."""
    routes, flows, heads, endpoints, senders = walk.routes, walk.flows, walk.heads, walk.endpoints, walk.senders
    every_ip, sighted_to, syns_to, replies_to = routes.every_ip, routes.sighted_to, routes.syns_to, routes.replies_to
    non_ip, streams_to, every_udp, every_tcp = routes.non_ip, routes.streams_to, routes.every_udp, routes.every_tcp
    tcp_first_bytes, by_tcp_port, by_udp_port, by_proto = \
        routes.tcp_first_bytes, routes.by_tcp_port, routes.by_udp_port, routes.by_proto
    senders_limit, undecodable, carried = walk.senders_limit, walk.undecodable, walk.carried
    flows_get, flows_touch = flows.flows.get, flows.flows.move_to_end
    total = reader.total_bytes
    frame, now, first_time, last_time = walk.frame, walk.now, walk.first_time, walk.last_time
    numbered: Numbered | None = getattr(reader, "numbered", None)
    mark = PROGRESS_EVERY  # the next checkpoint's frame, for a Numbered source
    flow: Flow | None
    forward: bool
    key: tuple  # the flow key (flows.py): tunnels' identities lengthen it
    for linktype, ts, wire_len, data in reader.records():
        frame += 1
        if first_time is None:
            first_time = ts
        last_time = ts
        if ts > now:
            now = ts
        if numbered is not None:  # some of the capture's records: their numbers, its clock
            frame = numbered.frame
            if mark <= frame:
                mark = walk.catch_up(frame, mark, numbered, reader, total, shard, on_progress)
        elif not frame % PROGRESS_EVERY:  # before the shard's choice: every shard stops here
            walk.now = now
            walk.checkpoint(reader, total, shard, on_progress)
        if shard is not None and not shard.keep_raw(linktype, data):
            continue
        try:
            pkt = decode_frame(linktype, data, frame, ts, wire_len)
        except DecodeError as err:
            if shard is None or shard.keep_undecodable(frame):
                undecodable.record(frame, err)
            continue
        if shard is not None and not shard.keep(pkt):
            continue
        src = pkt.src
        if pkt.tunnel is not None or pkt.inner_error is not None:
            carried(pkt)
            flow, forward = flows.update(pkt) if src is not None else (None, False)
        elif src is None:
            pass
        else:
            # `FlowTable.update` written out for the untunnelled packet (most of them): the
            # same key, orientation and counters, one call and a dozen attribute reads fewer
            # an IP packet (src set) has its destination set too
            dst, sport, dport, proto = cast(str, pkt.dst), pkt.sport, pkt.dport, pkt.proto
            if src < dst or src == dst and sport <= dport:
                key = (proto, src, sport, dst, dport)
            else:
                key = (proto, dst, dport, src, sport)
            flow = flows_get(key)
            if flow is None:
                flow, forward = flows.update(pkt)
            else:
                flows_touch(key)
                if flow.a == src and flow.aport == sport:
                    forward = True
                    flow.pkts_ab += 1
                    flow.bytes_ab += pkt.ip_len
                else:
                    forward = False
                    flow.pkts_ba += 1
                    flow.bytes_ba += pkt.ip_len
                flow.last_ts, flow.last_frame = ts, frame
                if proto == PROTO_TCP and pkt.flags & SYN_ACK == SYN and flow.initiator is None:
                    flow.initiator = "a" if forward else "b"
        if src is None:
            deliver(non_ip, frame, pkt, None)
            continue
        assert flow is not None  # every packet with addresses has a conversation (above)
        # `see` and `deliver(every_ip, ...)` written out: they run for every packet, and two
        # calls fewer per packet are ~3 % of the walk
        endpoints[src] = True
        if pkt.dst_mac != BROADCAST_MAC:
            endpoints[cast(str, pkt.dst)] = True
        else:
            endpoints.setdefault(cast(str, pkt.dst), False)
        for hook, extractor_tally in every_ip:
            try:
                hook(pkt, flow)
            except Exception as err:  # noqa: BLE001 - deliver()'s boundary, written out
                extractor_tally.record(frame, err, pkt)
        # `tally_sender(pkt)` written out (with `is_group`'s MAC test inline): a dict update
        # for nearly every packet, not a call per SENDERS extractor
        dst_mac = pkt.dst_mac
        sender = (src, pkt.src_mac, pkt.ttl, pkt.vlans, dst_mac[0] & 1 == 1 if dst_mac is not None else is_group(pkt))
        seen = senders.get(sender)
        if seen is not None:
            seen[0] += 1
            seen[1], seen[2] = frame, ts
        else:
            if len(senders) < senders_limit:
                senders[sender] = [0, frame, ts]
            deliver(sighted_to, frame, pkt, None)
        if pkt.proto == PROTO_UDP and not pkt.fragment:
            if flow.pkts_ba == 1 and replies_to:
                deliver(replies_to, frame, pkt, flow)
            _deliver_by_port(by_udp_port, frame, pkt, flow)
            if every_udp:
                deliver(every_udp, frame, pkt, flow)
        elif pkt.proto == PROTO_TCP:
            if pkt.fragment:
                continue
            bit = 1 if forward else 2
            payload = pkt.payload
            if payload or pkt.flags & SEGMENT_FLAGS:
                # a segment without data, SYN, FIN or RST changes no stream head (feed would
                # return without a change), nor does a direction whose head is done
                if streams_to and not flow.head_done & bit:
                    heads.feed(pkt, flow, forward)
                if pkt.flags & SYN and syns_to:
                    deliver(syns_to, frame, pkt, flow)
                if every_tcp and (tcp_first_bytes is None or flow.followed & bit
                                  or payload and payload[0] in tcp_first_bytes):
                    deliver(every_tcp, frame, pkt, flow)
                if pkt.sport in by_tcp_port or pkt.dport in by_tcp_port:
                    _deliver_by_port(by_tcp_port, frame, pkt, flow)
        elif by_proto and not pkt.fragment:
            deliver(by_proto.get(pkt.proto, ()), frame, pkt, flow)
    if numbered is not None:  # the capture's checkpoints after this source's last record
        frame = reader.packets
        walk.catch_up(frame, mark, numbered, reader, total, shard, on_progress)
    walk.frame, walk.now, walk.first_time, walk.last_time = frame, now, first_time, last_time


def _tear_down(walk: _Walk, reader: RecordSource, shard: Shard | None, on_progress: Callable[[int, int], None],
               capture_id: str, instances: list[Extractor], tallies: dict[str, _Tally], table: FactTable,
               notices: Notices) -> ExtractResult:
    """After the last record: the stream heads and conversations still open are written out,
    the SENDERS extractors read the sender tally, every extractor finishes (one's end never
    costs the others), and the result is assembled."""
    on_progress(reader.bytes_read, reader.total_bytes)
    if shard is not None:
        shard.flow_peaks.append(len(walk.flows.flows))
    walk.heads.drain()
    walk.flows.drain()
    deliver([(_Repeated(ex, walk.senders), tallies[ex.NAME]) for ex in instances if ex.SENDERS],
            walk.frame, None, None)
    deliver([(_Finish(ex), tallies[ex.NAME]) for ex in instances], walk.frame, None, None)
    undecodable, too_deep, inner_lost = walk.undecodable, walk.too_deep, walk.inner_lost
    if shard is not None:
        shard.collect(undecodable, walk.tunnelled, too_deep, inner_lost, instances, tallies, table)
    manifest = manifest_rows(reader.packets, reader.partial, undecodable, walk.tunnelled, too_deep, inner_lost,
                             instances, tallies, table)
    hosts = sorted((ip for ip, seen in walk.endpoints.items() if seen and is_host_address(ip)), key=ip_sort_key)
    notes = {"flows": walk.flows.evicted, "stream heads": walk.heads.evicted}
    counts: dict[str, int] = {}
    for tally in (undecodable, too_deep, inner_lost, *tallies.values()):
        counts.update(tally.by_kind)
    # a shard sends its facts as plain rows (Shard.collect), not observations
    observations = table.observations(capture_id) if shard is None else []
    return ExtractResult(reader.format, reader.packets, reader.partial, manifest, observations,
                         hosts, walk.spilled.count, walk.first_time, walk.last_time,
                         {k: v for k, v in notes.items() if v}, notices.kept, dict(sorted(counts.items())))


class _Repeated:
    """An extractor's `repeated(senders)` as a hook, called once at the end."""
    __slots__ = ("extractor", "senders")

    def __init__(self, extractor: Extractor, senders: dict[tuple, list]) -> None:
        self.extractor, self.senders = extractor, senders

    def __call__(self, subject: Any, flow: Flow | None) -> None:
        self.extractor.repeated(self.senders)


class _Finish:
    """An extractor's `finish()` as a hook, called once at the end."""
    __slots__ = ("extractor",)

    def __init__(self, extractor: Extractor) -> None:
        self.extractor = extractor

    def __call__(self, subject: Any, flow: Flow | None) -> None:
        self.extractor.finish()
