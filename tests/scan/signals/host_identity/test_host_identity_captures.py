"""host-identity on whole captures: the bundled demo (known truth) and real captures."""

from __future__ import annotations


import pytest

from tracepcap.testing.demo import DEMO_TRUTH, build_demo_office


def identity(hosts, ip):
    return hosts[ip]["verdicts"]["host-identity"]


def test_demo_office_devices_match_the_truth(analyze_json, tmp_path):
    hosts = analyze_json(build_demo_office(tmp_path / "demo.pcap"))
    got = {ip: identity(hosts, ip)["primary_label"] for ip in DEMO_TRUTH}
    assert got == {ip: truth["device"] for ip, truth in DEMO_TRUTH.items()}


@pytest.mark.parametrize("ip, label", [("10.0.0.1", "Router"), ("10.0.0.2", "DNS Server")])
def test_demo_router_and_dns_server_by_walkover(analyze_json, tmp_path, ip, label):
    verdict = identity(analyze_json(build_demo_office(tmp_path / "demo.pcap")), ip)
    assert (verdict["primary_label"], verdict["contested"]) == (label, False)
    assert verdict["confidence"] >= 75 and verdict["candidates"][0]["score"] >= 60


def test_dns_demo_dns_servers_by_walkover(analyze_json, captures):
    hosts = analyze_json(captures / "dns_demo.pcap")
    # 192.168.1.1 answers frames 2..34 for .20/.21/.22; 192.168.1.53 answers frames 36..46
    for ip, first in [("192.168.1.1", 2), ("192.168.1.53", 36)]:
        verdict = identity(hosts, ip)
        assert (verdict["primary_label"], verdict["contested"]) == ("DNS Server", False)
        assert verdict["confidence"] == 75  # one signal (the answers it gave) backs it
        assert verdict["candidates"][0]["reasons"][0] == \
            f"answered DNS on udp/53 for 3 clients, first in frame {first} (+60)"


def test_no_mdns_only_device_is_a_dns_server(analyze_json, captures):
    hosts = analyze_json(captures / "demo_all_rules.pcap")
    mdns_speakers = [ip for ip, h in hosts.items()
                     if any(f["kind"] == "hostname-claim" and f["source"] == "mdns" for f in h["facts"])]
    assert mdns_speakers, "the capture has mDNS devices (e.g. Gabrieles-iPad.local)"
    for ip, host in hosts.items():
        if identity(hosts, ip)["primary_label"] == "DNS Server":
            served = {f["value"] for f in host["facts"] if f["kind"] == "served"}
            assert served & {"udp/53", "tcp/53"}, ip


def test_every_verdict_has_reasons(analyze_json, captures):
    for name in ("demo_all_rules.pcap", "monitor_large_week1_baseline.pcap"):
        for ip, host in analyze_json(captures / name).items():
            for question, verdict in host["verdicts"].items():
                assert verdict["candidates"] and all(c["reasons"] for c in verdict["candidates"]), (ip, question)
