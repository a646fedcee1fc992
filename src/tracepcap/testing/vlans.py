"""A trunk port's capture: two 802.1Q VLANs behind one router-on-a-stick, and one QinQ
(802.1ad outer, 802.1Q inner) subscriber, for the `vlan` facts and the topology by VLAN.

    VLAN 10  10.0.10.0/24  router 10.0.10.1, PCs 10.0.10.21 and .22
    VLAN 20  10.0.20.0/24  router 10.0.20.1 (the same MAC), PCs 10.0.20.31 and .32
    QinQ     100.30        10.0.30.5 talking to 10.0.30.1 (S-tag 100, C-tag 30)
    remote   203.0.113.80, reached by a VLAN 10 PC through the router
"""

from __future__ import annotations

from pathlib import Path

from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Scenario

ROUTER_MAC = "00:00:0c:00:00:01"
VLAN10 = {"10.0.10.21": "3c:22:fb:00:10:21", "10.0.10.22": "3c:22:fb:00:10:22"}
VLAN20 = {"10.0.20.31": "3c:22:fb:00:20:31", "10.0.20.32": "3c:22:fb:00:20:32"}
QINQ_HOST, QINQ_PEER = ("10.0.30.5", "3c:22:fb:00:30:05"), ("10.0.30.1", "00:00:0c:00:00:30")
QINQ_TAGS = (100, 30)  # S-tag (TPID 0x88a8), C-tag (0x8100)
REMOTE = "203.0.113.80"


def build(path: Path) -> Path:
    net = Scenario(start=1_700_000_000.0)
    router10 = net.host("10.0.10.1", ROUTER_MAC, ttl=255, vlan=10)
    router20 = net.host("10.0.20.1", ROUTER_MAC, ttl=255, vlan=20)
    pcs10 = [net.host(ip, mac, vlan=10) for ip, mac in VLAN10.items()]
    pcs20 = [net.host(ip, mac, vlan=20) for ip, mac in VLAN20.items()]
    web = net.host(REMOTE, via=router10, ttl=52)
    for pc, router in [(pc, router10) for pc in pcs10] + [(pc, router20) for pc in pcs20]:
        net.arp_exchange(pc, router)  # untagged ARP: no VLAN fact, and nothing breaks
        net.ping(pc, router)
        net.dns_lookup(pc, router, "intranet.example", ["10.0.10.5"])
    net.tcp_session(pcs10[0], web, 50123, 80, client=[app.http_request("GET", "/", "example.net")],
                    server=[app.http_response(server="nginx")])
    net.tcp_session(pcs20[0], pcs20[1], 50200, 22, client=[b"SSH-2.0-OpenSSH_9.6\r\n"],
                    server=[b"SSH-2.0-OpenSSH_9.6\r\n"])
    (ip, mac), (peer_ip, peer_mac) = QINQ_HOST, QINQ_PEER
    for seq in (1, 2):  # ICMP echo both ways under two tags
        for src, src_mac, dst, dst_mac, reply in ((ip, mac, peer_ip, peer_mac, False),
                                                  (peer_ip, peer_mac, ip, mac, True)):
            echo = f.icmp_echo(7, seq, b"qinq", reply, src, dst)
            net.emit(f.ethernet(src_mac, dst_mac, f.ETH_IPV4, f.ipv4(src, dst, f.PROTO_ICMP, echo),
                                QINQ_TAGS))
    return net.write_pcap(path)
