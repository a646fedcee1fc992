"""dns-spoofing: answers in a resolver's name from another MAC, and two answers to one
query that disagree — on the shared demo and on generated captures of both shapes."""

from __future__ import annotations

import json

from support.cli import run_cli, sqlite_store

from tracepcap.present.cli import ExitCode
from tracepcap.testing import names
from tracepcap.testing.scenario import Scenario


def findings(path, tmp_path):
    code, out, err = run_cli("analyze", path, "--json", db=sqlite_store(tmp_path), data_dir=tmp_path)
    assert code == ExitCode.OK, err
    return [f for f in json.loads(out)["findings"] if f["kind"] == "dns-spoofing"]


def test_forged_answers_of_the_demo(captures, tmp_path):
    # frames 390 and 708: A answers "from" the LAN resolver 192.168.1.1, sent by another MAC
    found = findings(captures / "demo_all_rules.pcap", tmp_path)
    assert len(found) == 1
    spoof = found[0]
    assert spoof["severity"] == "high"
    assert spoof["frames"] == [390, 708]
    assert spoof["entities"][0] == "mac-10-13-31-f1-39-76"  # the resolver's device, then the forger's
    assert "in the name of 192.168.1.1" in spoof["summary"]
    assert "00:80:8f:9a:ae:bd" in spoof["summary"] and "10:13:31:f1:39:76" in spoof["summary"]


def test_spoofer_and_race_on_a_generated_lan(tmp_path):
    net = Scenario()
    client = net.host("10.0.0.5", "00:1b:21:00:00:05")
    resolver = net.host("10.0.0.53", "00:1b:21:00:00:53")
    spoofer = net.host("10.0.0.66", "02:00:00:00:00:66")
    forged_as_resolver = net.host("10.0.0.53", "02:00:00:00:00:66")
    net.arp_exchange(client, resolver)
    net.arp_exchange(client, spoofer)
    for ident, name, address in ((1, "intranet.corp", "10.0.0.80"), (2, "mail.corp", "10.0.0.25")):
        net.udp(client, resolver, 40000 + ident, 53, names.dns_query(ident, name))
        net.udp(resolver, client, 53, 40000 + ident,
                names.dns_response(ident, name, [(name, "A", address, 300)]))
    # the race: the spoofer answers first with its own address, the resolver a moment later
    net.udp(client, resolver, 40003, 53, names.dns_query(3, "bank.example"))
    net.udp(forged_as_resolver, client, 53, 40003,
            names.dns_response(3, "bank.example", [("bank.example", "A", "10.0.0.66", 0)]))
    net.udp(resolver, client, 53, 40003,
            names.dns_response(3, "bank.example", [("bank.example", "A", "198.51.100.7", 300)]))
    found = findings(net.write_pcap(tmp_path / "spoof.pcap"), tmp_path)
    assert {f["severity"] for f in found} == {"high"}
    by_mac = [f for f in found if "from 02:00:00:00:00:66 (the MAC of 10.0.0.66)" in f["summary"]]
    assert len(by_mac) == 1
    resolver_key, forger = by_mac[0]["entities"]
    assert resolver_key == "mac-00-1b-21-00-00-53"
    assert forger in ("10.0.0.66", "mac-02-00-00-00-00-66")  # the forger, by address or device
    race = [f for f in found if "disagree" in f["summary"]]
    assert len(race) == 1
    assert "10.0.0.66 from 02:00:00:00:00:66" in race[0]["summary"]
    assert "198.51.100.7 from 00:1b:21:00:00:53" in race[0]["summary"]


def test_a_remote_resolver_through_its_router_is_no_spoofing(tmp_path):
    net = Scenario()
    client = net.host("10.0.0.5", "00:1b:21:00:00:05")
    router = net.host("10.0.0.1", "00:1b:21:00:00:01")
    remote = net.host("9.9.9.9", via=router)
    net.arp_exchange(client, router)
    for ident in range(1, 4):
        name = f"site{ident}.example"
        net.udp(client, remote, 41000 + ident, 53, names.dns_query(ident, name))
        net.udp(remote, client, 53, 41000 + ident,
                names.dns_response(ident, name, [(name, "A", f"198.51.100.{ident}", 60)]))
    # a retransmitted query answered twice alike is no race either
    net.udp(remote, client, 53, 41003, names.dns_response(3, "site3.example",
                                                          [("site3.example", "A", "198.51.100.3", 59)]))
    assert findings(net.write_pcap(tmp_path / "clean.pcap"), tmp_path) == []
