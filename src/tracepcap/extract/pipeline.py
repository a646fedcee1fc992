"""Extract's entry point: walk a capture once and return its facts, conversations and
manifest. Deterministic: the same bytes give the same result.

The per-packet loop decodes headers once (`packet.decode_frame`), accounts the flow, feeds
the TCP stream heads, and hands the packet to the extractors that asked for it. A tunnelled
frame is handled as its innermost packet; the packets that carried it are accounted too
(their own conversations and endpoints, the EVERY_IP and CARRIERS extractors), and a
"decapsulation" manifest row counts tunnelled frames, nesting past the depth bound and
inner packets that did not decode. A broad
`except Exception` lives here and only here: one extractor failing on one packet is
recorded (count, first frame, message) and the walk goes on.
"""

from __future__ import annotations

import importlib
import ipaddress
import logging
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..visible import visible
from . import extractors as extractors_pkg
from .decoders import DecodeError
from .extractor import Extractor, StreamHead
from .facts import Emitter, FactTable, Observation
from .flows import Flow, FlowTable
from .packet import DEPTH_EXCEEDED, MAX_DEPTH, PROTO_TCP, PROTO_UDP, Packet, decode_frame
from .reader import CaptureReader
from .settings import Limits
from .streams import StreamHeads

log = logging.getLogger(__name__)
PROGRESS_EVERY = 8192  # packets between progress callbacks
BROADCAST_MAC = b"\xff" * 6


@dataclass(frozen=True, slots=True)
class ManifestRow:
    extractor: str
    version: str
    status: str  # completed | partial | failed | skipped
    facts: int
    error: str | None


@dataclass(slots=True)
class ExtractResult:
    format: str
    packets: int
    partial: str | None
    manifest: list[ManifestRow]
    observations: list[Observation]
    hosts: list[str]
    conversations: int = 0
    first_time: float | None = None
    last_time: float | None = None
    extra: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return all(row.status in ("completed", "skipped") for row in self.manifest)


