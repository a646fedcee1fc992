"""`mdns-service` facts (DNS extractor) and SSDP facts: what devices announce about themselves."""

from __future__ import annotations

from tracepcap.extract.extractors.dns import Dns
from tracepcap.extract.extractors.ssdp import Ssdp
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

NOTIFY = (b"NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=1800\r\n"
          b"NT: urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\nNTS: ssdp:alive\r\n"
          b"USN: uuid:2fac1234-31f8-11b4-a222-08002b34c003::urn:schemas-upnp-org:device:"
          b"InternetGatewayDevice:1\r\nSERVER: Linux/5.4 UPnP/1.0 MiniUPnPd/2.2\r\n\r\n")
SEARCH = (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
          b"MX: 1\r\nST: ssdp:all\r\n\r\n")


def test_mdns_service_announcements(run, rows):
    net = Scenario()
    printer = net.host("10.0.0.40", "3c:d9:2b:70:15:40")
    records = app.mdns_service_records("Office LaserJet", "_ipp._tcp", "HP-LaserJet", 631)
    net.udp(printer, "224.0.0.251", 5353, 5353, app.mdns_announcement(records))  # frame 1
    assert rows(run(net, Dns), "mdns-service") == {
        ("10.0.0.40", "mdns-service", "_ipp._tcp.local", "dns", 1, 1, 1),
        ("10.0.0.40", "mdns-service", "Office LaserJet._ipp._tcp.local", "dns", 1, 1, 1)}


def test_mdns_queries_announce_nothing(run, rows):
    net = Scenario()
    phone = net.host("10.0.0.32", "f0:18:98:61:af:32")
    net.udp(phone, "224.0.0.251", 5353, 5353, app.mdns_query("_ipp._tcp.local"))
    assert rows(run(net, Dns), "mdns-service") == set()


def test_ssdp_notify_and_search(run, rows):
    net = Scenario()
    gateway = net.host("192.168.1.1", "00:00:0c:12:34:56")
    laptop = net.host("192.168.1.77", "a4:83:e7:2b:9c:30")
    net.udp(laptop, "239.255.255.250", 50000, 1900, SEARCH)  # frame 1: a search says nothing
    net.udp(gateway, "239.255.255.250", 1900, 1900, NOTIFY)  # frame 2
    assert rows(run(net, Ssdp)) == {
        ("192.168.1.1", "ssdp-nt", "urn:schemas-upnp-org:device:InternetGatewayDevice:1", "ssdp", 2, 2, 1),
        ("192.168.1.1", "ssdp-usn", "uuid:2fac1234-31f8-11b4-a222-08002b34c003::urn:schemas-upnp-org:"
         "device:InternetGatewayDevice:1", "ssdp", 2, 2, 1),
        ("192.168.1.1", "ssdp-server", "Linux/5.4 UPnP/1.0 MiniUPnPd/2.2", "ssdp", 2, 2, 1)}


def test_demo_all_rules_mdns_services(run, rows, captures):
    # Checked in Wireshark: frame 4, 192.168.1.69 (a Sonos speaker) answers with PTR
    # _spotify-connect._tcp.local -> sonos7828CA05FACC._spotify-connect._tcp.local; its SSDP
    # traffic is M-SEARCH only (frames 2, 28, ... from 192.168.1.53/.75/.77)
    result = run(captures / "demo_all_rules.pcap", Dns, Ssdp)
    first_seen = {(e, v): first for e, _, v, _, first, _, _ in rows(result, "mdns-service")}
    assert first_seen[("192.168.1.69", "sonos7828CA05FACC._spotify-connect._tcp.local")] == 4
    assert not rows(result, "ssdp-nt")
