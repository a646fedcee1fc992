"""hostname: claims weighed by what backs them, names merged across spellings, and the DC-01
impersonation worked example end to end."""

from __future__ import annotations

from tracepcap.scan.context import CaptureContext, Fact
from tracepcap.scan.signals.hostname import claims, name_holder
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


def claim(value, source, frame=1, count=1):
    return Fact("hostname-claim", value, source, "REPORTED", frame, frame, count)


def votes(signal, facts, ip):
    ctx = CaptureContext("cap", facts, {}, sorted(facts))
    return [(v.label, v.weight, v.reason) for v in signal.vote(ctx.host(ip))]


def test_claims_weighed_by_backing_and_merged_to_the_most_specific_form():
    facts = {"10.0.0.42": [claim("WS-0042", "dhcp", 17, 4), claim("ws-0042.corp.example", "dns-ptr", 30),
                           claim("WS-0042", "nbns", 20)]}
    assert votes(claims, facts, "10.0.0.42") == [
        ("ws-0042.corp.example", 32, "DHCP option 12/81 from this host says WS-0042, frame 17, 4 times (+32)"),
        ("ws-0042.corp.example", 30, "NBNS registration from this host says WS-0042, frame 20 (+30)"),
        ("ws-0042.corp.example", 12, "a DNS PTR answer names this address ws-0042.corp.example, frame 30 (+12)")]


def test_a_zone_transfer_is_a_third_party_saying():
    facts = {"10.0.0.42": [claim("ws-0042.corp.example", "dns-zone-transfer", 9, 2)]}
    assert votes(claims, facts, "10.0.0.42") == [
        ("ws-0042.corp.example", 13,
         "a DNS zone transfer resolves ws-0042.corp.example to this address, frame 9, 2 times (+13)")]


def test_certificate_outweighs_self_announcement():
    facts = {"10.0.0.10": [claim("DC-01", "tls-certificate", 230), claim("fileserver", "dhcp", 5)]}
    assert votes(claims, facts, "10.0.0.10")[0] == (
        "DC-01", 45, "the TLS certificate this host served names DC-01, frame 230 (+45)")


def test_name_held_by_another_hosts_certificate_is_disputed():
    facts = {"10.0.0.10": [claim("DC-01", "tls-certificate", 230)],
             "10.0.0.66": [claim("DC-01", "dhcp", 12)],
             "10.0.0.77": [claim("www", "dhcp", 3)], "203.0.113.10": [claim("www.example.com", "tls-certificate", 9)]}
    assert votes(name_holder, facts, "10.0.0.66") == [
        ("DC-01", -20, "10.0.0.10 serves a certificate naming DC-01, frame 230: another host holds this name (-20)")]
    assert votes(name_holder, facts, "10.0.0.10") == []
    # a bare name matches any domain's first label: "www" is disputed by www.example.com's holder
    assert votes(name_holder, facts, "10.0.0.77")[0][1] == -20


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
    assert (finding["severity"], finding["entities"]) == ("high", ["10.0.0.10", "10.0.0.66"])
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
