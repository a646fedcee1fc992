"""Issue 24: the gateway and who owns each MAC, on synthetic LANs of the shapes real captures
show (mechanisms 1-3): a gateway that never sends an IP packet of its own, a router that
forwards without decrementing the TTL, and a capture holding router-forwarded copies of a
client's frames."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tracepcap.present.cli import ExitCode, main
from tracepcap.scan.ownership import Sender, owner
from tracepcap.testing import dhcp as dhcp_msg, frames
from tracepcap.testing.scenario import WINDOWS_SYN, Scenario

GW_MAC = "00:05:74:00:00:01"
DHCP_MAC = "00:50:56:00:00:fe"
CLIENT_MAC = "b8:97:fa:00:00:7d"
DC_MAC = "00:12:3f:00:00:03"
GATEWAY_ROLES = ("Router", "Firewall", "Network device")


def document(path, tmp_path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}"])
    assert code == ExitCode.OK
    return json.loads(out.getvalue())


def label(host: dict, question: str) -> str | None:
    return host["verdicts"][question]["primary_label"]


def row_of(doc: dict, address: str) -> dict:
    return next(h for h in doc["hosts"] if address in (h.get("addresses") or [h["ip"]]))


def lan(gateway_ip: str, sc: Scenario):
    """A client, a domain controller and the gateway's MAC (a Host the clients address)."""
    client = sc.host(gateway_ip.rsplit(".", 1)[0] + ".125", CLIENT_MAC, ttl=128, syn=WINDOWS_SYN)
    dc = sc.host(gateway_ip.rsplit(".", 1)[0] + ".3", DC_MAC, ttl=128, syn=WINDOWS_SYN)
    gateway = sc.host(gateway_ip, GW_MAC, ttl=128)
    return client, dc, gateway


# --- mechanisms 1 and 3: a silent gateway named by DHCP option 3, forwarding at TTL 128 -------

