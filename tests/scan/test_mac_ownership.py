"""MAC ownership by evidence, and locality (issue 11, item 1 and the LAN-role half of item 2):
the real gateway owns its MAC, the remote addresses seen through it never do, and remote
hosts get no LAN roles."""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json

import pytest

from tracepcap.present.cli import ExitCode, main
from tracepcap.scan.ownership import Sender, eui64_of, owner
from tracepcap.testing.scenario import Scenario

GATEWAY_MAC = "10:13:31:f1:39:76"  # demo_all_rules.pcap: the home router
PI_MAC = "00:80:8f:9a:ae:bd"  # demo_all_rules.pcap: the Raspberry Pi


def document(path, tmp_path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}"])
    assert code == ExitCode.OK
    return json.loads(out.getvalue())


def answer(host: dict, question: str) -> tuple[str | None, bool]:
    verdict = host["verdicts"][question]
    return verdict["primary_label"], verdict["contested"]


# --- the rules, one by one ------------------------------------------------------------------

def test_an_arp_binding_decides_among_zero_hop_senders():
    senders = [Sender("10.0.0.5", 90, 0, True, False), Sender("10.0.0.6", 10, 0, True, True)]
    found = owner("02:00:00:00:00:01", senders)
    assert (found.ip, found.reason) == ("10.0.0.6", "ARP/ND binds 10.0.0.6 to 02:00:00:00:00:01")


def test_the_eui64_address_owns_its_mac():
    mac = "8c:fe:57:23:37:e4"
    assert eui64_of(mac) == 0x8efe57fffe2337e4
    found = owner(mac, [Sender("fe80::8efe:57ff:fe23:37e4", 2, 0, True, False),
                        Sender("fe80::1", 50, 0, True, False)])
    assert found.ip == "fe80::8efe:57ff:fe23:37e4" and "EUI-64" in found.reason


def test_the_one_site_address_among_remote_ones_is_the_routers_own_whatever_its_ttl():
    senders = [Sender("192.168.1.1", 5, 7, True, False)]  # a DNS proxy: its upstream's TTL 57
    senders += [Sender(f"91.108.8.{i}", 500, 13, False, False) for i in range(1, 20)]
    assert owner(GATEWAY_MAC, senders) is None  # nothing yet says 192.168.1.0/24 is the segment
    found = owner(GATEWAY_MAC, senders, {ipaddress.ip_network("192.168.1.0/24")})
    assert found.ip == "192.168.1.1"
    assert found.reason == (f"{GATEWAY_MAC} carries 19 addresses from beyond the site and one site-local "
                            "address on the segment's subnet 192.168.1.0/24, 192.168.1.1: the router's own "
                            "interface")


def test_routed_senders_only_give_no_owner():
    """Seen from upstream: an internal host two hops away, off the segment's subnets."""
    assert owner(GATEWAY_MAC, [Sender("203.0.113.5", 900, 12, False, False),
                               Sender("10.9.0.4", 3, 2, True, False)],
                 {ipaddress.ip_network("192.168.1.0/24")}) is None


def test_a_lone_sender_hops_away_does_not_own_the_mac():
    """demo_all_rules.pcap: the Raspberry Pi's MAC sent DNS answers as the router (TTL 57)."""
    assert owner(PI_MAC, [Sender("192.168.1.1", 12, 7, True, False)],
                 {ipaddress.ip_network("192.168.1.0/24")}) is None


def test_a_router_carrying_thousands_is_decided_in_one_pass(monkeypatch):
    """No sender is compared with another (a list-membership test per sender made a router's
    MAC carrying 30,000 addresses quadratic: 100 s of a 100,000-host capture)."""
    def compared(*_args):
        raise AssertionError("owner() compared two senders")
    monkeypatch.setattr(Sender, "__eq__", compared)
    senders = [Sender(f"198.18.{i // 250}.{i % 250}", 3, 13, False, False) for i in range(5000)]
    found = owner(GATEWAY_MAC, senders + [Sender("192.168.1.1", 9, 7, True, False)],
                  {ipaddress.ip_network("192.168.1.0/24")})
    assert found.ip == "192.168.1.1"


