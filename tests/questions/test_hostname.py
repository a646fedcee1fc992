"""hostname end to end: the DC-01 impersonation worked example, and names found in real captures
(the signals alone: tests/scan/signals/hostname/)."""

from __future__ import annotations

from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


def dc01_capture(path):
    net = Scenario()
    server = net.host("10.0.0.5", "00:25:90:3a:11:05")
    dc = net.host("10.0.0.10", "00:25:90:3a:11:10")
    client = net.host("10.0.0.30", "00:1b:21:4a:7e:30", ttl=128)
    net.tcp_session(client, dc, 50000, 443, client=[app.tls_client_hello("dc-01")],
                    server=[app.tls_server_flight([app.self_signed_cert("DC-01")])])
    net.dhcp_exchange("00:1b:21:66:66:66", server, "10.0.0.66", hostname="DC-01")
    impostor = net.host("10.0.0.66", "00:1b:21:66:66:66", ttl=128)
    net.udp(impostor, server, 5000, 5000, b"hello")
    return net.write_pcap(path)


def test_dc01_impersonation_end_to_end(analyze, tmp_path):
    _, hosts, doc = analyze(dc01_capture(tmp_path / "dc01.pcap"))
    real = hosts["10.0.0.10"]["verdicts"]["hostname"]
    assert (real["primary_label"], real["contested"]) == ("DC-01", False)
    fake = hosts["10.0.0.66"]["verdicts"]["hostname"]
    assert fake["contested"] and fake["primary_label"] is None
    assert fake["candidates"][0]["label"] == "DC-01"
    assert any(r.startswith("10.0.0.10 serves a certificate naming DC-01, frame ") for r in fake["candidates"][0]["reasons"])
    conflicts = [f for f in doc["findings"] if f["kind"] == "name-conflict"]
    assert len(conflicts) == 1
    finding = conflicts[0]
    assert (finding["severity"], finding["entities"]) == ("high", ["mac-00-25-90-3a-11-10", "mac-00-1b-21-66-66-66"])
    assert finding["summary"] == "2 hosts claim the name DC-01: 10.0.0.10 by tls-certificate; 10.0.0.66 by dhcp"
    assert finding["frames"] and all(isinstance(f, int) for f in finding["frames"])


def test_hostnames_found_in_real_captures(analyze, captures):
    # demo_all_rules.pcap: mDNS answers name 192.168.1.75 Gabrieles-iPad.local (frame 29) and
    # 192.168.1.77 Lucas-iMac.local; 192.168.0.1 sends DHCP hostname TL-SG116E (frame 1)
    _, hosts, _ = analyze(captures / "demo_all_rules.pcap")
    name = lambda ip: hosts[ip]["verdicts"]["hostname"]["primary_label"]  # noqa: E731
    assert name("192.168.1.75") == "Gabrieles-iPad.local"
    assert name("192.168.1.77") == "Lucas-iMac.local"
    assert name("192.168.0.1") == "TL-SG116E"
