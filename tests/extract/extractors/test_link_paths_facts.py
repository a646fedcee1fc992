"""Issue 24: `mac-ttl`, `dst-mac` and `gateway-option` facts (extractors/link_paths.py)."""

from __future__ import annotations

from tracepcap.extract.extractors.link_paths import GatewayOption, LinkPaths
from tracepcap.testing import dhcp as dhcp_msg
from tracepcap.testing.scenario import Scenario

CLIENT_MAC, GW_MAC, SERVER_MAC = "02:00:00:00:00:50", "02:00:00:00:00:01", "02:00:00:00:00:fe"


def test_the_router_option_of_an_ack_names_the_gateway(run, rows):
    net = Scenario()
    server = net.host("10.5.0.2", SERVER_MAC)
    ack = dhcp_msg.dhcp(dhcp_msg.BOOTREPLY, 7, CLIENT_MAC, dhcp_msg.ACK, yiaddr="10.5.0.77",
                        router="10.5.0.1", server_id=server.ip)
    net.udp(server, "255.255.255.255", 67, 68, ack)
    request = dhcp_msg.dhcp(dhcp_msg.BOOTREQUEST, 8, CLIENT_MAC, dhcp_msg.REQUEST, router="10.5.0.9")
    net.udp(net.host("0.0.0.0", CLIENT_MAC), "255.255.255.255", 68, 67, request)  # a client's: ignored
    assert rows(run(net, GatewayOption)) == {("10.5.0.1", "gateway-option", "10.5.0.2", "dhcp", 1, 1, 1)}


def test_unicasts_on_the_subnet_give_the_destination_mac_and_each_mac_its_ttl(run, rows):
    net = Scenario()
    client = net.host("10.5.0.50", CLIENT_MAC, ttl=128)
    gateway = net.host("10.5.0.1", GW_MAC)
    copy = net.host("10.5.0.50", GW_MAC, ttl=127)  # a router's copy of the client's frame
    remote = net.host("198.51.100.9", via=gateway, ttl=50)
    for _ in range(2):
        net.udp(client, gateway, 137, 137, b"\x00" * 20)  # frames 1, 2: on the subnet
    net.udp(client, remote, 5000, 53, b"\x00" * 20)  # frame 3: off the subnet, no dst-mac
    net.udp(copy, net.host("10.5.0.3", "02:00:00:00:00:03"), 5001, 53, b"\x00" * 20)  # frame 4
    net.udp(client, "10.5.0.255", 138, 138, b"\x00" * 20)  # broadcast: neither fact
    result = run(net, LinkPaths)
    assert rows(result, "dst-mac") == {("10.5.0.1", "dst-mac", GW_MAC, "link-paths", 1, 2, 2),
                                       ("10.5.0.3", "dst-mac", "02:00:00:00:00:03", "link-paths", 4, 4, 1)}
    assert rows(result, "mac-ttl") == {
        ("10.5.0.50", "mac-ttl", f"{CLIENT_MAC} 128", "link-paths", 1, 3, 3),
        ("10.5.0.50", "mac-ttl", f"{GW_MAC} 127", "link-paths", 4, 4, 1)}