@pytest.fixture(scope="module")
def silent(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("silent")
    sc = Scenario()
    client, dc, gateway = lan("172.16.9.1", sc)
    server = sc.host("172.16.9.254", DHCP_MAC, ttl=16)
    sc.dhcp_exchange(client, server, router=gateway.ip, dns_servers=[dc.ip])
    sc.dns_lookup(client, dc, "example.org", ["93.184.216.34"])
    for i in range(6):  # the router forwards without decrementing: every web server at TTL 128
        web = sc.host(f"203.0.113.{10 + i}", via=gateway, ttl=128)
        sc.tcp_session(client, web, 49200 + i, 443, client=[b"hello"], server=[b"world" * (i + 1)])
    for _ in range(3):  # NetBIOS name queries the client sends to the gateway's address
        sc.udp(client, gateway, 137, 137, b"\x00" * 50)
    return document(sc.write_pcap(tmp / "silent.pcap"), tmp)


def test_a_silent_gateway_is_the_device_its_clients_unicast_to(silent):
    gateway = row_of(silent, "172.16.9.1")
    assert gateway["key"] == "mac-" + GW_MAC.replace(":", "-")
    assert label(gateway, "host-identity") in GATEWAY_ROLES
    assert label(gateway, "node-role") == "Default Gateway"
    assert "option 3" in gateway["locality_reason"] and "unicast" in gateway["locality_reason"]


def test_no_remote_address_owns_the_routers_mac_or_is_a_gateway(silent):
    remote = [h for h in silent["hosts"] if h["ip"] and h["ip"].startswith("203.0.113.")]
    assert len(remote) == 6
    for host in remote:
        assert host["key"] == host["ip"] and host["locality"] == "remote", host
        assert label(host, "node-role") != "Default Gateway", host["ip"]
        assert label(host, "host-identity") not in GATEWAY_ROLES, host["ip"]
    others = [h for h in silent["hosts"] if label(h, "node-role") == "Default Gateway"]
    assert [h["ip"] for h in others] == ["172.16.9.1"]


def test_several_public_addresses_at_an_unspent_ttl_own_no_mac():
    senders = [Sender(f"203.0.113.{i}", 100 - i, 0, False, False) for i in range(5)]
    assert owner(GW_MAC, senders) is None
    # a lone public address zero hops away is a host on a public segment
    assert owner(GW_MAC, senders[:1]).ip == "203.0.113.0"


# --- mechanism 2: router-forwarded copies of a client's frames --------------------------------

@pytest.fixture(scope="module")
def forwarded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("forwarded")
    sc = Scenario()
    client, dc, gateway = lan("10.100.7.1", sc)
    copy = sc.host(client.ip, GW_MAC, ttl=127)  # the router's copy of the client's frames
    for i in range(4):
        sc.dns_lookup(client, dc, f"host{i}.example.org", ["198.51.100.7"])
        sc.udp(copy, dc, 53100 + i, 53, b"\x12\x34" + bytes(30))  # one hop on, from the router
    for i in range(5):
        web = sc.host(f"198.51.100.{20 + i}", via=gateway, ttl=64 - 10 - i)
        sc.tcp_session(client, web, 49300 + i, 80, client=[b"GET / HTTP/1.1\r\n\r\n"], server=[b"x"])
    ask = dhcp_msg.dhcp(dhcp_msg.BOOTREQUEST, 9, CLIENT_MAC, dhcp_msg.REQUEST, ciaddr=client.ip)
    sc.udp(client, gateway, 68, 67, ask)  # a renewal unicast to the gateway
    return document(sc.write_pcap(tmp / "forwarded.pcap"), tmp)


def test_a_forwarded_copy_never_binds_the_routers_mac_to_the_client(forwarded):
    client = row_of(forwarded, "10.100.7.125")
    assert client["key"] == "mac-" + CLIENT_MAC.replace(":", "-")
    assert "owns " + GW_MAC not in client["locality_reason"]
    assert label(client, "node-role") != "Default Gateway"
    assert label(client, "host-identity") not in GATEWAY_ROLES


def test_the_router_behind_the_copies_is_the_gateway(forwarded):
    gateway = row_of(forwarded, "10.100.7.1")
    assert gateway["key"] == "mac-" + GW_MAC.replace(":", "-")
    assert label(gateway, "node-role") == "Default Gateway"
    assert label(gateway, "host-identity") in GATEWAY_ROLES
    assert [h["key"] for h in forwarded["hosts"] if label(h, "node-role") == "Default Gateway"] \
        == [gateway["key"]]


def test_a_copy_one_hop_farther_is_forwarded_and_owns_nothing():
    senders = [Sender("10.100.7.125", 4, 0, True, False, forwarded=True)]
    senders += [Sender(f"198.51.100.{i}", 5, 10, False, False) for i in range(3)]
    assert owner(GW_MAC, senders) is None


# --- mechanism 6: every MAC that sends a frame is a device -----------------------------------

SPEAKER_MAC = "00:0e:58:00:00:01"  # sends only spanning tree
SUPPLICANT_MAC = "00:1b:21:00:00:02"  # sends only EAPOL
ARP_ONLY_MAC = "00:aa:bb:00:00:51"  # answers ARP, never sends IP


@pytest.fixture(scope="module")
def link_only(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("link_only")
    sc = Scenario()
    pc = sc.host("10.0.3.20", "00:1b:21:00:00:20")
    server = sc.host("10.0.3.5", "00:1b:21:00:00:05")
    sc.dns_lookup(pc, server, "example.org", ["10.0.3.5"])
    stp = bytes((0x42, 0x42, 0x03)) + bytes(35)  # LLC (STP's SAPs) and a BPDU
    sc.emit(frames.ethernet(SPEAKER_MAC, "01:80:c2:00:00:00", len(stp), stp))
    sc.emit(frames.ethernet(SUPPLICANT_MAC, "01:80:c2:00:00:03", 0x888E, bytes((2, 1, 0, 0)), pad=True))
    sc.arp_exchange(pc, sc.host("10.0.3.6", ARP_ONLY_MAC))
    return document(sc.write_pcap(tmp / "link_only.pcap"), tmp)


@pytest.mark.parametrize("mac", [SPEAKER_MAC, SUPPLICANT_MAC, ARP_ONLY_MAC])
def test_a_mac_that_sends_only_link_frames_is_a_device(link_only, mac):
    keys = [h["key"] for h in link_only["hosts"]]
    assert "mac-" + mac.replace(":", "-") in keys
    row = next(h for h in link_only["hosts"] if h["key"] == "mac-" + mac.replace(":", "-"))
    assert row["locality"] == "on-link"
    if mac == ARP_ONLY_MAC:  # the address ARP gives it is named in its reason
        assert "which 10.0.3.6 owns (ARP binds 10.0.3.6" in row["locality_reason"]


def test_an_ip_sender_gets_no_second_device_for_its_arp(link_only):
    pcs = [h for h in link_only["hosts"] if "00:1b:21:00:00:20" in h["key"].replace("-", ":")]
    assert len(pcs) == 1 and pcs[0]["addresses"] == ["10.0.3.20"]


# --- mechanism 5: one device, two addresses ----------------------------------------------------

FILER_MAC = "00:11:32:00:00:05"


@pytest.fixture(scope="module")
def alias(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("alias")
    sc = Scenario()
    pc = sc.host("10.9.0.20", "00:1b:21:00:00:20", ttl=128, syn=WINDOWS_SYN)
    first, second = sc.host("10.9.0.5", FILER_MAC), sc.host("10.9.0.6", FILER_MAC)
    for address in (first, second):  # the server answers ARP for both, and serves SMB on both
        sc.arp_exchange(pc, address)
        sc.tcp_session(pc, address, 49500 + int(address.ip[-1]), 445, client=[b"\x00" * 60],
                       server=[b"\x00" * 80])
    return document(sc.write_pcap(tmp / "alias.pcap"), tmp)


def test_a_mac_answering_arp_for_two_addresses_is_one_device(alias):
    rows = [h for h in alias["hosts"] if {"10.9.0.5", "10.9.0.6"} & set(h["addresses"])]
    assert [h["key"] for h in rows] == ["mac-" + FILER_MAC.replace(":", "-")]
    assert rows[0]["addresses"] == ["10.9.0.5", "10.9.0.6"]
    assert label(rows[0], "host-identity") not in GATEWAY_ROLES
    assert label(rows[0], "node-role") != "Default Gateway"


def test_a_device_readdressed_during_setup_is_no_router(tmp_path):
    """A plug that first speaks from its setup address, then from its lease: two site
    subnets at an unspent TTL on one MAC, and no forwarding evidence."""
    sc = Scenario()
    plug_mac = "74:da:38:00:00:7b"
    phone = sc.host("192.168.20.10", "02:00:00:00:20:10")
    setup = sc.host("192.168.20.3", plug_mac)
    sc.tcp_session(phone, setup, 50000, 80, client=[b"GET / HTTP/1.1\r\n\r\n"], server=[b"HTTP/1.1 200 OK\r\n\r\n"])
    router = sc.host("10.10.10.1", "00:b5:6d:00:00:01")
    plug = sc.host("10.10.10.232", plug_mac)
    for i in range(3):
        cloud = sc.host(f"74.125.136.{99 + i}", via=router, ttl=43)
        sc.tcp_session(plug, cloud, 40000 + i, 443, client=[b"\x16\x03\x01"], server=[b"\x16\x03\x03"])
    doc = document(sc.write_pcap(tmp_path / "plug.pcap"), tmp_path)
    row = next(h for h in doc["hosts"] if h["key"] == "mac-" + plug_mac.replace(":", "-"))
    assert label(row, "host-identity") not in GATEWAY_ROLES
    assert label(row, "node-role") != "Default Gateway"
    assert {h["key"] for h in doc["hosts"] if label(h, "node-role") == "Default Gateway"} <= \
        {"mac-00-b5-6d-00-00-01"}
    assert "mac-00-b5-6d-00-00-01" in [h["key"] for h in doc["hosts"]]  # the router's MAC: a device


# --- mechanism 7: loopback is the capturing machine, not remote --------------------------------

def test_loopback_addresses_are_not_remote(tmp_path):
    sc = Scenario()
    app_ = sc.host("127.0.0.1", "00:00:00:00:00:00")  # a capture on Linux's lo: zero MACs
    resolver = sc.host("127.0.0.53", "00:00:00:00:00:00")
    sc.dns_lookup(app_, resolver, "example.org", ["93.184.216.34"])
    doc = document(sc.write_pcap(tmp_path / "lo.pcap"), tmp_path)
    rows = [h for h in doc["hosts"] if {"127.0.0.1", "127.0.0.53"} & set(h["addresses"])]
    assert rows and all(h["locality"] != "remote" for h in rows)
    assert all(label(h, "node-role") != "Default Gateway" for h in rows)


# --- mechanism 4: spoofing keeps two devices ---------------------------------------------------

@pytest.fixture(scope="module")
def impersonated(tmp_path_factory):
    """Three servers, then three VMs claiming their addresses (gratuitous ARP) and serving as them."""
    tmp = tmp_path_factory.mktemp("impersonated")
    sc = Scenario()
    pc = sc.host("10.9.0.20", "00:1b:21:00:00:20")
    servers = [sc.host(f"10.9.0.{10 + i}", f"00:1b:21:00:01:{i:02x}") for i in range(3)]
    for server in servers:
        sc.arp_exchange(pc, server)
        sc.tcp_session(pc, server, 50000 + int(server.ip[-1]), 445, client=[b"\0" * 40], server=[b"\0" * 60])
    sc.advance(60)
    for i, server in enumerate(servers):
        vm = sc.host(server.ip, f"00:0c:29:00:00:{i:02x}")  # VMware guests: one vendor
        claim = frames.arp(frames.ARP_REPLY, vm.mac, vm.ip, frames.BROADCAST_MAC, vm.ip)
        sc.emit(frames.ethernet(vm.mac, frames.BROADCAST_MAC, frames.ETH_ARP, claim, pad=True))
        sc.tcp_session(pc, vm, 51000 + i, 445, client=[b"\0" * 40], server=[b"\0" * 60])
    return document(sc.write_pcap(tmp / "impersonated.pcap"), tmp)


@pytest.mark.parametrize("i", range(3))
def test_each_impersonator_is_its_own_device_linked_to_its_victim(impersonated, i):
    victim, claimant = f"mac-00-1b-21-00-01-{i:02x}", f"mac-00-0c-29-00-00-{i:02x}"
    rows = {h["key"]: h for h in impersonated["hosts"]}
    assert claimant in rows and rows[claimant]["addresses"] == []
    assert rows[victim]["addresses"] == [f"10.9.0.{10 + i}"]
    assert "bound to it first" in rows[victim]["locality_reason"]
    assert f"owns 00:0c:29:00:00:{i:02x}" not in rows[victim]["locality_reason"]
    found = [f for f in impersonated["findings"] if f["kind"] == "ip-mac-conflict" and victim in f["entities"]]
    assert len(found) == 1 and claimant in found[0]["entities"]


def facts_naming(row: dict, mac: str) -> list[tuple[str, str]]:
    """The row's facts that name `mac` (its frames, bindings, TTLs, answers at that MAC)."""
    return [(f["kind"], f["value"]) for f in row["facts"] if mac in f["value"].lower()]


def vendors(row: dict) -> set[str]:
    return {f["value"] for f in row["facts"] if f["kind"] == "oui-vendor"}


@pytest.mark.parametrize("i", range(3))
def test_no_fact_of_an_impersonator_reaches_its_victim(impersonated, i):
    victim, claimant = f"mac-00-1b-21-00-01-{i:02x}", f"mac-00-0c-29-00-00-{i:02x}"
    vm_mac = f"00:0c:29:00:00:{i:02x}"
    rows = {h["key"]: h for h in impersonated["hosts"]}
    assert rows[victim]["macs"] == [f"00:1b:21:00:01:{i:02x}"]
    assert facts_naming(rows[victim], vm_mac) == []
    assert not any("VMware" in v for v in vendors(rows[victim]))
    # the claimant's device holds what its MAC said as the victim's address
    kinds = {k for k, _ in facts_naming(rows[claimant], vm_mac)}
    assert {"mac", "ip-mac-binding"} <= kinds
    assert any("VMware" in v for v in vendors(rows[claimant]))
    assert rows[claimant]["macs"] == [vm_mac]


CLIENT_VICTIM_MAC, SPOOFER_MAC = "00:1b:21:00:00:31", "00:0c:29:aa:bb:cc"


@pytest.fixture(scope="module")
def client_spoofed(tmp_path_factory):
    """An ARP spoof of one client: a VM with an address of its own claims the client's address
    (gratuitous ARP) and sends as it, beside the client's own traffic."""
    tmp = tmp_path_factory.mktemp("client-spoof")
    sc = Scenario()
    gateway = sc.host("10.7.0.1", GW_MAC)
    client = sc.host("10.7.0.31", CLIENT_VICTIM_MAC, ttl=128, syn=WINDOWS_SYN)
    attacker = sc.host("10.7.0.66", SPOOFER_MAC)
    sc.arp_exchange(client, gateway)
    sc.arp_exchange(attacker, gateway)
    sc.dns_lookup(client, gateway, "example.org", ["93.184.216.34"])
    sc.dns_lookup(attacker, gateway, "example.com", ["93.184.216.35"])
    sc.advance(30)
    claim = frames.arp(frames.ARP_REPLY, SPOOFER_MAC, client.ip, gateway.mac, gateway.ip)
    sc.emit(frames.ethernet(SPOOFER_MAC, gateway.mac, frames.ETH_ARP, claim, pad=True))
    posing = sc.host(client.ip, SPOOFER_MAC)
    sc.dns_lookup(posing, gateway, "example.net", ["93.184.216.36"])
    return document(sc.write_pcap(tmp / "client-spoof.pcap"), tmp)


def test_an_arp_spoofed_client_keeps_its_device_and_facts(client_spoofed):
    rows = {h["key"]: h for h in client_spoofed["hosts"]}
    victim, claimant = "mac-00-1b-21-00-00-31", "mac-00-0c-29-aa-bb-cc"
    assert rows[victim]["addresses"] == ["10.7.0.31"] and rows[victim]["macs"] == [CLIENT_VICTIM_MAC]
    assert rows[claimant]["addresses"] == ["10.7.0.66"]
    assert facts_naming(rows[victim], SPOOFER_MAC) == []
    assert not any("VMware" in v for v in vendors(rows[victim]))
    assert ("ip-mac-binding", SPOOFER_MAC) in facts_naming(rows[claimant], SPOOFER_MAC)
    found = [f for f in client_spoofed["findings"] if f["kind"] == "ip-mac-conflict" and victim in f["entities"]]
    assert len(found) == 1 and found[0]["entities"] == [victim, claimant]
    assert label(rows[victim], "os-family") == "Windows"  # the claimant's TTL 64 frames left no vote here


def test_the_demo_spoofer_is_its_own_row_and_the_gateway_holds_none_of_its_facts(captures, tmp_path):
    # frames 390 and 708: forged DNS answers sent as 192.168.1.1 from 00:80:8f:9a:ae:bd
    doc = document(captures / "demo_all_rules.pcap", tmp_path)
    rows = {h["key"]: h for h in doc["hosts"]}
    gateway, spoofer = rows["mac-10-13-31-f1-39-76"], rows["mac-00-80-8f-9a-ae-bd"]
    assert gateway["macs"] == ["10:13:31:f1:39:76"]
    assert facts_naming(gateway, "00:80:8f:9a:ae:bd") == []
    assert "C. Itoh Electronics, Inc." not in vendors(gateway)
    assert label(gateway, "node-role") == "Default Gateway"
    assert {("mac", "00:80:8f:9a:ae:bd"), ("dns-answer-mac", "00:80:8f:9a:ae:bd")} <= set(facts_naming(
        spoofer, "00:80:8f:9a:ae:bd"))
    assert "C. Itoh Electronics, Inc." in vendors(spoofer)
    found = [f for f in doc["findings"] if f["kind"] == "ip-mac-conflict" and f["entities"][0] == gateway["key"]]
    assert len(found) == 1 and found[0]["entities"] == [gateway["key"], spoofer["key"]]
    assert {390, 708} <= set(found[0]["frames"])


def test_a_second_scan_moves_the_claims_again_and_keeps_them_off_the_victim(db, settings, tmp_path):
    """Scan moves a claimant's facts off the victim's address onto the claim's holder; a
    second scan of the same stored facts (knowledge updated, say) decides the same again."""
    from sqlalchemy import select

    from tracepcap import analysis
    from tracepcap.adjudicate.registry import get_registry
    from tracepcap.adjudicate.runner import machine_answer
    from tracepcap.ingest import store_file
    from tracepcap.scan.context import CaptureContext
    from tracepcap.scan.run import scan_capture
    from tracepcap.store.models import EntityMember, ObservationRow

    sc = Scenario()
    server = sc.host("10.9.0.10", "00:1b:21:00:01:00")
    pc = sc.host("10.9.0.20", "00:1b:21:00:00:20")
    sc.arp_exchange(pc, server)
    sc.tcp_session(pc, server, 50000, 445, client=[b"\0" * 40], server=[b"\0" * 60])
    vm = sc.host(server.ip, "00:0c:29:00:00:00")
    sc.emit(frames.ethernet(vm.mac, frames.BROADCAST_MAC, frames.ETH_ARP,
                            frames.arp(frames.ARP_REPLY, vm.mac, vm.ip, frames.BROADCAST_MAC, vm.ip), pad=True))
    sc.tcp_session(pc, vm, 51000, 445, client=[b"\0" * 40], server=[b"\0" * 60])
    path = sc.write_pcap(tmp_path / "claim.pcap")
    with db.session(write=True) as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="test", max_bytes=settings.max_capture_bytes)
        cid = capture.id
    analysis.analyze(db, settings, cid)

    def stored():
        with db.session() as s:
            rows = sorted(s.execute(select(ObservationRow.entity, ObservationRow.kind, ObservationRow.value,
                                           ObservationRow.count).where(ObservationRow.capture_id == cid)).all())
            members = dict(s.execute(select(EntityMember.member, EntityMember.entity_key)
                                     .where(EntityMember.capture_id == cid)).all())
        return rows, members

    rows, members = stored()
    holder = "10.9.0.10@00:0c:29:00:00:00"
    assert members[holder] == "mac-00-0c-29-00-00-00" and members["10.9.0.10"] == "mac-00-1b-21-00-01-00"
    assert not [r for r in rows if r[0] == "10.9.0.10" and "00:0c:29" in r[2]]
    assert {("mac", "00:0c:29:00:00:00"), ("ip-mac-binding", "00:0c:29:00:00:00")} <= \
        {(r[1], r[2]) for r in rows if r[0] == holder}
    registry = get_registry()
    with db.session(write=True) as s:
        scan_capture(s, cid, registry.signals(), CaptureContext.load(s, cid), answer=machine_answer(registry))
    assert stored() == (rows, members)
