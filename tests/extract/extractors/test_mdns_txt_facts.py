"""Device models, friendly names and Darwin versions from DNS-SD TXT records over mDNS."""

from __future__ import annotations

from tracepcap.extract.extractors.mdns_txt import MdnsTxt, service_type
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

MDNS = "224.0.0.251"


def test_demo_all_rules_imac(run, rows, captures):
    # frames 11 .. 1512: 192.168.1.77 announces "Luca’s iMac._device-info._tcp.local" with
    # TXT model=iMac11,3 and osxvers=17 (tshark -Y 'dns.txt contains "model"')
    result = run(captures / "demo_all_rules.pcap", MdnsTxt)
    assert rows(result) == {
        ("192.168.1.77", "device-model", "iMac11,3", "mdns-txt", 11, 1512, 10),
        ("192.168.1.77", "os-version", "Darwin 17", "mdns-txt", 11, 1512, 10)}


def test_printer_cast_and_homekit_keys_by_service(run, rows):
    net = Scenario()
    printer = net.host("10.0.0.30", "00:1b:21:00:00:30")
    cast = net.host("10.0.0.31", "00:1b:21:00:00:31")
    bulb = net.host("10.0.0.32", "00:1b:21:00:00:32")
    net.udp(printer, MDNS, 5353, 5353, app.mdns_announcement(app.mdns_service_records(
        "Office", "_ipp._tcp", "npi1", 631,
        ["txtvers=1", "ty=HP LaserJet 400 M401dne", "product=(HP LaserJet 400 M401dne)"])))
    net.udp(cast, MDNS, 5353, 5353, app.mdns_announcement(app.mdns_service_records(
        "Chromecast-abc", "_googlecast._tcp", "abc", 8009,
        ["id=abc", "md=Chromecast Ultra", "fn=Living Room TV", "ty=ignored-here"])))
    net.udp(bulb, MDNS, 5353, 5353, app.mdns_announcement(app.mdns_service_records(
        "Bulb", "_hap._tcp", "bulb", 80, ["md=LIFX A19", "ci=5"])))
    net.udp(bulb, MDNS, 5353, 5353, app.mdns_announcement(app.mdns_service_records(
        "Other", "_http._tcp", "bulb", 80, ["model=not-read", "md=not-read"])))
    assert rows(run(net, MdnsTxt)) == {
        ("10.0.0.30", "device-model", "HP LaserJet 400 M401dne", "mdns-txt", 1, 1, 2),
        ("10.0.0.31", "device-model", "Chromecast Ultra", "mdns-txt", 2, 2, 1),
        ("10.0.0.31", "device-name", "Living Room TV", "mdns-txt", 2, 2, 1),
        ("10.0.0.32", "device-model", "LIFX A19", "mdns-txt", 3, 3, 1)}


def test_queries_with_known_answers_are_not_the_senders_model(run, rows):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    records = app.mdns_service_records("Mac", "_device-info._tcp", "mac", 0, ["model=Mac14,2"])
    query = app.dns_message(0, 0, [("_device-info._tcp.local", "PTR")], records)
    net.udp(pc, MDNS, 5353, 5353, query)
    assert rows(run(net, MdnsTxt)) == set()


def test_service_type():
    assert service_type("Luca’s iMac._device-info._tcp.local") == "_device-info._tcp"
    assert service_type("a.b.Office._ipp._tcp.local.") == "_ipp._tcp"
    assert service_type("Lucas-iMac.local") == service_type("_tcp.local") == ""
