"""Witness frames over HTTP: one frame decoded, slices of frames and of a conversation as
pcapng (re-read by our reader, the same frames), the original file for analysts, and the
4xx of frame lists that name no frame."""

from __future__ import annotations

import gzip
import io
import shutil
import struct
import subprocess

import pytest
from api_helpers import DNS_DEMO, WORKSTATION, assert_error

from tracepcap.extract.frame_index import index_path
from tracepcap.extract.reader import CaptureReader
from tracepcap.ingest import capture_path
from tracepcap.present.read.frames import frame_spec, parse_frames, runs, wireshark_filter
from tracepcap.testing import app, frames as f
from tracepcap.testing.scenario import Scenario
from tracepcap.testing.writers import PcapngWriter

# dns_demo.pcap: frame 1 is 192.168.1.20:40001 -> 192.168.1.1:53, frame 2 its answer; frames
# 13/14 are the same client's query on port 40007


def records(path):
    with CaptureReader(path) as reader:
        return [(lt, ts, bytes(data)) for lt, ts, _orig, data in reader.records()]


def test_one_frame_decoded_with_its_conversation(client, dns_capture):
    frame = client.get(f"/captures/{dns_capture}/frames/1").json()
    assert frame["number"] == 1 and frame["linktype"] == 1 and frame["linktype_name"] == "Ethernet"
    assert frame["summary"].startswith(f"{WORKSTATION} → 192.168.1.1 UDP 40001 → 53")
    names = [layer["name"] for layer in frame["layers"]]
    assert names == ["Frame", "Ethernet", "IPv4", "UDP", "DNS"]
    udp = dict(frame["layers"][3]["fields"])
    assert (udp["source port"], udp["destination port"]) == ("40001", "53")
    assert len(bytes.fromhex(frame["hex"])) == frame["captured_length"]
    conversation = frame["conversation"]
    assert (conversation["previous"], conversation["next"], conversation["first_frame"]) == (None, 2, 1)
    answer = client.get(f"/captures/{dns_capture}/frames/2").json()
    assert answer["conversation"]["previous"] == 1 and answer["conversation"]["id"] == conversation["id"]


def test_frame_numbers_that_name_no_frame_are_refused(client, dns_capture):
    total = client.get(f"/captures/{dns_capture}").json()["packets"]
    assert_error(client.get(f"/captures/{dns_capture}/frames/0"), 400, None, "numbered from 1")
    assert_error(client.get(f"/captures/{dns_capture}/frames/{total + 1}"), 404, "not_found",
                 f"has {total} frames")
    assert_error(client.get(f"/captures/{dns_capture}/frames/x"), 422)
    for spec, words in (("", "no frames"), ("7,,9", "not a frame number"), ("0-3", "numbered from 1"),
                        ("9-3", "runs backwards"), (f"1-{total + 1}", f"has {total} frames"),
                        ("1,a-b", "'a-b'")):
        assert_error(client.get(f"/captures/{dns_capture}/frames.pcap", params={"frames": spec}), 400, None, words)
    assert_error(client.get(f"/captures/{dns_capture}/frames.pcap"), 422)


def test_a_slice_holds_the_frames_named_with_their_times(client, api, dns_capture, tmp_path):
    response = client.get(f"/captures/{dns_capture}/frames.pcap", params={"frames": "2,13-14,5"})
    assert response.status_code == 200 and response.headers["content-type"] == "application/x-pcapng"
    assert "attachment" in response.headers["content-disposition"]
    out = tmp_path / "slice.pcapng"
    out.write_bytes(response.content)
    sha = client.get(f"/captures/{dns_capture}").json()["sha256"]
    original = records(capture_path(api.settings.capture_dir, sha))
    assert records(out) == [original[n - 1] for n in (2, 5, 13, 14)]
    for n in (2, 5, 13, 14):
        assert f"frame {n} of {DNS_DEMO}".encode() in response.content


def test_a_conversation_slice_holds_its_frames(client, api, dns_capture, tmp_path):
    conversations = client.get(f"/captures/{dns_capture}/conversations", params={"port": 40007}).json()
    assert len(conversations) == 1
    response = client.get(f"/captures/{dns_capture}/conversations/{conversations[0]['id']}.pcap")
    assert response.status_code == 200
    out = tmp_path / "conversation.pcapng"
    out.write_bytes(response.content)
    sha = client.get(f"/captures/{dns_capture}").json()["sha256"]
    original = records(capture_path(api.settings.capture_dir, sha))
    assert records(out) == [original[12], original[13]]
    assert_error(client.get(f"/captures/{dns_capture}/conversations/999999.pcap"), 404, "not_found")


