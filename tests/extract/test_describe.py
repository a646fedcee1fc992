"""A frame's application layer as Extract describes it (extract/describe.py) on real frames, field by
field as tshark reads the same frames, and on payloads cut short or wrong: what decoded plus an
`error` field, never an exception."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tracepcap.extract.describe import Layer, application, describe
from tracepcap.extract.packet import decode_frame
from tracepcap.extract.reader import CaptureReader
from tracepcap.testing import app
from tracepcap.testing import frames as f

TSHARK = shutil.which("tshark") or "/usr/bin/tshark"
CLIENT, SERVER = "192.0.2.10", "198.51.100.20"


def tshark(path, display: str, *names: str) -> dict[int, dict[str, str]]:
    """frame number -> {field: value} for the frames `display` selects."""
    out = subprocess.run([TSHARK, "-n", "-r", str(path), "-Y", display, "-T", "fields", "-E", "occurrence=a",
                          "-e", "frame.number", *(arg for name in names for arg in ("-e", name))],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    rows = {}
    for line in out.splitlines():
        number, *values = line.split("\t")
        rows[int(number)] = dict(zip(names, values, strict=False))
    return rows


def layers_of(path, numbers) -> dict[int, Layer | None]:
    """frame number -> its application layer, for the frames named."""
    wanted, out = set(numbers), {}
    with CaptureReader(path) as reader:
        for number, (linktype, ts, wire_len, data) in enumerate(reader.records(), 1):
            if number in wanted:
                out[number] = application(decode_frame(linktype, data, number, ts, wire_len))
    return out


def fields(layer: Layer | None) -> dict[str, list[str]]:
    assert layer is not None
    found: dict[str, list[str]] = {}
    for name, value in layer.fields:
        found.setdefault(name, []).append(value)
    return found


def test_dns_as_tshark_reads_it(captures):
    path = captures / "dns_demo.pcap"
    seen = tshark(path, "dns", "dns.id", "dns.flags", "dns.qry.name", "dns.a", "dns.count.answers")
    assert seen
    for number, layer in layers_of(path, seen).items():
        expect, got = seen[number], fields(layer)
        assert layer.name == "DNS" and "error" not in got
        assert got["id"] == [expect["dns.id"]]
        assert got["flags"][0].startswith(expect["dns.flags"])
        assert [q.split()[0] for q in got.get("question", [])] == expect["dns.qry.name"].split(",")
        assert got["answers"] == [expect["dns.count.answers"]]
        addresses = [a.split()[2] for a in got.get("answer", []) if " A " in a]
        assert addresses == [a for a in expect["dns.a"].split(",") if a]


def test_dhcp_as_tshark_reads_it(captures):
    path = captures / "demo_all_rules.pcap"
    seen = tshark(path, "dhcp", "dhcp.id", "dhcp.option.dhcp", "dhcp.option.hostname",
                  "dhcp.option.vendor_class_id", "dhcp.option.request_list_item", "dhcp.option.requested_ip_address",
                  "dhcp.hw.mac_addr")
    assert len(seen) >= 10
    for number, layer in layers_of(path, seen).items():
        expect, got = seen[number], fields(layer)
        assert layer.name == "DHCP" and "error" not in got
        assert got["transaction id"] == [expect["dhcp.id"]]
        assert got["message type"][0].split()[0] == expect["dhcp.option.dhcp"]
        assert got.get("hostname", [""]) == [expect["dhcp.option.hostname"]]
        assert got.get("vendor class", [""]) == [expect["dhcp.option.vendor_class_id"]]
        assert got.get("parameter list", [""]) == [expect["dhcp.option.request_list_item"]]
        assert got.get("requested address", [""]) == [expect["dhcp.option.requested_ip_address"]]
        assert got["client MAC"] == [expect["dhcp.hw.mac_addr"].split(",")[0]]  # then the client id's
    pi = fields(layers_of(path, [597])[597])  # tshark: DHCP Discover from pi3.ntop.org
    assert pi["message type"] == ["1 (DISCOVER)"] and pi["hostname"] == ["pi3.ntop.org"]
    assert pi["client id"][0].startswith("rfc4361 iaid 8f9aaebd duid-llt")


def test_http_as_tshark_reads_it(captures):
    path = captures / "http_demo.pcap"
    seen = tshark(path, "http", "http.request.method", "http.request.uri", "http.host", "http.user_agent",
                  "http.response.code", "http.server")
    assert len(seen) >= 30
    for number, layer in layers_of(path, seen).items():
        expect, got = seen[number], fields(layer)
        assert layer.name == "HTTP" and "error" not in got
        if expect["http.request.method"]:
            assert (got["method"], got["target"]) == ([expect["http.request.method"]], [expect["http.request.uri"]])
            assert got.get("host", [""]) == [expect["http.host"]]
            assert got.get("user-agent", [""]) == [expect["http.user_agent"]]
        else:
            assert got["status"] == [expect["http.response.code"]]
            assert got.get("server", [""]) == [expect["http.server"]]


@pytest.mark.parametrize("name", ["demo_all_rules.pcap", "discord.pcap", "signal.pcap"])
def test_tls_client_hello_as_tshark_reads_it(captures, name):
    path = captures / name
    seen = tshark(path, "tls.handshake.type == 1", "tls.handshake.version", "tls.handshake.extensions_server_name",
                  "tls.handshake.extensions_alpn_str", "tls.handshake.ciphersuites")
    assert seen
    for number, layer in layers_of(path, seen).items():
        expect, got = seen[number], fields(layer)
        assert layer.name == "TLS" and "error" not in got and got["handshake"] == ["client hello"]
        assert got["version"][0].endswith(f"({expect['tls.handshake.version']})")
        assert got.get("server name (SNI)", [""]) == [expect["tls.handshake.extensions_server_name"]]
        assert got.get("ALPN", [""]) == [expect["tls.handshake.extensions_alpn_str"]]


def test_mdns_and_ssdp_and_other_payloads(captures):
    path = captures / "demo_all_rules.pcap"
    layers = layers_of(path, [2, 4])
    assert layers[2].name == "SSDP" and ("start line", "M-SEARCH * HTTP/1.1") in layers[2].fields
    assert layers[4].name == "mDNS"
    assert "sonos7828CA05FACC.local A 192.168.1.69 ttl 120" in layers[4].values("additional record")


def _udp(sport: int, dport: int, payload: bytes) -> Layer | None:
    frame = f.ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", f.ETH_IPV4,
                       f.ipv4(CLIENT, SERVER, f.PROTO_UDP, f.udp(CLIENT, SERVER, sport, dport, payload)))
    return application(decode_frame(1, memoryview(frame), 1, 0.0, len(frame)))


def _tcp(sport: int, dport: int, payload: bytes) -> Layer | None:
    frame = f.ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", f.ETH_IPV4,
                       f.ipv4(CLIENT, SERVER, f.PROTO_TCP, f.tcp(CLIENT, SERVER, sport, dport, 1, 1, "PA",
                                                                 payload=payload)))
    return application(decode_frame(1, memoryview(frame), 1, 0.0, len(frame)))


def test_a_payload_of_no_known_protocol_shows_its_length_and_an_empty_one_nothing():
    assert _udp(40000, 40001, b"\x01" * 17) == Layer("Data", (("length", "17"),))
    assert _tcp(40000, 8443, b"") is None


def test_cut_payloads_show_what_decoded_and_the_error():
    query = app.dns_query(0x1234, "printer.example", "A")
    dns = fields(_udp(53000, 53, query[:-3]))  # the question's type and class cut off
    assert dns["id"] == ["0x1234"] and dns["questions"] == ["0"] and "truncated" in dns["error"][0]
    assert "truncated" in fields(_udp(53000, 53, query[:5]))["error"][0]  # not even a header

    discover = app.dhcp(app.BOOTREQUEST, 0xABCD, "02:00:00:00:00:01", app.DISCOVER, hostname="scanner-7")
    cut = discover[:discover.index(b"scanner-7") + 3]  # the hostname option cut inside
    dhcp = fields(_udp(68, 67, cut))
    assert dhcp["transaction id"] == ["0x0000abcd"] and dhcp["message type"] == ["1 (DISCOVER)"]
    assert "hostname" not in dhcp and "truncated" in dhcp["error"][0]

    head = app.http_request("GET", "/index.html", "intranet.example", user_agent="curl/8.5.0")
    http = fields(_tcp(50000, 80, head[:head.index(b"User-Agent")]))  # the head goes on in a later segment
    assert (http["method"], http["target"], http["host"]) == (["GET"], ["/index.html"], ["intranet.example"])
    assert "truncated" in http["error"][0]

    hello = app.tls_client_hello("mail.example", alpn=["h2"])
    tls = fields(_tcp(50001, 443, hello[:60]))
    assert tls["handshake"] == ["client hello"] and "server name (SNI)" not in tls
    assert "truncated" in tls["error"][0]
    wrong = fields(_tcp(50002, 443, b"\x16\x03\x01\x00\x05\x01\x00\x00\xff\xff"))  # a length past the record
    assert "error" in wrong


def test_describe_gives_the_summary_and_every_layer_outermost_first():
    query = app.dns_query(0x4242, "printer.example", "A")
    frame = f.ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", f.ETH_IPV4,
                       f.ipv4(CLIENT, SERVER, f.PROTO_UDP, f.udp(CLIENT, SERVER, 53001, 53, query)))
    described = describe(1, frame, 7, 0.0, len(frame) + 4, interface=2)
    assert described.packet is not None and described.error is None
    assert described.summary == f"{CLIENT} → {SERVER} UDP 53001 → 53 len={len(query)}"
    assert [layer.name for layer in described.layers] == ["Frame", "Ethernet", "IPv4", "UDP", "DNS"]
    head = described.layers[0]
    assert head.values("number") == ("7",) and head.values("interface") == ("2",)
    assert head.values("wire length") == (str(len(frame) + 4),) and described.linktype_name == "Ethernet"
    assert described.layers[-1].values("id") == ("0x4242",)


def test_a_frame_that_does_not_decode_is_described_not_raised():
    frame = f.ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", f.ETH_IPV4, b"\x45\x00")  # an IPv4 header cut short
    described = describe(1, frame, 1, 0.0, len(frame))
    assert described.packet is None and described.error
    assert described.summary == f"not decoded: {described.error}"
    assert [layer.name for layer in described.layers] == ["Frame", "Ethernet", "Not decoded"]
