"""VPN endpoints as tunnel-endpoint facts: both ends, the responder's port."""

from __future__ import annotations

from tracepcap.extract.extractors.vpn import Vpn
from tracepcap.testing import identity
from tracepcap.testing.scenario import Scenario


def test_personal_laptop_vpn_capture(run, rows, captures):
    # 25 WireGuard handshake initiations from 10.0.4.20 to 198.51.100.50:51820, frames 46 ..
    # (tshark -Y wg), never answered in the capture
    result = run(captures / "monitor_large_week2_personal_laptop_vpn.pcap", Vpn)
    found = rows(result)
    assert {row[:4] for row in found} == {
        ("10.0.4.20", "tunnel-endpoint", "wireguard udp/51820", "vpn"),
        ("198.51.100.50", "tunnel-endpoint", "wireguard udp/51820", "vpn")}
    assert {(row[4], row[6]) for row in found} == {(46, 25)}


def test_each_vpn_on_both_ends(run, rows):
    net = Scenario()
    laptop = net.host("10.0.0.5", "00:1b:21:00:00:05")
    server = net.host("198.51.100.50", "00:00:0c:00:00:01")
    net.udp(laptop, server, 40000, 51821, identity.wireguard_initiation(0x1234))  # 1
    net.udp(server, laptop, 51821, 40000, identity.wireguard_response(0x99, 0x1234))  # 2
    net.udp(laptop, server, 40001, 1194, identity.openvpn_hard_reset_client(1))  # 3
    net.udp(laptop, server, 500, 500, identity.ike_sa_init(0xAABB))  # 4
    net.udp(laptop, server, 4500, 4500, b"\xff")  # 5: NAT keepalive, nothing
    net.udp(laptop, server, 4500, 4500, identity.esp(0x2000, 1))  # 6
    net.ip(laptop, server, 50, identity.esp(0xABCD, 1))  # 7
    net.udp(laptop, server, 1701, 1701, identity.l2tp_sccrq())  # 8
    net.udp(laptop, server, 40002, 40003, bytes(148))  # 9: a 148-byte datagram of zeros
    result = run(net, Vpn)
    values = {(row[2], row[4], row[6]) for row in rows(result) if row[0] == "10.0.0.5"}
    assert values == {("wireguard udp/51821", 1, 2), ("openvpn udp/1194", 3, 1),
                      ("ike v2 udp/500", 4, 1), ("esp spi 0x00002000 udp/4500", 6, 1),
                      ("esp spi 0x0000abcd", 7, 1), ("l2tp v2 udp/1701", 8, 1)}
    assert {row[2] for row in rows(result) if row[0] == "198.51.100.50"} == {v for v, _, _ in values}
