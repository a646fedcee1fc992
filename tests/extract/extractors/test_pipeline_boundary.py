"""The pipeline's delivery boundary: an extractor failing on a packet, on a stream head or
at its end is counted against that extractor alone, and the walk goes on."""

from __future__ import annotations

from tracepcap.extract.extractor import Extractor
from tracepcap.extract.extractors.ttl import Ttl
from tracepcap.extract.kinds import TTL
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


class Flaky(Extractor):
    """Fails on every UDP datagram to or from port 53, once per stream head, and at its end."""

    NAME, VERSION = "flaky", "1"
    KINDS = (TTL,)
    UDP_PORTS = frozenset((53,))
    TCP_STREAMS = True

    def observe(self, pkt, flow) -> None:
        raise ValueError(f"no DNS today (port {pkt.dport})")

    def observe_stream(self, head) -> None:
        raise KeyError(head.sport)

    def finish(self) -> None:
        raise RuntimeError("no end either")


def test_a_failing_extractor_is_counted_and_the_others_go_on(run, rows, manifest):
    net = Scenario()
    pc, server = net.host("10.0.0.21", "00:1b:21:4a:7e:21"), net.host("10.0.0.53", "00:26:b9:5c:20:10")
    net.udp(pc, server, 53001, 53, b"\x00\x01" + bytes(10))  # frame 1
    net.udp(server, pc, 53, 53001, b"\x00\x01\x80" + bytes(9))  # 2
    net.tcp_session(pc, server, 49152, 80, client=[app.http_request("GET", "/", "intranet")])
    result = run(net, Flaky, Ttl)
    assert manifest(result, "flaky").status == "partial"
    assert manifest(result, "flaky").error.startswith(
        "4 failures; first frame 1: ValueError: no DNS today (port 53)")  # 2 packets, 1 head, finish
    assert manifest(result, "ttl").status == "completed"
    assert {(entity, value) for entity, kind, value, *_ in rows(result, "ttl")} == {
        ("10.0.0.21", "64"), ("10.0.0.53", "64")}


class FollowsG(Extractor):
    """Records the segments it is handed; reads a direction from a segment starting "G"."""

    NAME, VERSION = "follows-g", "1"
    EVERY_TCP = True
    TCP_FIRST_BYTES = frozenset(b"G")

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self.seen: list[tuple[int, bytes, int]] = []

    def observe(self, pkt, flow) -> None:
        self.seen.append((pkt.sport, bytes(pkt.payload[:1]), pkt.flags))
        if pkt.payload[:1] == b"G":
            flow.followed |= 1 if pkt.sport == flow.aport and pkt.src == flow.a else 2


def test_every_tcp_gets_its_first_bytes_and_every_segment_of_a_direction_it_follows(tmp_path):
    from tracepcap.extract.decoders.tcp import FIN
    from tracepcap.extract.pipeline import extract

    net = Scenario()
    pc, server = net.host("10.0.0.21", "00:1b:21:4a:7e:21"), net.host("10.0.0.80", "00:26:b9:5c:20:10")
    # client: "GET..." then "xyz" (followed: handed over); server: "HTTP..." ("H" is not a
    # first byte here: not handed over), then "G-late", which starts following that direction
    net.tcp_session(pc, server, 49152, 80, client=[b"GET / HTTP/1.1\r\n\r\n", b"xyz"],
                    server=[b"HTTP/1.1 200 OK\r\n\r\n", b"G-late"])
    # another connection whose first byte is not "G": none of its segments are handed over
    net.tcp_session(pc, server, 49153, 80, client=[b"zzz"], server=[b"yyy"])
    made: list[FollowsG] = []

    class Recorder(FollowsG):
        def __init__(self, emit, limits) -> None:
            super().__init__(emit, limits)
            made.append(self)

    extract(net.write_pcap(tmp_path / "g.pcap"), "cap", classes=[Recorder])
    seen = made[0].seen
    client = [(first, flags & FIN) for sport, first, flags in seen if sport == 49152]
    assert client == [(b"G", 0), (b"x", 0), (b"", FIN)]  # every segment once followed, its FIN too
    server = [(first, flags & FIN) for sport, first, flags in seen if sport == 80]
    assert server == [(b"G", 0), (b"", FIN)]  # "HTTP..." not handed over; "G-late" and after
    assert not [s for s in seen if s[0] == 49153]
