"""Tunnels off their assigned ports: Teredo between a client and a relay on NAT-chosen
ports, VXLAN on Linux's 8472 and on any port, decoded to the inner HTTP as tshark reads
them (with its Teredo heuristic on, and VXLAN decoded on the port); datagrams of other
protocols, random and real, are never taken for tunnels."""

from __future__ import annotations

import random
import subprocess

import pytest

from tracepcap.extract.extractors.http import Http
from tracepcap.extract.decoders import DecodeError
from tracepcap.extract.pipeline import extract
from tracepcap.extract.packet import UDP_TUNNELS, decode_frame
from tracepcap.extract.reader import CaptureReader
from tracepcap.testing import app, frames as f, tunnels as t
from tracepcap.testing.writers import PcapWriter

CLIENT6, SERVER6 = "2001:0:c000:22d:0:bfff:3fff:d2fe", "2001:db8::80"  # a Teredo client
CLIENT4, RELAY4 = "192.0.2.45", "198.51.100.9"
MAC_A, MAC_B = "02:00:00:00:00:01", "02:00:00:00:00:02"
REQUEST = app.http_request("GET", "/", "www.example.com", user_agent="curl/8.0")
RESPONSE = app.http_response(server="nginx/1.25")


def teredo_segment(forward: bool, seq: int, ack: int, flags: str, payload: bytes = b"") -> bytes:
    src6, dst6, sport, dport = (CLIENT6, SERVER6, 50000, 80) if forward else (SERVER6, CLIENT6, 80, 50000)
    src4, dst4, usport, udport = (CLIENT4, RELAY4, 40001, 51000) if forward else (RELAY4, CLIENT4, 51000, 40001)
    inner = f.ipv6(src6, dst6, 6, f.tcp(src6, dst6, sport, dport, seq, ack, flags, payload))
    return f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, t.over_udp(src4, dst4, usport, udport, t.teredo(inner)))


def vxlan_frame(port: int, vni: int) -> bytes:
    inner = f.ipv4("10.0.0.1", "10.0.0.2", 6, f.tcp("10.0.0.1", "10.0.0.2", 50001, 80, 1, 1, "PA", REQUEST))
    frame = f.ethernet("02:42:ac:11:00:0a", "02:42:ac:11:00:0b", f.ETH_IPV4, inner)
    return f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, t.over_udp("172.16.0.1", "172.16.0.2", 51515, port,
                                                           t.vxlan(vni, frame)))


FRAMES = [teredo_segment(True, 0, 0, "S"), teredo_segment(False, 0, 1, "SA"),
          teredo_segment(True, 1, 1, "A"), teredo_segment(True, 1, 1, "PA", REQUEST),
          teredo_segment(False, 1, 1 + len(REQUEST), "PA", RESPONSE),
          vxlan_frame(8472, 7), vxlan_frame(9999, 8)]


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    path = tmp_path_factory.mktemp("shapes") / "shapes.pcap"
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for i, frame in enumerate(FRAMES):
            writer.write(1_700_000_000 + i, frame)
    return path


def test_inner_http_facts(capture):
    result = extract(capture, "shapes", classes=[Http])
    assert {(o.entity, o.kind, o.value, o.source, o.witness.first_frame, o.witness.last_frame)
            for o in result.observations} == {
        (SERVER6, "hostname-claim", "www.example.com", "http-host", 4, 4),
        (CLIENT6, "user-agent", "curl/8.0", "http", 4, 4),
        (SERVER6, "http-server", "nginx/1.25", "http", 5, 5),
        (SERVER6, "served", "tcp/80", "http", 5, 5),
        ("10.0.0.1", "user-agent", "curl/8.0", "http", 6, 7),  # in both VXLAN frames
    }


def test_tunnel_layers(capture):
    frames = [decode_frame(1, memoryview(frame), n, 0.0, len(frame)) for n, frame in enumerate(FRAMES, 1)]
    assert [[layer.text() for layer in pkt.tunnel] for pkt in frames] == [["teredo"]] * 5 + [
        ["vxlan vni 7"], ["vxlan vni 8"]]


def test_tshark_reads_the_same(capture):
    out = subprocess.run(["tshark", "-n", "-r", str(capture), "-o", "teredo.heuristic_teredo:TRUE",
                          "-d", "udp.port==8472,vxlan", "-d", "udp.port==9999,vxlan", "-T", "fields",
                          "-e", "ipv6.src", "-e", "ip.src", "-e", "http.host", "-e", "http.user_agent",
                          "-e", "http.server"], capture_output=True, text=True, check=True).stdout
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[3] == [CLIENT6, CLIENT4, "www.example.com", "curl/8.0", ""]
    assert lines[4] == [SERVER6, RELAY4, "", "", "nginx/1.25"]
    assert lines[5][1:4] == ["172.16.0.1,10.0.0.1", "www.example.com", "curl/8.0"]


def test_random_datagrams_are_not_tunnels():
    rng = random.Random(12)
    for n in range(20000):
        payload = bytearray(rng.randbytes(rng.randrange(40, 600)))
        payload[0] = (0x08, 0x60 | rng.randrange(16))[n % 2]  # past the first-byte filter
        frame = f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", 40000, 41000,
                                                                bytes(payload)))
        assert decode_frame(1, memoryview(frame), 1, 0.0, len(frame)).tunnel is None


def test_real_captures_hold_no_tunnel_by_shape(captures):
    for path in sorted(captures.glob("*.pcap*")):
        with CaptureReader(path) as reader:
            for n, (linktype, ts, wire_len, data) in enumerate(reader.records(), 1):
                pkt = decode_frame(linktype, data, n, ts, wire_len)
                carrier = pkt
                while carrier.outer is not None:
                    carrier = carrier.outer
                if carrier is not pkt and carrier.proto == 17:
                    assert carrier.dport in UDP_TUNNELS or carrier.sport in UDP_TUNNELS, (path.name, n)


@pytest.mark.parametrize("number", [1, 4, 6, 7])
def test_every_prefix_decodes_or_raises_decode_error(number):
    frame = FRAMES[number - 1]
    for cut in range(len(frame) + 1):
        try:
            decode_frame(1, memoryview(frame[:cut]), 1, 0.0, cut)
        except DecodeError:
            pass
