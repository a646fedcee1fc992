"""Ownership evidence on synthetic captures (issue 11, items 1 and 5): a DHCP lease binds an
address to its MAC; proxy ARP binds many addresses to one MAC (a finding, not a silent pick);
a VRRP virtual MAC is the virtual gateway's, shared by its routers; an ARP spoofer is named."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tracepcap.present.cli import ExitCode, main
from tracepcap.scan.ownership import Sender, owner, virtual_gateway
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Scenario


def document(sc: Scenario, tmp_path) -> dict:
    path = sc.write_pcap(tmp_path / "capture.pcap")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}"])
    assert code == ExitCode.OK
    return json.loads(out.getvalue())


def hosts_of(doc: dict) -> dict[str, dict]:
    return {a: h for h in doc["hosts"] for a in h["addresses"] or [h["key"]]}


def findings(doc: dict, kind: str) -> list[dict]:
    return [x for x in doc["findings"] if x["kind"] == kind]


def arp_reply(sc: Scenario, mac: str, ip: str, to_mac: str, to_ip: str) -> None:
    sc.emit(f.ethernet(mac, to_mac, f.ETH_ARP, f.arp(f.ARP_REPLY, mac, ip, to_mac, to_ip), pad=True))


def gratuitous_arp(sc: Scenario, mac: str, ip: str) -> None:
    sc.emit(f.ethernet(mac, f.BROADCAST_MAC, f.ETH_ARP, f.arp(f.ARP_REPLY, mac, ip, f.BROADCAST_MAC, ip),
                       pad=True))


def test_virtual_gateway_macs_are_recognised():
    assert virtual_gateway("00:00:5e:00:01:0a") == "the VRRP (or CARP) virtual MAC of group 10"
    assert virtual_gateway("00:00:5e:00:02:01") == "the VRRP (or CARP) virtual MAC of group 1"
    assert virtual_gateway("00:00:0c:07:ac:2f") == "the HSRP virtual MAC of group 47"
    assert virtual_gateway("00:00:0c:9f:f1:02") == "the HSRPv2 virtual MAC of group 258"
    assert virtual_gateway("00:00:5e:00:53:01") is None  # IANA's documentation MAC
    assert virtual_gateway("00:00:0c:9f:e1:02") is None


def test_a_lone_contested_binding_decides_nothing_and_the_spoofers_own_address_takes_the_mac():
    """The spoofer's MAC: ARP bound only the gateway's address to it (and the gateway's address
    to the gateway's MAC as well); the spoofer's own address sends from it zero hops away."""
    found = owner("b8:27:eb:3d:08:db", [Sender("10.0.0.1", 40, 0, True, True, contested=True),
                                         Sender("10.0.0.66", 5, 0, True, False)])
    assert found.ip == "10.0.0.66"
    assert found.reason == ("10.0.0.1 is bound to b8:27:eb:3d:08:db and to another MAC as well, so the binding "
                            "decides nothing: 10.0.0.66 is the one address sending from "
                            "b8:27:eb:3d:08:db with an unspent initial TTL")


def test_of_several_bound_addresses_the_one_bound_nowhere_else_owns_the_mac():
    found = owner("b8:27:eb:3d:08:db", [Sender("10.0.0.1", 40, 0, True, True, contested=True),
                                         Sender("10.0.0.66", 5, 0, True, True)])
    assert (found.ip, found.reason) == ("10.0.0.66", "2 addresses are bound to b8:27:eb:3d:08:db (10.0.0.1, "
                                                     "10.0.0.66); only 10.0.0.66 is bound to no other MAC")


# --- DHCP: the lease binds the address to the client's MAC -----------------------------------

def test_a_dhcp_lease_decides_who_owns_the_mac(tmp_path):
    sc = Scenario()
    server = sc.host("192.168.5.1", "02:00:00:00:05:01")
    client = sc.dhcp_exchange("02:00:00:00:05:32", server, "192.168.5.50")
    alias = sc.host("192.168.5.99", client.mac)  # a second address on the same MAC, busier
    sc.ping(client, server)
    sc.ping(alias, server, count=3)
    hosts = hosts_of(document(sc, tmp_path))
    assert hosts["192.168.5.50"]["locality"] == "on-link"
    assert hosts["192.168.5.50"]["locality_reason"] == (
        "owns 02:00:00:00:05:32 (a DHCP lease binds 192.168.5.50 to 02:00:00:00:05:32)")
    assert hosts["192.168.5.99"]["locality"] == "local-routed"  # the lease, not the frame count, decides


# --- proxy ARP: one router answers for several addresses ------------------------------------

@pytest.fixture(scope="module")
def proxy_arp(tmp_path_factory):
    sc = Scenario()
    router = sc.host("10.20.0.1", "02:00:00:00:20:01")
    client = sc.host("10.20.0.30", "02:00:00:00:20:30")
    sc.arp_exchange(client, router)
    behind = [sc.host(f"10.20.0.{n}", via=router, ttl=63) for n in (200, 201, 202)]
    for host in behind:  # the router answers for addresses on the far side of it
        arp_reply(sc, router.mac, host.ip, client.mac, client.ip)
        sc.ping(client, host)
    sc.ping(client, router)
    return document(sc, tmp_path_factory.mktemp("proxy"))


def test_proxy_arp_is_a_low_finding_naming_every_address(proxy_arp):
    found = findings(proxy_arp, "mac-bound-twice")
    assert len(found) == 1 and found[0]["severity"] == "low"
    # the router's device, and the proxied addresses (routed hosts, keyed by their address)
    assert found[0]["entities"] == ["mac-02-00-00-00-20-01", "10.20.0.200", "10.20.0.201", "10.20.0.202"]
    assert found[0]["summary"].startswith("02:00:00:00:20:01 is bound to 4 addresses: 10.20.0.1 (frame 2), ")
    assert "proxy ARP" in found[0]["summary"]
    assert "It is taken as 10.20.0.1's: 4 addresses are bound to" in found[0]["summary"]


def test_proxy_arp_router_owns_its_mac_and_the_proxied_addresses_do_not(proxy_arp):
    hosts = hosts_of(proxy_arp)
    assert hosts["10.20.0.1"]["locality"] == "on-link"
    assert "so the binding decides nothing" in hosts["10.20.0.1"]["locality_reason"]
    assert "unspent initial TTL" in hosts["10.20.0.1"]["locality_reason"]
    for ip in ("10.20.0.200", "10.20.0.201", "10.20.0.202"):
        assert hosts[ip]["locality"] == "local-routed", ip
    assert not findings(proxy_arp, "ip-mac-conflict")


# --- VRRP: the virtual gateway's MAC, shared by two routers ----------------------------------

VIRTUAL_MAC = "00:00:5e:00:01:0a"


@pytest.fixture(scope="module")
def vrrp(tmp_path_factory):
    sc = Scenario()
    master = sc.host("10.30.0.2", "02:00:00:00:30:02")
    backup = sc.host("10.30.0.3", "02:00:00:00:30:03")
    gateway = sc.host("10.30.0.1", VIRTUAL_MAC)  # the virtual address, answered by the master
    client = sc.host("10.30.0.40", "02:00:00:00:30:40")
    for _ in range(3):  # the master advertises from the virtual MAC with its own address (RFC 5798 7.3)
        advert = bytes((0x31, 10, 100, 1, 0, 100, 0, 0)) + f.ip_bytes("10.30.0.1")
        sc._ip(master.ip, VIRTUAL_MAC, "224.0.0.18", "01:00:5e:00:00:12", 112, advert, 255, None)
    sc.ping(master, backup)  # the routers' own MACs
    sc.arp_exchange(client, gateway)
    sc.dns_lookup(client, gateway, "example.org", ["93.184.216.34"])
    for n in range(1, 6):
        sc.ping(client, sc.host(f"198.51.100.{n}", via=gateway, ttl=52))
    return document(sc, tmp_path_factory.mktemp("vrrp"))


def test_the_virtual_address_owns_the_shared_mac_and_is_the_gateway(vrrp):
    gateway = hosts_of(vrrp)["10.30.0.1"]
    assert gateway["locality"] == "on-link"
    assert gateway["locality_reason"].startswith(
        f"owns {VIRTUAL_MAC} ({VIRTUAL_MAC} is the VRRP (or CARP) virtual MAC of group 10, shared by the "
        "routers of a redundant gateway, and 10.30.0.1 is the virtual gateway address: ARP binds")
    assert gateway["verdicts"]["node-role"]["primary_label"] == "Default Gateway"


def test_the_master_advertising_from_the_virtual_mac_is_no_conflict(vrrp):
    hosts = hosts_of(vrrp)
    assert hosts["10.30.0.2"]["locality_reason"] == "owns 02:00:00:00:30:02 (10.30.0.2 is the one address " \
                                                    "sending from 02:00:00:00:30:02 with an unspent initial TTL)"
    assert not findings(vrrp, "ip-mac-conflict") and not findings(vrrp, "mac-bound-twice")


# --- ARP spoofing: 10.40.0.66 claims the gateway's address and forwards as it ----------------

GATEWAY_MAC = "10:13:31:f1:39:76"  # a Technicolor home router
ATTACKER_MAC = "b8:27:eb:3d:08:db"  # a Raspberry Pi
GATEWAY_DEVICE, ATTACKER_DEVICE = "mac-10-13-31-f1-39-76", "mac-b8-27-eb-3d-08-db"  # their entity keys


@pytest.fixture(scope="module")
def spoofed(tmp_path_factory):
    sc = Scenario()
    gateway = sc.host("10.40.0.1", GATEWAY_MAC)
    victim = sc.host("10.40.0.20", "02:00:00:00:40:20")
    attacker = sc.host("10.40.0.66", ATTACKER_MAC)
    sc.arp_exchange(victim, gateway)  # frames 1, 2
    sc.arp_exchange(victim, attacker)  # frames 3, 4
    sc.dns_lookup(victim, gateway, "example.org", ["93.184.216.34"])
    sc.ping(victim, sc.host("93.184.216.34", via=gateway, ttl=50))
    sc.ping(attacker, victim, count=2)
    first_lie = len(sc.frames()) + 1
    for _ in range(2):  # the lie, repeated
        gratuitous_arp(sc, ATTACKER_MAC, gateway.ip)
    posing = sc.host(gateway.ip, ATTACKER_MAC, ttl=63)  # forwards the gateway's answers, one hop on
    sc.dns_lookup(victim, posing, "example.com", ["93.184.216.35"])
    sc.dns_lookup(victim, posing, "example.net", ["93.184.216.36"])
    return document(sc, tmp_path_factory.mktemp("spoof")), first_lie, len(sc.frames())


def test_the_conflict_names_both_macs_and_the_spoofer(spoofed):
    doc, first_lie, last = spoofed
    found = [x for x in findings(doc, "ip-mac-conflict") if x["entities"][0] == GATEWAY_DEVICE]
    assert len(found) == 1 and found[0]["severity"] == "high"
    assert found[0]["entities"] == [GATEWAY_DEVICE, ATTACKER_DEVICE]  # the victim's device and the spoofer's
    summary = found[0]["summary"]
    assert summary.startswith(f"10.40.0.1 was claimed by 2 MACs: {GATEWAY_MAC} (frames 2, ")
    assert f"{ATTACKER_MAC} (frames {first_lie}, " in summary and f", {last}), the MAC of 10.40.0.66" in summary
    assert first_lie in found[0]["frames"] and last in found[0]["frames"]


def test_the_victim_keeps_its_own_mac_and_vendor(spoofed):
    doc, _, _ = spoofed
    hosts = hosts_of(doc)
    assert hosts["10.40.0.1"]["locality_reason"].startswith(f"owns {GATEWAY_MAC} (")
    assert ATTACKER_MAC not in hosts["10.40.0.1"]["locality_reason"]
    assert hosts["10.40.0.66"]["locality_reason"].startswith(f"owns {ATTACKER_MAC} (")
    identity = hosts["10.40.0.1"]["verdicts"]["host-identity"]
    reasons = " ".join(r for c in identity["candidates"] for r in c["reasons"])
    assert "Raspberry" not in reasons and identity["primary_label"] != "Raspberry Pi"


def test_the_spoofers_mac_bound_to_two_addresses_is_a_medium_finding(spoofed):
    doc, first_lie, _ = spoofed
    found = findings(doc, "mac-bound-twice")
    assert [(x["severity"], x["entities"]) for x in found] == [("medium", [ATTACKER_DEVICE, GATEWAY_DEVICE])]
    assert found[0]["summary"].startswith(f"{ATTACKER_MAC} is bound to 2 addresses: 10.40.0.66 (frame 4), "
                                          f"10.40.0.1 (frames {first_lie}, {first_lie + 1}); 10.40.0.1 is bound "
                                          "to another MAC as well. It is taken as 10.40.0.66's: ")
