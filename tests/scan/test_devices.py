"""One entity per device (issue 11 item 3): an on-link device is the MAC it owns with every
address bound to it; a MAC with facts of its own and no address is a MAC-only device; remote
and routed hosts are their addresses. Findings, verdicts and annotations carry the keys."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Key
from tracepcap.analysis import adjudicate_capture
from tracepcap.present.cli import ExitCode, main
from tracepcap.scan.entities import build, is_randomised, mac_of_key
from tracepcap.store.entities import resolve, spellings
from tracepcap.store.models import AuditEvent, HumanOverride
from tracepcap.testing import app
from tracepcap.testing import discovery as d
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Host, Scenario

GATEWAY_MAC = "10:13:31:f1:39:76"
IPAD = "mac-8c-fe-57-23-37-e4"
PI = "mac-00-80-8f-9a-ae-bd"


def document(path, tmp_path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}"])
    assert code == ExitCode.OK
    return json.loads(out.getvalue())


def by_key(doc: dict) -> dict[str, dict]:
    return {h["key"]: h for h in doc["hosts"]}


# --- the grouping, unit by unit -----------------------------------------------------------

def test_addresses_owning_one_mac_are_one_device_ordered_ipv4_first():
    hosts = ["10.0.0.5", "10.0.0.9", "2001:db8::5", "fe80::5"]
    owners = {"00:11:22:33:44:55": ("10.0.0.5", "fe80::5"), "00:11:22:33:44:66": ("2001:db8::5",)}
    found = build(hosts, owners, set())
    assert [(e.key, e.addresses, e.macs) for e in found] == [
        ("mac-00-11-22-33-44-55", ("10.0.0.5", "fe80::5"), ("00:11:22:33:44:55",)),
        ("10.0.0.9", ("10.0.0.9",), ()),
        ("mac-00-11-22-33-44-66", ("2001:db8::5",), ("00:11:22:33:44:66",)),
    ]
    assert found[0].ip == "10.0.0.5" and [e.position for e in found] == [0, 1, 2]


def test_a_mac_with_facts_of_its_own_and_no_address_is_a_mac_only_device():
    found = build(["10.0.0.5"], {}, {"mac-02-00-00-00-00-99"})
    assert [(e.key, e.ip, e.addresses, e.randomised) for e in found] == [
        ("10.0.0.5", "10.0.0.5", ("10.0.0.5",), False), ("mac-02-00-00-00-00-99", None, (), True)]


def test_locally_administered_macs_are_flagged_and_never_merged():
    assert is_randomised("da:a1:19:00:00:01") and not is_randomised("8c:fe:57:00:00:01")
    assert not is_randomised("03:00:00:00:00:01")  # a group address
    # one phone, two private MACs, one address each: two devices
    found = build(["192.168.1.30", "192.168.1.31"], {"da:a1:19:00:00:01": ("192.168.1.30",),
                                                    "de:a1:19:00:00:02": ("192.168.1.31",)}, set())
    assert [(e.key, e.randomised) for e in found] == [("mac-da-a1-19-00-00-01", True),
                                                      ("mac-de-a1-19-00-00-02", True)]


def test_keys_are_url_safe_and_every_spelling_of_a_mac_names_it():
    assert mac_of_key("mac-8c-fe-57-23-37-e4") == "8c:fe:57:23:37:e4"
    for spelled in ("8C:FE:57:23:37:E4", "8c-fe-57-23-37-e4", "8cfe.5723.37e4", IPAD):
        assert IPAD in spellings(spelled)
    assert "fe80::4ba:91a:7817:e318" in spellings("FE80::4BA:91A:7817:E318")


# --- demo_all_rules.pcap: the expert labels about identity ------------------------------

@pytest.fixture(scope="module")
def demo(captures, tmp_path_factory):
    return document(captures / "demo_all_rules.pcap", tmp_path_factory.mktemp("demo"))


def test_the_ipads_two_addresses_are_one_device(demo):
    ipad = by_key(demo)[IPAD]
    assert ipad["ip"] == "192.168.1.75" and ipad["addresses"] == ["192.168.1.75", "fe80::4ba:91a:7817:e318"]
    assert ipad["macs"] == ["8c:fe:57:23:37:e4"] and ipad["locality"] == "on-link"
    assert not any(h["key"] != IPAD and set(h["addresses"]) & set(ipad["addresses"]) for h in demo["hosts"])
    # the union of both addresses' facts (the mDNS name and services are the IPv6 address's)
    kinds = {f["kind"] for f in ipad["facts"]}
    assert {"mdns-service", "hostname-claim", "mac", "oui-vendor"} <= kinds
    assert len([f for f in ipad["facts"] if f["kind"] == "mac"]) == 1  # one fact, both addresses' sightings
    assert ipad["verdicts"]["host-identity"]["entity_key"] == IPAD
    assert ipad["verdicts"]["host-identity"]["primary_label"] == "Mobile"
    assert ipad["verdicts"]["hostname"]["primary_label"] == "Gabrieles-iPad.local"


def test_the_raspberry_pi_is_a_mac_only_device_with_its_dhcp_facts(demo):
    pi = by_key(demo)[PI]
    assert (pi["ip"], pi["addresses"], pi["macs"], pi["locality"]) == (None, [], ["00:80:8f:9a:ae:bd"], "on-link")
    facts = {(f["kind"], f["value"]): f for f in pi["facts"]}
    assert facts["hostname-claim", "pi3.ntop.org"]["first_frame"] == 597
    assert ("dhcp-vendor-class", "dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835") in facts
    assert pi["verdicts"]["hostname"]["primary_label"] == "pi3.ntop.org"
    assert pi["verdicts"]["os-family"]["primary_label"] == "Linux"  # LABELS.md: Linux
    # LABELS.md: a single-board computer; an ARM dhcpcd build is no desktop, so its Linux
    # answer must not make it a Workstation; the board its DHCP vendor class names (BCM2835)
    # is a Raspberry Pi's, which the device knowledge base files under IoT Device (issue 25)
    identity = pi["verdicts"]["host-identity"]
    assert identity["primary_label"] == "IoT Device"
    reasons = " ".join(r for c in identity["candidates"] if c["label"] == "IoT Device" for r in c["reasons"])
    assert "BCM2835" in reasons and "Raspberry Pi" in reasons


def test_the_gateway_device_holds_its_own_address_and_no_internet_address(demo):
    gateway = by_key(demo)["mac-10-13-31-f1-39-76"]
    assert gateway["addresses"] == ["192.168.1.1"]
    assert gateway["verdicts"]["node-role"]["primary_label"] == "Default Gateway"
    assert gateway["verdicts"]["host-identity"]["primary_label"] == "Router"
    seen_through = [h for h in demo["hosts"] if GATEWAY_MAC in h["macs"] and h is not gateway]
    assert seen_through and all(h["key"] == h["ip"] and h["locality"] == "remote" for h in seen_through)


def test_no_remote_host_owns_a_mac_on_any_shared_capture(captures, tmp_path):
    for path in sorted(captures.glob("*.pcap*")):
        if path.stat().st_size > 400_000:
            continue
        doc = document(path, tmp_path / path.stem)
        for host in doc["hosts"]:
            if host["locality"] == "remote":
                assert host["key"] == host["ip"], (path.name, host["key"])
                assert host["verdicts"]["node-role"]["primary_label"] not in ("Default Gateway", "DHCP Server", "Switch")


# --- synthetic captures -------------------------------------------------------------------

def test_nd_binds_link_local_and_global_addresses_to_one_device(tmp_path):
    sc = Scenario()
    mac, router_mac = "00:1b:21:0a:0b:0c", "00:1b:21:00:00:01"
    v4 = sc.host("192.168.9.20", mac)
    router = sc.host("192.168.9.1", router_mac)
    sc.ping(v4, router)
    link_local, global_ = "fe80::1234:5678:9abc:def0", "2001:db8:9::20"
    # NS from the link-local address with its source link-layer option; NA for the global one
    sc.emit(d.nd_frame(mac, "33:33:ff:00:00:01", link_local, "ff02::1:ff00:1",
                       d.neighbor_solicit(link_local, "ff02::1:ff00:1", "fe80::1", mac)))
    sc.emit(d.nd_frame(mac, "33:33:00:00:00:01", global_, "ff02::1",
                       d.neighbor_advert(global_, "ff02::1", global_, mac, solicited=False)))
    sc.ping(replace(v4, ip=global_), replace(router, ip="2001:db8:9::1"))
    sc.ping(replace(v4, ip=link_local), replace(router, ip="fe80::1"))
    doc = document(sc.write_pcap(tmp_path / "nd.pcap"), tmp_path)
    device = by_key(doc)["mac-00-1b-21-0a-0b-0c"]
    assert device["addresses"] == ["192.168.9.20", global_, link_local]
    assert device["locality"] == "on-link"
    assert "ND binds" in device["locality_reason"] and "2001:db8:9::20 owns" in device["locality_reason"]


def test_an_unanswered_dhcp_discover_is_a_mac_only_device(tmp_path):
    sc = Scenario()
    mac = "b8:27:eb:00:00:42"
    ask = app.dhcp(app.BOOTREQUEST, 0x1234, mac, app.DISCOVER, hostname="sensor-7",
                   vendor_class="dhcpcd-9.4.1:Linux-6.1.21-v8+:aarch64:BCM2835")
    sc.udp(Host("0.0.0.0", mac), "255.255.255.255", 68, 67, ask)
    other = sc.host("192.168.3.2", "00:1b:21:00:00:02")
    sc.ping(other, sc.host("192.168.3.1", "00:1b:21:00:00:01"))
    doc = document(sc.write_pcap(tmp_path / "dhcp.pcap"), tmp_path)
    device = by_key(doc)["mac-b8-27-eb-00-00-42"]
    assert device["ip"] is None and device["addresses"] == []
    assert device["verdicts"]["hostname"]["primary_label"] == "sensor-7"
    assert any(f["kind"] == "oui-vendor" and "Raspberry" in f["value"] for f in device["facts"])
    assert "seen only by its MAC" in device["locality_reason"]


def test_a_gateway_that_only_answers_arp_is_the_router_and_default_gateway(captures, tmp_path):
    """monitor_large week 1: 10.0.1.1 sends nothing of its own but ARP; its MAC carries the
    servers of 10.0.2.0/24 and the Internet (with TTL 64: a generated capture)."""
    hosts = by_key(document(captures / "monitor_large_week1_baseline.pcap", tmp_path))
    gateway = hosts["mac-00-aa-bb-cc-dd-01"]
    assert gateway["addresses"] == ["10.0.1.1"]
    assert gateway["verdicts"]["host-identity"]["primary_label"] == "Router"
    assert gateway["verdicts"]["node-role"]["primary_label"] == "Default Gateway"
    vote = gateway["verdicts"]["node-role"]["candidates"][0]["votes"][0]
    # witnessed by the ARP reply it sent from its MAC (frame 1), the only frame it sent: measured
    assert (vote["signal"], vote["frames"], vote["grade"]) == ("gateway", [1], "MEASURED")
    assert "carries 4 addresses from outside 10.0.1.0/24" in vote["reason"]
    gateways = [k for k, h in hosts.items() if h["verdicts"]["node-role"]["primary_label"] == "Default Gateway"]
    assert gateways == ["mac-00-aa-bb-cc-dd-01"]


def test_a_switch_that_only_speaks_lldp_is_a_mac_only_device(tmp_path):
    sc = Scenario()
    switch = "00:00:0c:aa:bb:07"  # Cisco's OUI; no management address, never in ARP or IP
    sc.emit(d.lldp_frame(switch, system_name="sw-floor-2", capabilities=["bridge"], enabled=["bridge"]))
    other = sc.host("192.168.3.2", "00:1b:21:00:00:02")
    sc.ping(other, sc.host("192.168.3.1", "00:1b:21:00:00:01"))
    doc = document(sc.write_pcap(tmp_path / "lldp.pcap"), tmp_path)
    device = by_key(doc)["mac-00-00-0c-aa-bb-07"]
    assert device["ip"] is None and device["macs"] == [switch]
    assert device["verdicts"]["hostname"]["primary_label"] == "sw-floor-2"
    assert device["verdicts"]["host-identity"]["primary_label"] == "Switch"
    assert any(f["kind"] == "oui-vendor" and "Cisco" in f["value"] for f in device["facts"])


def test_a_router_fronting_a_thousand_remote_addresses_is_one_device_of_one_address(tmp_path):
    sc = Scenario()
    router = sc.host("192.168.7.1", "00:1b:21:00:07:01", ttl=57)
    client = sc.host("192.168.7.20", "00:1b:21:00:07:20")
    sc.dns_lookup(client, router, "example.org", ["93.184.216.34"])
    for i in range(1000):
        sc.ping(client, sc.host(f"198.18.{i // 250}.{i % 250 + 1}", via=router, ttl=242))
    hosts = by_key(document(sc.write_pcap(tmp_path / "fronted.pcap"), tmp_path))
    assert hosts["mac-00-1b-21-00-07-01"]["addresses"] == ["192.168.7.1"]
    remote = [h for h in hosts.values() if h["ip"] and h["ip"].startswith("198.18.")]
    assert len(remote) == 1000 and all(h["key"] == h["ip"] for h in remote)


# --- annotations attach to the entity -----------------------------------------------------

def test_an_old_annotation_keyed_by_an_address_moves_to_its_device(db, settings, captures):
    from tracepcap.analysis import analyze
    from tracepcap.ingest import store_file
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "dns_demo.pcap", uploaded_by="system",
                                max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    device = "mac-52-54-00-bb-00-20"
    with db.session(write=True) as s:  # as a store from before devices holds it
        assert resolve(s, cid, "192.168.1.20") == device
        now = datetime.now(UTC)
        s.add(HumanOverride(question="host-identity", capture_id=cid, entity_key="192.168.1.20",
                            label="Printer", rationale="its web page", actor="alice",
                            created_at=now, updated_at=now))
    from tracepcap.adjudicate.registry import get_registry
    adjudicate_capture(db, get_registry(), cid)
    with db.session() as s:
        moved = s.scalars(select(HumanOverride).where(HumanOverride.capture_id == cid)).all()
        assert [(o.entity_key, o.label) for o in moved] == [(device, "Printer")]
        events = s.scalars(select(AuditEvent).where(AuditEvent.action == "annotation.moved")).all()
        assert len(events) == 1 and events[0].actor == SYSTEM_ACTOR.name and events[0].entity_key == device
        assert events[0].before["entity_key"] == "192.168.1.20" and events[0].after["entity_key"] == device
        from tracepcap.adjudicate.runner import stored_verdict
        assert stored_verdict(s, Key("host-identity", cid, "192.168.1.20")).primary_label == "Printer"


# --- findings on devices ------------------------------------------------------------------

def test_a_gateway_answering_from_a_new_mac_is_a_gateway_mac_change(tmp_path):
    sc = Scenario()
    old_mac, new_mac = "00:1b:21:00:05:01", "3c:22:fb:00:05:01"
    gateway = sc.host("192.168.5.1", old_mac)
    client = sc.host("192.168.5.20", "00:1b:21:00:05:20")
    sc.dns_lookup(client, gateway, "example.org", ["93.184.216.34"])
    for n in range(1, 4):
        sc.ping(client, sc.host(f"198.51.100.{n}", via=gateway, ttl=52))
    replaced = sc.host(gateway.ip, new_mac)  # the router swapped: same address, new box
    sc.dns_lookup(client, replaced, "example.net", ["93.184.216.35"])
    for n in range(4, 7):
        sc.ping(client, sc.host(f"198.51.100.{n}", via=replaced, ttl=52))
    doc = document(sc.write_pcap(tmp_path / "swap.pcap"), tmp_path)
    found = [x for x in doc["findings"] if x["kind"] == "gateway-mac-change"]
    assert len(found) == 1 and found[0]["severity"] == "medium"
    assert found[0]["summary"].startswith(f"the default gateway 192.168.5.1 answered from 2 MACs, one after "
                                          f"another: {old_mac} (frame ")
    assert f", then {new_mac} (frame " in found[0]["summary"]
    assert found[0]["entities"][0] == by_key(doc)[found[0]["entities"][0]]["key"]
    assert "192.168.5.1" in by_key(doc)[found[0]["entities"][0]]["addresses"]
