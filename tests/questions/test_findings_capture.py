"""Findings through the whole pipeline: the ARP spoofing shape on a synthetic LAN."""

from __future__ import annotations

from tracepcap.testing import frames
from tracepcap.testing.scenario import Scenario


def test_arp_spoofing_shape_is_an_ip_mac_conflict(analyze, tmp_path):
    net = Scenario()
    gateway = net.host("10.0.0.1", "00:00:0c:9f:f0:01", ttl=255)
    victim = net.host("10.0.0.21", "00:1b:21:4a:7e:21", ttl=128)
    net.ping(victim, gateway)  # frames 1-2: the gateway answers from its own MAC
    attacker = "02:de:ad:be:ef:01"
    reply = frames.arp(2, attacker, "10.0.0.1", victim.mac, victim.ip)  # "10.0.0.1 is-at" the attacker
    net.emit(frames.ethernet(attacker, victim.mac, 0x0806, reply))  # frame 3
    _, _, doc = analyze(net.write_pcap(tmp_path / "spoof.pcap"))
    conflicts = [f for f in doc["findings"] if f["kind"] == "ip-mac-conflict"]
    # the victim's device and the claimant's, a device of its own (issue 24: spoofing keeps two devices)
    assert conflicts == [{
        "kind": "ip-mac-conflict", "severity": "high", "entities": ["mac-00-00-0c-9f-f0-01", "mac-02-de-ad-be-ef-01"],
        "summary": "10.0.0.1 was claimed by 2 MACs: 00:00:0c:9f:f0:01 (frame 2), 02:de:ad:be:ef:01 (frame 3), "
                   "the MAC of the device mac-02-de-ad-be-ef-01",
        "frames": [2, 3]}]
    rows = {h["key"]: h for h in doc["hosts"]}
    assert rows["mac-00-00-0c-9f-f0-01"]["macs"] == ["00:00:0c:9f:f0:01"]
    assert not any(attacker in f["value"] for f in rows["mac-00-00-0c-9f-f0-01"]["facts"])
    assert rows["mac-02-de-ad-be-ef-01"]["addresses"] == []
    assert ("ip-mac-binding", attacker) in [(f["kind"], f["value"]) for f in rows["mac-02-de-ad-be-ef-01"]["facts"]]


def test_names_two_signal_servers_share_by_certificate_are_one_low_line(analyze, captures):
    # signal.pcap: 34.225.240.173 and 35.169.3.40 both serve certificates for service.signal.org
    # and textsecure-service.whispersystems.org (frames 59-323): one service, two front ends
    _, _, doc = analyze(captures / "signal.pcap")
    assert [f["kind"] for f in doc["findings"]] == ["name-shared"]
    (shared,) = doc["findings"]
    assert (shared["severity"], shared["entities"]) == ("low", ["34.225.240.173", "35.169.3.40"])
    assert shared["summary"] == (
        "2 names are served by certificate from several hosts each (CDN/anycast name sharing, not a conflict): "
        "service.signal.org (2 hosts), textsecure-service.whispersystems.org (2 hosts)")
