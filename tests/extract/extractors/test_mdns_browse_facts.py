"""The DNS-SD service types a host browses for over mDNS (`mdns-query`, issue 25)."""

from __future__ import annotations

from tracepcap.extract.extractors.mdns_browse import MdnsBrowse, browsed, subtype
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

MDNS = "224.0.0.251"


def test_demo_all_rules_apple_devices_browse_for_what_they_control(run, rows, captures):
    # tshark -Y 'mdns.flags.response == 0 && ip.src == 192.168.1.53': PTR questions for
    # _homekit, _companion-link, _airplay, _raop, _googlecast (and a subtype), _spotify-connect
    found = {(r[0], r[2]) for r in rows(run(captures / "demo_all_rules.pcap", MdnsBrowse))}
    assert {s for ip, s in found if ip == "192.168.1.53"} == {
        "_homekit._tcp", "_companion-link._tcp", "_airplay._tcp", "_raop._tcp", "_googlecast._tcp",
        "_spotify-connect._tcp", "_sleep-proxy._udp",
        # frame 720: the subtype whole, a Cast sender app filtering by its receiver app's id
        "_cc32e753._sub._googlecast._tcp"}
    assert ("192.168.1.75", "_homekit._tcp") in found


def test_only_questions_for_service_types_are_browsing(run, rows):
    net = Scenario()
    phone = net.host("10.0.0.5", "00:1b:21:00:00:05")
    speaker = net.host("10.0.0.6", "00:1b:21:00:00:06")
    net.udp(phone, MDNS, 5353, 5353, app.dns_message(0, 0, [
        ("_googlecast._tcp.local", "PTR"), ("_services._dns-sd._udp.local", "PTR"),
        ("_233637DE._sub._googlecast._tcp.local", "PTR"),
        ("phone.local", "A"), ("Office._ipp._tcp.local", "PTR")]))
    # an answer (even one carrying the question) is an announcement, not browsing
    net.udp(speaker, MDNS, 5353, 5353, app.mdns_announcement(app.mdns_service_records(
        "Speaker", "_raop._tcp", "spk", 7000, ["am=Speaker"])))
    assert {(r[0], r[1], r[2]) for r in rows(run(net, MdnsBrowse))} == {
        ("10.0.0.5", "mdns-query", "_googlecast._tcp"),
        ("10.0.0.5", "mdns-query", "_233637de._sub._googlecast._tcp")}


def test_browsed_service_type():
    assert browsed("_ab12._sub._googlecast._tcp.local.") == "_googlecast._tcp"
    assert browsed("_homekit._tcp.local") == "_homekit._tcp"
    assert browsed("Office._ipp._tcp.local") == browsed("phone.local") == ""
    assert browsed("_services._dns-sd._udp.local") == ""


def test_subtype_browse():
    assert subtype("_AB12._sub._googlecast._tcp.local.") == "_ab12._sub._googlecast._tcp"
    assert subtype("_googlecast._tcp.local") == subtype("Office._ipp._tcp.local") == ""
    assert subtype("x._sub._googlecast._tcp.local") == ""  # a subtype label starts with "_"
    assert subtype("_a._b._sub._googlecast._tcp.local") == ""