def test_among_several_zero_hop_senders_the_reason_says_nothing_decided():
    found = owner("aa:bb:cc:dd:ee:01", [Sender("10.1.0.10", 4, 0, True, False),
                                        Sender("10.1.0.20", 9, 0, True, False)])
    assert found.ip == "10.1.0.20" and "nothing in the capture decides" in found.reason


# --- a synthetic LAN: a router fronting 1,000 remote addresses --------------------------------

@pytest.fixture(scope="module")
def fronted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fronted")
    sc = Scenario()
    router = sc.host("192.168.7.1", "02:00:00:00:07:01", ttl=57)  # answers DNS with its upstream's TTL
    client = sc.host("192.168.7.20", "02:00:00:00:07:20")
    sc.dns_lookup(client, router, "example.org", ["93.184.216.34"])
    for i in range(1000):
        remote = sc.host(f"198.18.{i // 250}.{i % 250 + 1}", via=router, ttl=255 - 13)  # 13 hops, initial 255
        sc.ping(client, remote)
    return document(sc.write_pcap(tmp / "fronted.pcap"), tmp)


def test_the_router_owns_its_mac_and_is_the_default_gateway(fronted):
    hosts = {a: h for h in fronted["hosts"] for a in h["addresses"] or [h["key"]]}
    assert answer(hosts["192.168.7.1"], "node-role") == ("Default Gateway", False)
    assert answer(hosts["192.168.7.1"], "host-identity") == ("Router", False)


def test_no_remote_address_is_a_router_or_gateway(fronted):
    remote = [h for h in fronted["hosts"] if h["ip"].startswith("198.18.")]
    assert len(remote) == 1000
    for host in remote:
        assert host["verdicts"]["host-identity"]["primary_label"] != "Router", host["ip"]  # TTL 255 alone
        assert host["verdicts"]["node-role"]["primary_label"] != "Default Gateway", host["ip"]


# --- the shared capture: the expert labels of ../shared/captures/LABELS.md --------------------

@pytest.fixture(scope="module")
def demo(captures, tmp_path_factory):
    return document(captures / "demo_all_rules.pcap", tmp_path_factory.mktemp("demo"))


def test_demo_gateway_is_the_home_router(demo):
    gateway = next(h for h in demo["hosts"] if h["ip"] == "192.168.1.1")
    assert answer(gateway, "node-role") == ("Default Gateway", False)
    assert answer(gateway, "host-identity") == ("Router", False)
    reasons = gateway["verdicts"]["host-identity"]["candidates"][0]["reasons"]
    assert reasons[0].startswith(f"its MAC {GATEWAY_MAC} also carries ")


def test_demo_internet_addresses_are_never_routers_or_gateways(demo):
    seen_through = [h for h in demo["hosts"] if GATEWAY_MAC in h["macs"] and h["ip"] != "192.168.1.1"]
    assert len(seen_through) >= 10 and all(h["ip"].split(".")[0] in ("91", "216", "87") for h in seen_through)
    for host in seen_through:
        assert host["verdicts"]["host-identity"]["primary_label"] not in ("Router", "Default Gateway")
        assert host["verdicts"]["node-role"]["primary_label"] != "Default Gateway"


def test_demo_two_mac_dns_answers_of_the_gateway_are_a_finding(demo):
    # the finding links the gateway's device and the Raspberry Pi's (a MAC-only device)
    conflicts = [f for f in demo["findings"] if f["kind"] == "ip-mac-conflict"
                 and f["entities"] == ["mac-10-13-31-f1-39-76", "mac-00-80-8f-9a-ae-bd"]]
    assert len(conflicts) == 1 and conflicts[0]["severity"] == "high"
    assert GATEWAY_MAC in conflicts[0]["summary"] and PI_MAC in conflicts[0]["summary"]
