"""Applications recognised by their payload on any port: application-used facts on the client,
valued with the server's port, with the frame that showed it."""

from __future__ import annotations

from tracepcap.extract.extractors.applications import Applications, dht, stream_application
from tracepcap.testing import identity
from tracepcap.testing.scenario import Scenario

HANDSHAKE = b"\x13BitTorrent protocol" + bytes(8) + bytes(range(20)) + b"-TR3000-" + bytes(12)
DHT_PING = b"d1:ad2:id20:" + bytes(20) + b"e1:q4:ping1:t2:aa1:y1:qe"
DHT_PONG = b"d1:rd2:id20:" + bytes(20) + b"e1:t2:aa1:y1:re"


def facts(rows, result):
    return {(row[0], row[2], row[4]) for row in rows(result, "application-used")}


def test_each_application_on_an_unusual_port_is_named_on_its_client(run, rows):
    net = Scenario()
    laptop = net.host("10.0.0.5", "00:1b:21:00:00:05")
    server = net.host("10.0.0.9", "00:1b:21:00:00:09")
    peer = net.host("198.51.100.50", "00:00:0c:00:00:01")
    net.tcp_session(laptop, peer, 51413, 40001, client=[HANDSHAKE], server=[HANDSHAKE])
    net.udp(laptop, peer, 51413, 40002, DHT_PING)
    net.udp(peer, laptop, 40002, 51413, DHT_PONG)
    net.tcp_session(laptop, server, 50000, 2222, server=[b"SSH-2.0-OpenSSH_9.6\r\n"],
                    client=[b"SSH-2.0-PuTTY\r\n"])
    net.tcp_session(laptop, server, 50001, 8000, server=[b"RFB 003.008\n"], client=[b"RFB 003.008\n"])
    rdp = b"\x03\x00\x00\x13\x0e\xe0\x00\x00\x00\x00\x00\x01\x00\x08\x00\x03\x00\x00\x00"
    net.tcp_session(laptop, server, 50002, 4000, client=[rdp])
    net.tcp_session(laptop, server, 50003, 2323, server=[b"\xff\xfd\x18\xff\xfd\x20", b"login: "],
                    client=[b"\xff\xfc\x18", b"root\r\n"])
    net.udp(laptop, peer, 40010, 51999, identity.wireguard_initiation(7))
    net.udp(laptop, peer, 40011, 1194, identity.openvpn_hard_reset_client(1))
    net.udp(laptop, peer, 500, 500, identity.ike_sa_init(0xAABB))
    result = run(net, Applications)
    found = {(entity, value) for entity, value, _ in facts(rows, result)}
    laptop_apps = {value for entity, value in found if entity == "10.0.0.5"}
    assert laptop_apps == {"BitTorrent tcp/40001", "BitTorrent DHT udp/40002", "SSH tcp/2222", "VNC tcp/8000",
                           "RDP tcp/4000", "telnet tcp/2323", "WireGuard udp/51999", "OpenVPN udp/1194",
                           "IPsec (IKE) udp/500"}
    # the server side of a TCP application is not its user; a DHT node is both
    assert not {v for e, v in found if e == "10.0.0.9"}
    assert ("198.51.100.50", "BitTorrent DHT udp/40002") in found
    frames = {value: frame for entity, value, frame in facts(rows, result) if entity == "10.0.0.5"}
    assert frames["BitTorrent DHT udp/40002"] > frames["BitTorrent tcp/40001"] > 0


def test_lookalikes_are_not_applications():
    assert dht(b"d4:spaml1:a1:bee") is None  # bencode without a node id
    assert dht(b"d1:ad2:id20:" + bytes(20) + b"e") is None  # no message type
    assert dht(DHT_PING) == "query" and dht(DHT_PONG) == "response"
    assert stream_application(b"GET / HTTP/1.1\r\n") is None
    assert stream_application(b"\x03\x00\x00\x05\x00") is None  # TPKT too short for a request
    assert stream_application(b"\xff\xfd") is None  # telnet negotiation cut short
    assert stream_application(b"RFB 003.008") is None  # no line end


def test_a_stream_without_its_syn_names_no_client(run, rows):
    net = Scenario()
    a, b = net.host("10.0.0.5", "00:1b:21:00:00:05"), net.host("10.0.0.9", "00:1b:21:00:00:09")
    net.tcp_session(a, b, 50000, 2222, client=[b"SSH-2.0-x\r\n"], server=[b"SSH-2.0-y\r\n"], handshake=False)
    assert not facts(rows, run(net, Applications))
