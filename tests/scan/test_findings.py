"""Findings on facts made by hand: name conflicts by grade, IP-MAC conflicts by hop count."""

from __future__ import annotations

from support.facts import context, fact

from tracepcap.extract.kinds import CREDENTIAL, HOSTNAME_CLAIM, MAC, TTL
from tracepcap.scan.findings import ip_mac_conflict, name_conflict



def found(module, facts):
    return [(f.kind, f.severity, f.entities, f.summary, f.frames) for f in module.find(context(facts))]


def test_two_self_announced_claims_are_low():
    facts = {"10.0.0.5": [fact(HOSTNAME_CLAIM, "PRINTER-2", 4, source="nbns")],
             "10.0.0.6": [fact(HOSTNAME_CLAIM, "printer-2.corp.example", 9, source="dhcp")]}
    assert found(name_conflict, facts) == [
        ("name-conflict", "low", ("10.0.0.5", "10.0.0.6"),
         "2 hosts claim the name printer-2.corp.example: 10.0.0.5 by nbns; 10.0.0.6 by dhcp", (4, 9))]


def test_third_party_claims_and_dual_stack_are_no_conflict():
    mac = "8c:fe:57:23:37:e4"
    facts = {"192.168.1.75": [fact(MAC, mac, 5), fact(HOSTNAME_CLAIM, "Gabrieles-iPad.local", 29, source="mdns")],
             "fe80::4ba:91a:7817:e318": [fact(MAC, mac, 6),
                                         fact(HOSTNAME_CLAIM, "Gabrieles-iPad.local", 29, source="mdns")],
             "142.250.1.1": [fact(HOSTNAME_CLAIM, "google.com", 2, source="dns-a")],
             "142.250.1.2": [fact(HOSTNAME_CLAIM, "google.com", 3, source="dns-a")]}
    assert found(name_conflict, facts) == []


def test_ip_claimed_by_two_macs():
    local = {"10.2.0.10": [fact(MAC, "aa:bb:cc:dd:ee:01", 1622), fact(MAC, "aa:bb:cc:dd:ee:02", 1633),
                           fact(TTL, "64", 1622, 9)]}
    assert found(ip_mac_conflict, local) == [
        ("ip-mac-conflict", "high", ("10.2.0.10",),
         "10.2.0.10 was claimed by 2 MACs: aa:bb:cc:dd:ee:01 (frame 1622), aa:bb:cc:dd:ee:02 (frame 1633)",
         (1622, 1633))]
    routed = {"203.0.113.9": [fact(MAC, "00:00:0c:00:00:01", 10), fact(MAC, "00:00:0c:00:00:02", 500),
                              fact(TTL, "52", 10, 40)]}
    assert found(ip_mac_conflict, routed)[0][1] == "low"  # a routed address through two gateways


def test_cleartext_login_per_server_and_protocol():
    from tracepcap.scan.findings import cleartext_login
    facts = {"192.168.0.114": [fact(CREDENTIAL, "ftp user csanders, password ****** to 192.168.0.193:21", 5, source="credentials")],
             "192.168.0.115": [fact(CREDENTIAL, "ftp user bob, no password seen to 192.168.0.193:21", 9, source="credentials"),
                               fact(CREDENTIAL, "ntlm user CORP\\bob, response ****** to 192.168.0.5:445", 12, source="credentials")],
             "10.0.0.7": [fact(CREDENTIAL, "snmp community ****** to [2001:db8::1]:161", 3, source="credentials")]}
    assert found(cleartext_login, facts) == [
        ("cleartext-login", "medium", ("192.168.0.193", "192.168.0.114", "192.168.0.115"),
         "ftp login to 192.168.0.193:21 in cleartext (with its password) from 192.168.0.114, "
         "192.168.0.115 as bob, csanders", (5, 9)),
        ("cleartext-login", "medium", ("2001:db8::1", "10.0.0.7"),
         "snmp login to 2001:db8::1:161 in cleartext (with its password) from 10.0.0.7", (3,))]
    only_user = {"10.0.1.11": [fact(CREDENTIAL, "ftp user ftpuser, no password seen to 192.0.2.99:21", 38)]}
    assert found(cleartext_login, only_user)[0][1] == "low"
    directory = {"10.0.0.5": [
        fact(CREDENTIAL, "ldap user cn=admin,dc=example, password ****** to 10.0.0.1:389", 4, source="credentials"),
        fact(CREDENTIAL, "http-cookie cookies sid ****** to 10.0.0.1:80", 7, source="credentials"),
        fact(CREDENTIAL, "kerberos user alice@CORP, pre-auth ****** to 10.0.0.1:88", 9, source="credentials")]}
    assert found(cleartext_login, directory) == [
        ("cleartext-login", "medium", ("10.0.0.1", "10.0.0.5"),
         "ldap login to 10.0.0.1:389 in cleartext (with its password) from 10.0.0.5 as cn=admin,dc=example", (4,))]


def test_names_held_only_by_certificates_are_one_grouped_low_finding():
    """A CDN: every name served by certificate from several hosts is one line, not one each;
    a name also claimed by DHCP stays its own (high) conflict."""
    from tracepcap.scan.findings import name_shared
    cert = "tls-certificate"
    facts = {"198.51.100.1": [fact(HOSTNAME_CLAIM, "pypi.org", 10, source=cert),
                              fact(HOSTNAME_CLAIM, "files.example", 30, source=cert)],
             "198.51.100.2": [fact(HOSTNAME_CLAIM, "pypi.org", 20, source=cert)],
             "198.51.100.3": [fact(HOSTNAME_CLAIM, "pypi.org", 25, source=cert),
                              fact(HOSTNAME_CLAIM, "files.example", 40, source=cert)],
             "10.0.0.10": [fact(HOSTNAME_CLAIM, "DC-01", 5, source=cert)],
             "10.0.0.66": [fact(HOSTNAME_CLAIM, "DC-01", 7, source="dhcp")]}
    assert found(name_shared, facts) == [
        ("name-shared", "low", ("198.51.100.1", "198.51.100.2", "198.51.100.3"),
         "2 names are served by certificate from several hosts each (CDN/anycast name sharing, not a "
         "conflict): pypi.org (3 hosts), files.example (2 hosts)", (10, 20, 25, 30, 40))]
    assert [(k, s, e) for k, s, e, _, _ in found(name_conflict, facts)] == [
        ("name-conflict", "high", ("10.0.0.10", "10.0.0.66"))]


def test_the_grouped_summary_names_the_first_ten_and_counts_the_rest():
    from tracepcap.scan.findings import name_shared
    facts = {f"198.51.100.{k}": [fact(HOSTNAME_CLAIM, f"cdn{n:03d}.example", n + 1, source="tls-certificate")
                                 for n in range(12)] for k in (1, 2)}
    (kind, severity, entities, summary, frames), = found(name_shared, facts)
    assert summary.startswith("12 names are served by certificate from several hosts each")
    assert summary.endswith("cdn009.example (2 hosts) and 2 more") and "cdn010" not in summary
    assert frames == tuple(range(1, 13)) and entities == ("198.51.100.1", "198.51.100.2")
    assert not found(name_conflict, facts)