def test_analysis_stores_the_index_and_a_missing_one_is_rebuilt(client, api, dns_capture):
    sha = client.get(f"/captures/{dns_capture}").json()["sha256"]
    index = index_path(capture_path(api.settings.capture_dir, sha))
    assert index.is_file()
    index.unlink()
    assert client.get(f"/captures/{dns_capture}/frames/3").json()["number"] == 3
    assert index.is_file()


def test_a_gzipd_capture_serves_frames_from_one_decompressed_copy(client, api, captures, tmp_path):
    packed = tmp_path / "dns_demo.pcap.gz"
    packed.write_bytes(gzip.compress((captures / DNS_DEMO).read_bytes()))
    cid = api.analyzed(client, packed)
    frame = client.get(f"/captures/{cid}/frames/13").json()
    assert frame["summary"].startswith(f"{WORKSTATION} → 192.168.1.1 UDP 40007 → 53")
    assert frame["conversation"]["next"] == 14
    stored = capture_path(api.settings.capture_dir, client.get(f"/captures/{cid}").json()["sha256"])
    beside = [index_path(stored), stored.with_name(stored.name + ".decompressed")]
    assert all(path.is_file() for path in beside)
    assert beside[1].read_bytes() == (captures / DNS_DEMO).read_bytes()
    assert client.delete(f"/captures/{cid}").status_code == 204
    assert not stored.exists() and not any(path.exists() for path in beside)


def test_the_original_file_is_for_analysts(oidc, issuer, captures):
    with oidc.client(issuer.token("alice", ("analyst",))) as alice:
        cid = oidc.analyzed(alice, captures / DNS_DEMO)
        original = alice.get(f"/captures/{cid}/file")
        assert original.status_code == 200 and original.content == (captures / DNS_DEMO).read_bytes()
    with oidc.client(issuer.token("victor", ("viewer",))) as victor:
        assert_error(victor.get(f"/captures/{cid}/file"), 403, "forbidden", "the analyst role is required")
        assert victor.get(f"/captures/{cid}/frames/1").status_code == 200
        assert victor.get(f"/captures/{cid}/frames.pcap", params={"frames": "1"}).status_code == 200


TSHARK_FIELDS = ("frame.time_epoch", "frame.len", "frame.cap_len", "eth.src", "eth.dst",
                 "ip.src", "ip.dst", "ip.id", "ipv6.src", "ipv6.dst", "tcp.srcport", "tcp.dstport", "tcp.seq_raw",
                 "udp.srcport", "udp.dstport")