def discover() -> list[type[Extractor]]:
    """Every Extractor subclass in tracepcap.extract.extractors, sorted by NAME.
    Import errors propagate: a broken module stops start-up instead of losing a protocol."""
    found: dict[str, type[Extractor]] = {}
    for info in pkgutil.iter_modules(extractors_pkg.__path__):
        module = importlib.import_module(f"{extractors_pkg.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Extractor) and value is not Extractor \
                    and value.__module__ == module.__name__:
                if value.NAME in found:
                    raise RuntimeError(f"extractor name {value.NAME!r} is claimed by "
                                       f"{found[value.NAME].__module__} and {value.__module__}")
                found[value.NAME] = value
    return [found[name] for name in sorted(found)]


class _Tally:
    """Per-extractor failures: how many, and the first one."""
    __slots__ = ("count", "first")

    def __init__(self) -> None:
        self.count = 0
        self.first = ""

    def record(self, frame: int, err: Exception) -> None:
        if not self.count:
            # a decoder's message may quote the packet: it is wire text like any fact value
            self.first = visible(f"frame {frame}: {type(err).__name__}: {err}")
            log.debug("extractor failed on frame %d", frame, exc_info=err)
        self.count += 1


def is_host_address(ip: str) -> bool:
    """Hosts are unicast addresses; broadcast, multicast and unspecified ones are not."""
    addr = ipaddress.ip_address(ip)
    if addr.is_multicast or addr.is_unspecified:
        return False
    return not (addr.version == 4 and addr == ipaddress.IPv4Address("255.255.255.255"))


def extract(path: Path, capture_id: str, *, limits: Limits = Limits(),
            on_conversation: Callable[[dict], None] = lambda row: None,
            on_progress: Callable[[int, int], None] = lambda done, total: None,
            classes: Iterable[type[Extractor]] | None = None) -> ExtractResult:
    """Walk the capture at `path`; conversations go to `on_conversation` as they complete."""
    table = FactTable(limits.max_facts)
    instances = [cls(Emitter(cls.NAME, cls.VERSION, table), limits) for cls in (classes or discover())]
    tallies = {ex.NAME: _Tally() for ex in instances}
    every_ip = [(ex, tallies[ex.NAME]) for ex in instances if ex.EVERY_IP]
    non_ip = [(ex, tallies[ex.NAME]) for ex in instances if ex.NON_IP]
    streams_to = [(ex, tallies[ex.NAME]) for ex in instances if ex.TCP_STREAMS]
    carriers_to = [(ex, tallies[ex.NAME]) for ex in instances if ex.CARRIERS]
    by_udp_port: dict[int, list] = {}
    by_proto: dict[int, list] = {}
    for ex in instances:
        for port in ex.UDP_PORTS:
            by_udp_port.setdefault(port, []).append((ex, tallies[ex.NAME]))
        for proto in ex.IP_PROTOS:
            by_proto.setdefault(proto, []).append((ex, tallies[ex.NAME]))

    endpoints: dict[str, bool] = {}  # ip -> ever seen sending (or addressed by unicast MAC)
    conversations = 0

    def spill(flow: Flow) -> None:
        nonlocal conversations
        conversations += 1
        on_conversation(flow.row())

    def deliver(head: StreamHead) -> None:
        for ex, tally in streams_to:
            try:
                ex.observe_stream(head)
            except Exception as err:  # noqa: BLE001 - the named per-packet boundary
                tally.record(head.first_frame, err)

    def see(pkt: Packet) -> None:
        if pkt.src not in endpoints or not endpoints[pkt.src]:
            endpoints[pkt.src] = True
        if pkt.dst not in endpoints:
            endpoints[pkt.dst] = pkt.dst_mac != BROADCAST_MAC
        elif not endpoints[pkt.dst] and pkt.dst_mac != BROADCAST_MAC:
            endpoints[pkt.dst] = True

    def carried(pkt: Packet) -> None:
        """Account a tunnelled frame's carriers: their conversations, their endpoints as
        hosts, and the extractors that read every IP packet or carriers."""
        nonlocal tunnelled
        if pkt.inner_error is not None:
            (too_deep if pkt.inner_error is DEPTH_EXCEEDED else inner_lost).record(pkt.frame, pkt.inner_error)
        if pkt.tunnel is not None or pkt.carries is not None:
            tunnelled += 1
        if pkt.carries is not None:  # a carrier whose inner packet was not read
            for ex, tally in carriers_to:
                try:
                    ex.observe(pkt, None)
                except Exception as err:  # noqa: BLE001
                    tally.record(pkt.frame, err)
        carrier = pkt.outer
        while carrier is not None:
            carrier_flow, _ = flows.update(carrier)
            see(carrier)
            for ex, tally in every_ip:
                try:
                    ex.observe(carrier, carrier_flow)
                except Exception as err:  # noqa: BLE001
                    tally.record(pkt.frame, err)
            for ex, tally in carriers_to:
                try:
                    ex.observe(carrier, None)
                except Exception as err:  # noqa: BLE001
                    tally.record(pkt.frame, err)
            carrier = carrier.outer

    flows = FlowTable(limits.max_flows, spill)
    heads = StreamHeads(limits.stream_head_bytes, limits.max_open_stream_heads, deliver)
    undecodable = _Tally()
    too_deep, inner_lost = _Tally(), _Tally()
    tunnelled = 0
    first_time = last_time = None
    frame = 0
    with CaptureReader(path, limits) as reader:
        total = reader.total_bytes
        for linktype, ts, wire_len, data in reader.records():
            frame += 1
            if first_time is None:
                first_time = ts
            last_time = ts
            if not frame % PROGRESS_EVERY:
                on_progress(reader.bytes_read, total)
            try:
                pkt = decode_frame(linktype, data, frame, ts, wire_len)
            except DecodeError as err:
                undecodable.record(frame, err)
                continue
            if pkt.tunnel is not None or pkt.inner_error is not None:
                carried(pkt)
            if pkt.src is None:
                for ex, tally in non_ip:
                    try:
                        ex.observe(pkt, None)
                    except Exception as err:  # noqa: BLE001
                        tally.record(frame, err)
                continue
            flow, forward = flows.update(pkt)
            if pkt.src not in endpoints or not endpoints[pkt.src]:
                endpoints[pkt.src] = True
            if pkt.dst not in endpoints:
                endpoints[pkt.dst] = pkt.dst_mac != BROADCAST_MAC
            elif not endpoints[pkt.dst] and pkt.dst_mac != BROADCAST_MAC:
                endpoints[pkt.dst] = True
            for ex, tally in every_ip:
                try:
                    ex.observe(pkt, flow)
                except Exception as err:  # noqa: BLE001
                    tally.record(frame, err)
            if pkt.proto == PROTO_UDP and not pkt.fragment:
                for port in (pkt.sport, pkt.dport) if pkt.sport != pkt.dport else (pkt.sport,):
                    for ex, tally in by_udp_port.get(port, ()):
                        if port != pkt.sport and pkt.sport in ex.UDP_PORTS:
                            continue  # asked for both ports (DHCP 67/68): once per packet
                        try:
                            ex.observe(pkt, flow)
                        except Exception as err:  # noqa: BLE001
                            tally.record(frame, err)
            elif pkt.proto == PROTO_TCP:
                if streams_to and not pkt.fragment:
                    heads.feed(pkt, flow, forward)
            elif by_proto and not pkt.fragment:
                for ex, tally in by_proto.get(pkt.proto, ()):
                    try:
                        ex.observe(pkt, flow)
                    except Exception as err:  # noqa: BLE001
                        tally.record(frame, err)
        on_progress(reader.bytes_read, total)
        heads.drain()
        flows.drain()
        for ex in instances:
            try:
                ex.finish()
            except Exception as err:  # noqa: BLE001 - one extractor's end never costs the others
                tallies[ex.NAME].record(frame, err)
        fmt, packets, partial = reader.format, reader.packets, reader.partial

    counts = table.count_by_extractor()
    manifest = [ManifestRow("reader", "1", "partial" if partial else "completed", packets, partial)]
    decode_error = None
    if undecodable.count:
        decode_error = f"{undecodable.count} frames not decodable; first {undecodable.first}"
    manifest.append(ManifestRow("decoder", "1", "partial" if undecodable.count else "completed",
                                packets - undecodable.count, decode_error))
    if tunnelled or too_deep.count or inner_lost.count:
        parts = []
        if too_deep.count:
            parts.append(f"{too_deep.count} frames nested deeper than {MAX_DEPTH} encapsulations "
                         f"(inner layers not read); first {too_deep.first}")
        if inner_lost.count:
            parts.append(f"{inner_lost.count} tunnelled frames whose inner packet did not decode "
                         f"(their carrier was kept); first {inner_lost.first}")
        manifest.append(ManifestRow("decapsulation", "1", "partial" if parts else "completed",
                                    tunnelled, "; ".join(parts) or None))
    notes = {"flows": flows.evicted, "stream heads": heads.evicted}
    for ex in instances:
        tally = tallies[ex.NAME]
        parts = []
        if tally.count:
            parts.append(f"{tally.count} failures; first {tally.first}")
        if ex.evicted:
            parts.append(f"{ex.evicted} entries evicted from a bounded table")
        if ex.note:
            parts.append(ex.note)
        status = "partial" if tally.count else "completed"
        manifest.append(ManifestRow(ex.NAME, ex.VERSION, status, counts.get(ex.NAME, 0),
                                    "; ".join(parts) or None))
    if table.dropped:
        manifest.append(ManifestRow("fact-table", "1", "partial", len(counts),
                                    f"{table.dropped} facts dropped past the limit of {table.limit}"))
    hosts = sorted((ip for ip, seen in endpoints.items() if seen and is_host_address(ip)), key=ip_sort_key)
    return ExtractResult(fmt, packets, partial, manifest, table.observations(capture_id), hosts,
                         conversations, first_time, last_time,
                         {k: v for k, v in notes.items() if v})


def ip_sort_key(ip: str) -> tuple[int, int]:
    addr = ipaddress.ip_address(ip)
    return addr.version, int(addr)
