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
