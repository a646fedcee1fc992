"""node-role signals on facts made by hand: a domain controller, a resolver, a jump host and a
gateway, each with its exact vote and reason."""

from __future__ import annotations

from support.facts import SAID, context, fact, votes

from tracepcap.extract.kinds import INITIATED, IP_MAC_BINDING, MAC, SERVED, TTL
from tracepcap.scan.context import Traffic
from tracepcap.scan.signals.node_role import domain_controller, gateway, jump_host, served_roles


def test_role_signals():
    dc = {"10.0.0.10": [fact(SERVED, "tcp/88", 40), fact(SERVED, "tcp/389", 44), fact(SERVED, "udp/53", 9)]}
    assert votes(domain_controller, context(dc).host("10.0.0.10"), SAID) == [
        ("Domain Controller", 70, "answers Kerberos on tcp/88 (frame 40) and LDAP on tcp/389 (frame 44) (+70)")]
    assert votes(served_roles, context(dc).host("10.0.0.10"), SAID) == [
        ("DNS Resolver", 40, "answers DNS on udp/53, first in frame 9 (+40)")]
    admin = {"10.0.0.99": [fact(INITIATED, "tcp/22", 7)]}
    traffic = {"10.0.0.99": Traffic(admin_targets={"10.0.0.1", "10.0.0.2", "10.0.0.3"})}
    assert votes(jump_host, context(admin, traffic).host("10.0.0.99"), SAID) == [
        ("Jump Host", 40, "opened SSH sessions to 3 hosts (+40)")]
    mac = "00:00:0c:9f:f0:01"
    routed = {"10.0.0.1": [fact(MAC, mac, 2, 30), fact(TTL, "255", 2, 30)],
              "203.0.113.1": [fact(MAC, mac, 5, 9), fact(TTL, "50", 5, 9)],
              "203.0.113.2": [fact(MAC, mac, 6, 9), fact(TTL, "51", 6, 9)]}
    assert votes(gateway, context(routed).host("10.0.0.1"), SAID) == [
        ("Default Gateway", 60, "its MAC 00:00:0c:9f:f0:01 carries 2 addresses from outside 10.0.0.0/24 or hops "
                                "away (+60)")]
    # routed packets that kept TTL 64 (a generated capture): outside the subnet is enough
    arp = fact(IP_MAC_BINDING, mac, 1, source="arp")  # 10.0.0.1 says in ARP the MAC is its own
    flat = {"10.0.0.1": [fact(MAC, mac, 2, 30), arp],
            "203.0.113.1": [fact(MAC, mac, 5, 9), fact(TTL, "64", 5, 9)],
            "10.0.2.10": [fact(MAC, mac, 6, 9), fact(TTL, "64", 6, 9)]}
    assert [v[0] for v in votes(gateway, context(flat).host("10.0.0.1"), SAID)] == ["Default Gateway"]
    # two neighbours on its own subnet zero hops away behind one MAC: not a gateway (a bridge, a proxy ARP)
    same = {"10.0.0.1": [fact(MAC, mac, 2, 30), arp],
            "10.0.0.7": [fact(MAC, mac, 5, 9), fact(TTL, "64", 5, 9)],
            "10.0.0.8": [fact(MAC, mac, 6, 9), fact(TTL, "64", 6, 9)]}
    assert votes(gateway, context(same).host("10.0.0.1"), SAID) == []