def tshark(path, *args: str) -> list[list[str]]:
    fields = [arg for field in TSHARK_FIELDS for arg in ("-e", field)]
    out = subprocess.run([TSHARK, "-n", "-r", str(path), *args, "-T", "fields", *fields, "-E", "separator=|"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return [line.split("|") for line in out.splitlines()]


TSHARK = shutil.which("tshark") or "/usr/bin/tshark"


@pytest.mark.parametrize(("name", "spec"), [(DNS_DEMO, "2,13-14,40"), ("telegram_voice.pcapng", "3-4,500,869")])
def test_a_slice_opens_in_tshark_as_the_same_frames(api, client, captures, tmp_path, name, spec):
    """tshark decodes the slice's packets as it decodes those frames of the original, and
    reads each one's original number from its comment; the filter we offer selects them."""
    cid = api.analyzed(client, captures / name)
    numbers = parse_frames(spec, 10**6)
    response = client.get(f"/captures/{cid}/frames.pcap", params={"frames": spec})
    out = tmp_path / "slice.pcapng"
    out.write_bytes(response.content)
    sliced = tshark(out)
    original = tshark(captures / name, "-Y", wireshark_filter(numbers))
    assert len(original) == len(numbers) and sliced == original
    comments = subprocess.run([TSHARK, "-r", str(out), "-T", "fields", "-e", "frame.comment"], capture_output=True,
                              text=True, check=True, timeout=60).stdout.split()
    assert " ".join(comments) == " ".join(f"frame {n} of {name}" for n in numbers)


@pytest.mark.parametrize(("numbers", "expected"), [
    ([7, 13, 74, 75, 76, 77, 78, 79], "frame.number in {7, 13, 74..79}"),
    ([3], "frame.number in {3}"),
    ([5, 4, 4, 6, 1], "frame.number in {1, 4..6}"),
])
def test_wireshark_filter_compresses_runs(numbers, expected):
    assert wireshark_filter(numbers) == expected


def test_frame_lists_parse_and_print_back():
    assert parse_frames("7, 13,74-79", 100) == [7, 13, 74, 75, 76, 77, 78, 79]
    assert frame_spec([79, 7, 13, 74, 75, 76, 77, 78]) == "7,13,74-79"
    assert runs([1, 2, 3, 5]) == [(1, 3), (5, 5)]
    with pytest.raises(Exception, match="more than 3 frames"):
        parse_frames("1-4", 10, limit=3)


# -- the application layer ------------------------------------------------------------------

def tshark_frame(path, number: int, *names: str) -> dict[str, str]:
    """One frame's fields as tshark reads them (repeated fields joined by ",")."""
    out = subprocess.run([TSHARK, "-n", "-r", str(path), "-Y", f"frame.number == {number}", "-T", "fields",
                          "-E", "occurrence=a", *(arg for name in names for arg in ("-e", name))],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return dict(zip(names, out.rstrip("\n").split("\t")))


def application(client, cid: str, number: int) -> tuple[str, dict[str, str]]:
    """The frame's last layer, its application layer: (name, {field: value})."""
    response = client.get(f"/captures/{cid}/frames/{number}")
    assert response.status_code == 200, response.text
    layer = response.json()["layers"][-1]
    return layer["name"], dict(layer["fields"])


def test_dns_dhcp_http_and_tls_frames_show_their_application_layer(api, client, captures, dns_capture):
    dns = tshark_frame(captures / DNS_DEMO, 2, "dns.id", "dns.flags", "dns.qry.name", "dns.a", "dns.resp.ttl")
    name, got = application(client, dns_capture, 2)
    assert name == "DNS" and got["id"] == dns["dns.id"] and got["flags"].startswith(dns["dns.flags"])
    assert got["question"] == f"{dns['dns.qry.name']} A IN"
    assert got["answer"] == f"{dns['dns.qry.name']} A {dns['dns.a']} ttl {dns['dns.resp.ttl']}"

    rules = api.analyzed(client, captures / "demo_all_rules.pcap")
    dhcp = tshark_frame(captures / "demo_all_rules.pcap", 597, "dhcp.id", "dhcp.option.dhcp", "dhcp.option.hostname",
                        "dhcp.option.vendor_class_id", "dhcp.option.request_list_item")
    name, got = application(client, rules, 597)
    assert name == "DHCP" and got["transaction id"] == dhcp["dhcp.id"]
    assert got["message type"] == f"{dhcp['dhcp.option.dhcp']} (DISCOVER)"
    assert (got["hostname"], got["vendor class"], got["parameter list"]) == (
        dhcp["dhcp.option.hostname"], dhcp["dhcp.option.vendor_class_id"], dhcp["dhcp.option.request_list_item"])
    assert got["client id"].startswith("rfc4361 iaid ")

    tls = tshark_frame(captures / "demo_all_rules.pcap", 1600, "tls.handshake.version",
                       "tls.handshake.extensions_server_name")
    name, got = application(client, rules, 1600)
    assert name == "TLS" and got["handshake"] == "client hello"
    assert got["version"] == f"TLS 1.2 ({tls['tls.handshake.version']})"
    assert got["server name (SNI)"] == tls["tls.handshake.extensions_server_name"]

    web = api.analyzed(client, captures / "http_demo.pcap")
    request = tshark_frame(captures / "http_demo.pcap", 1, "http.request.method", "http.request.uri", "http.host",
                           "http.user_agent")
    name, got = application(client, web, 1)
    assert name == "HTTP" and (got["method"], got["target"], got["host"], got["user-agent"]) == tuple(request.values())
    response = tshark_frame(captures / "http_demo.pcap", 2, "http.response.code", "http.server")
    name, got = application(client, web, 2)
    assert name == "HTTP" and (got["status"], got["server"]) == tuple(response.values())


def test_a_truncated_payload_shows_what_decoded_and_an_error(api, client, tmp_path):
    net = Scenario()
    pc, server = net.host("10.9.0.20", "02:00:00:00:09:20"), net.host("10.9.0.1", "02:00:00:00:09:01")
    net.udp(pc, server, 53000, 53, app.dns_query(0x4242, "cut.example", "A")[:-3])  # frame 1
    hello = app.tls_client_hello("cut.example")[:60]  # frame 2: a ClientHello cut mid-way
    net.emit(f.ethernet(pc.mac, server.mac, f.ETH_IPV4, f.ipv4(pc.ip, server.ip, f.PROTO_TCP, f.tcp(
        pc.ip, server.ip, 50000, 443, 1000, 1, "PA", payload=hello))))
    net.udp(pc, server, 40000, 40001, b"\x00" * 9)  # frame 3: no protocol we read
    cid = api.analyzed(client, net.write_pcap(tmp_path / "cut.pcap"))

    name, got = application(client, cid, 1)
    assert name == "DNS" and got["id"] == "0x4242" and "truncated" in got["error"]
    name, got = application(client, cid, 2)
    assert name == "TLS" and got["handshake"] == "client hello" and "truncated" in got["error"]
    assert application(client, cid, 3) == ("Data", {"length": "9"})


# -- hostile captures in the frame view (issue 23, items 1 and 5) ------------------------------

def partial(api, client, path) -> dict:
    response = api.upload(client, path)
    assert response.status_code in (200, 202), response.text
    capture = api.wait(client, response.json()["id"])
    assert capture["status"] == "partial", capture
    return capture


def dns_pair(i: int) -> bytes:
    return f.ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", f.ETH_IPV4, f.ipv4(
        "10.0.0.1", "10.0.0.2", f.PROTO_UDP, f.udp("10.0.0.1", "10.0.0.2", 40000, 53, bytes([i]) * 12)))


@pytest.mark.parametrize("bad", ["interface-without-idb", "epb-shorter-than-its-fields"])
def test_a_malformed_packet_block_is_where_the_frames_end_not_a_500(api, client, tmp_path, bad):
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.interface(1)
    for i in range(6):  # one conversation: frame 6's "next" is looked for past it
        w.write(1_700_000_000 + i, dns_pair(i))
    if bad == "interface-without-idb":
        data = dns_pair(7)
        w.raw_block(0x00000006, struct.pack("<IIIII", 4, 0, 0, len(data), len(data)) + data)
        w.write(1_700_000_010, dns_pair(8))
    else:
        w.raw_block(0x00000006, b"\x00" * 4)
    path = tmp_path / "bad.pcapng"
    path.write_bytes(buf.getvalue())
    capture = partial(api, client, path)
    assert capture["packets"] == 6
    for n in range(1, 7):
        frame = client.get(f"/captures/{capture['id']}/frames/{n}")
        assert frame.status_code == 200, frame.text
    assert frame.json()["conversation"]["next"] is None
    assert_error(client.get(f"/captures/{capture['id']}/frames/7"), 404, "not_found", "has 6 frames")
    sliced = client.get(f"/captures/{capture['id']}/frames.pcap", params={"frames": "1-6"})
    assert sliced.status_code == 200
    out = tmp_path / "slice.pcapng"
    out.write_bytes(sliced.content)
    assert [r[2] for r in records(out)] == [dns_pair(i) for i in range(6)]


def test_a_gzip_bomb_is_refused_by_the_frame_view_not_inflated(api, client, captures, tmp_path):
    bomb = tmp_path / "bomb.pcap.gz"
    with gzip.open(bomb, "wb") as out:
        out.write((captures / DNS_DEMO).read_bytes()[:24])  # a pcap header, then zeros
        for _ in range(64):
            out.write(bytes(1 << 20))
    capture = partial(api, client, bomb)
    assert "TRACEPCAP_MAX_DECOMPRESSION_RATIO" in capture["error"]
    assert_error(client.get(f"/captures/{capture['id']}/frames/1"), 413, None,
                 "decompresses to more than 1000 times its compressed size")
    assert_error(client.get(f"/captures/{capture['id']}/frames.pcap", params={"frames": "1"}), 413)
    stored = capture_path(api.settings.capture_dir, capture["sha256"])
    assert not [p for p in stored.parent.iterdir() if p.name.startswith((".inflate-", stored.name + ".decompressed"))]


def test_a_frame_time_beyond_the_calendar_is_shown_not_a_500(api, client, tmp_path):
    """A damaged pcapng whose interface counts whole seconds (if_tsresol 0) and whose packet
    says 2^40 of them: year ~36,800, which no calendar date names (fuzz, issue 23)."""
    buf = io.BytesIO()
    w = PcapngWriter(buf)
    w.section()
    w.raw_block(0x00000001, struct.pack("<HHI", 1, 0, 65535) + struct.pack("<HH", 9, 1) + b"\x00\x00\x00\x00"
                + struct.pack("<HH", 0, 0))
    data = dns_pair(1)
    ticks = 1 << 40
    w.raw_block(0x00000006, struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(data), len(data)) + data)
    path = tmp_path / "far.pcapng"
    path.write_bytes(buf.getvalue())
    response = api.upload(client, path)
    assert response.status_code in (200, 202), response.text
    cid = response.json()["id"]
    assert api.wait(client, cid)["status"] in ("done", "partial")
    frame = client.get(f"/captures/{cid}/frames/1")
    assert frame.status_code == 200, frame.text
    # API times are ISO 8601: none names this one, so `time` is null and `time_text` gives the seconds
    assert frame.json()["time"] is None
    assert f"{ticks}.000000 s after 1970" in frame.json()["time_text"]
    assert "beyond the years a calendar date can name" in frame.json()["time_text"]
