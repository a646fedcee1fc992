"""hostname signals on facts made by hand: claims weighed by what backs them and merged across
spellings, and a name another host holds by certificate disputed."""

from __future__ import annotations

from support.facts import SAID, context, fact, votes

from tracepcap.extract.kinds import HOSTNAME_CLAIM
from tracepcap.scan.signals.hostname import claims, name_holder


def claim(value, source, frame=1, count=1):
    return fact(HOSTNAME_CLAIM, value, frame, count, source)


def test_claims_weighed_by_backing_and_merged_to_the_most_specific_form():
    facts = {"10.0.0.42": [claim("WS-0042", "dhcp", 17, 4), claim("ws-0042.corp.example", "dns-ptr", 30),
                           claim("WS-0042", "nbns", 20)]}
    assert votes(claims, context(facts).host("10.0.0.42"), SAID) == [
        ("ws-0042.corp.example", 32, "DHCP option 12/81 from this host says WS-0042, frame 17, 4 times (+32)"),
        ("ws-0042.corp.example", 30, "NBNS registration from this host says WS-0042, frame 20 (+30)"),
        ("ws-0042.corp.example", 12, "a DNS PTR answer names this address ws-0042.corp.example, frame 30 (+12)")]


def test_a_zone_transfer_is_a_third_party_saying():
    facts = {"10.0.0.42": [claim("ws-0042.corp.example", "dns-zone-transfer", 9, 2)]}
    assert votes(claims, context(facts).host("10.0.0.42"), SAID) == [
        ("ws-0042.corp.example", 13,
         "a DNS zone transfer resolves ws-0042.corp.example to this address, frame 9, 2 times (+13)")]


def test_certificate_outweighs_self_announcement():
    facts = {"10.0.0.10": [claim("DC-01", "tls-certificate", 230), claim("fileserver", "dhcp", 5)]}
    assert votes(claims, context(facts).host("10.0.0.10"), SAID)[0] == (
        "DC-01", 45, "the TLS certificate this host served names DC-01, frame 230 (+45)")


def test_name_held_by_another_hosts_certificate_is_disputed():
    facts = {"10.0.0.10": [claim("DC-01", "tls-certificate", 230)],
             "10.0.0.66": [claim("DC-01", "dhcp", 12)],
             "10.0.0.77": [claim("www", "dhcp", 3)], "203.0.113.10": [claim("www.example.com", "tls-certificate", 9)]}
    assert votes(name_holder, context(facts).host("10.0.0.66"), SAID) == [
        ("DC-01", -20, "10.0.0.10 serves a certificate naming DC-01, frame 230: another host holds this name (-20)")]
    assert votes(name_holder, context(facts).host("10.0.0.10"), SAID) == []
    # a bare name matches any domain's first label: "www" is disputed by www.example.com's holder
    assert votes(name_holder, context(facts).host("10.0.0.77"), SAID)[0][1] == -20
