"""host-identity signals on facts made by hand: each one's exact votes and reasons."""

from __future__ import annotations

import pytest
from support.facts import context, fact, votes

from tracepcap.extract.kinds import (DHCP_VENDOR_CLASS, INITIATED, MAC, MDNS_SERVICE, OUI_VENDOR, SERVED, SSDP_NT, TTL,
                                     USER_AGENT)
from tracepcap.scan.context import Traffic
from tracepcap.scan.signals.host_identity import (announcements, client_software, knowledge_base, oui_vendor,
                                                  router,
                                                  user_agent_device,
                                                  services_answered, traffic_pattern, ttl_class)
from tracepcap.scan.signals.os_family import oui_vendor as os_oui_vendor


@pytest.mark.parametrize("vendor, label, weight, note", [
    ("Axis Communications AB", "IP Camera", 25, ""),
    ("Hangzhou Hikvision Digital Technology Co.,Ltd.", "IP Camera", 25, ""),
    ("Zhejiang Dahua Technology Co., Ltd.", "IP Camera", 25, ""),
    ("Sonos, Inc.", "Media Device", 25, ""),
    ("Raspberry Pi Trading Ltd", "IoT Device", 25, ""),
    ("Ubiquiti Inc", "Access Point", 10, ", a maker of several device types"),
    ("ASUSTek COMPUTER INC.", "Workstation", 10, ", a maker of several device types"),
    ("PCS Systemtechnik GmbH", "Workstation", 10,
     ", VirtualBox's virtual NIC: a virtual machine, most often on a desktop"),
])
def test_oui_vendor_votes_by_how_many_device_types_the_vendor_makes(vendor, label, weight, note):
    ctx = context({"10.0.0.1": [fact(MAC, "00:11:22:33:44:55", 4), fact(OUI_VENDOR, vendor, 4)]})
    assert votes(oui_vendor, ctx.host("10.0.0.1")) == [(label, weight, f"MAC OUI is {vendor}{note} (+{weight})", (4,))]


@pytest.mark.parametrize("vendor", ["Cisco Systems, Inc", "Apple, Inc.", "HP Inc.", "Hewlett Packard",
                                    "Dell Inc.", "Intel Corporate", "Samsung Electronics Co.,Ltd",
                                    "Tp-Link Technologies Co.,Ltd.", "VMware, Inc."])
def test_vendors_of_every_device_type_do_not_vote(vendor):
    ctx = context({"10.0.0.1": [fact(MAC, "00:11:22:33:44:55", 4), fact(OUI_VENDOR, vendor, 4)]})
    assert votes(oui_vendor, ctx.host("10.0.0.1")) == []


def test_a_raspberry_pi_runs_linux():
    ctx = context({"10.0.0.1": [fact(MAC, "b8:27:eb:01:02:03", 4), fact(OUI_VENDOR, "Raspberry Pi Foundation", 4)]})
    assert votes(os_oui_vendor, ctx.host("10.0.0.1")) == [
        ("Linux", 10, "MAC OUI is Raspberry Pi Foundation: a Raspberry Pi, a single-board Linux computer (+10)",
         (4,))]
    assert votes(os_oui_vendor, context({"10.0.0.1": [fact(MAC, "00:11:22:33:44:55", 4),
                                                      fact(OUI_VENDOR, "Dell Inc.", 4)]}).host("10.0.0.1")) == []
    camera = context({"10.0.0.1": [fact(MAC, "00:11:22:33:44:55", 4), fact(OUI_VENDOR, "Axis Communications AB", 4)]})
    assert votes(os_oui_vendor, camera.host("10.0.0.1")) == [
        ("Embedded", 10, "MAC OUI is Axis Communications AB: a maker of IP cameras, which run embedded firmware "
         "(+10)", (4,))]


def test_oui_vendor_of_a_routers_mac_is_not_the_hosts():
    mac = "00:00:0c:01:02:03"
    ctx = context({"10.0.0.1": [fact(MAC, mac, 1, 50), fact(TTL, "255", 1, 50),
                                fact(OUI_VENDOR, "Cisco Systems, Inc")],
                   "203.0.113.5": [fact(MAC, mac, 9, 80), fact(TTL, "52", 9, 80),
                                   fact(OUI_VENDOR, "Cisco Systems, Inc")]})
    assert ctx.mac_owners == {mac: ("10.0.0.1",)}  # zero hops away, though it sent fewer frames
    assert votes(oui_vendor, ctx.host("203.0.113.5")) == []


def test_ttl_class_uses_the_ttl_most_packets_carried():
    ctx = context({"10.0.0.1": [fact(TTL, "255", 3, 40), fact(TTL, "64", 9, 2)],
                   "10.0.0.2": [fact(TTL, "127", 5, 10)], "10.0.0.3": [fact(TTL, "61", 5, 10)]})
    assert votes(ttl_class, ctx.host("10.0.0.1")) == [
        ("Network device", 20, "sends with TTL 255 (initial 255, typical of network equipment: routers, "
         "switches, access points) (+20)", (3,))]
    assert votes(ttl_class, ctx.host("10.0.0.2")) == [
        ("Workstation", 10, "sends with TTL 127 (initial 128, typical of Windows) (+10)", (5,))]
    assert votes(ttl_class, ctx.host("10.0.0.3")) == []


def test_a_remote_server_starting_at_255_is_no_router():
    ctx = context({"198.51.100.7": [fact(MAC, "10:13:31:f1:39:76", 3, 40), fact(TTL, "243", 3, 40)],
                   "192.168.1.1": [fact(MAC, "10:13:31:f1:39:76", 1, 9), fact(TTL, "64", 1, 9)]})
    assert ctx.host("198.51.100.7").locality == "remote"
    assert votes(ttl_class, ctx.host("198.51.100.7")) == []
    assert votes(services_answered, context({"198.51.100.7": [fact(SERVED, "udp/67", 8, 4),
                                                              fact(TTL, "250", 8, 4)]}).host("198.51.100.7")) == []


def test_services_answered_scale_with_clients_and_skip_mdns():
    traffic = {"10.0.0.2": Traffic(clients={"udp/53": {f"10.0.0.{i}" for i in range(20, 32)}})}
    ctx = context({"10.0.0.2": [fact(SERVED, "udp/53", 62, 40), fact(SERVED, "udp/5353", 70, 9)]}, traffic)
    assert votes(services_answered, ctx.host("10.0.0.2")) == [
        ("DNS Server", 80, "answered DNS on udp/53 for 12 clients, first in frame 62 (+80)", (62,))]


def test_services_answered_without_conversations_counts_answers():
    ctx = context({"10.0.0.3": [fact(SERVED, "udp/67", 8, 14)]})
    assert votes(services_answered, ctx.host("10.0.0.3")) == [
        ("DHCP Server", 50, "answered DHCP on udp/67 14 times, first in frame 8 (+50)", (8,))]


def test_traffic_patterns():
    """Only a client of many peers votes: few peers, little traffic, or answering without
    initiating are no evidence of a device type (issue 13, item 2)."""
    many = Traffic(peers_out={"10.0.0.2", "10.0.0.10", "203.0.113.1", "203.0.113.2", "198.51.100.7"},
                   conversations=9)
    server = Traffic(peers_in={"10.0.0.5", "10.0.0.6"}, conversations=2)
    quiet = Traffic(peers_out={"203.0.113.9"}, conversations=1, bytes_sent=900, bytes_received=300)
    ctx = context({"ws": [fact(INITIATED, "tcp/443", 12)], "srv": [fact(SERVED, "tcp/7000", 30)],
                   "iot": [fact(INITIATED, "tcp/8883", 40)], "dnsonly": [fact(INITIATED, "udp/53", 4)]},
                  {"ws": many, "srv": server, "iot": quiet, "dnsonly": quiet})
    assert votes(traffic_pattern, ctx.host("ws")) == [("Workstation", 20, "opened conversations to 5 peers "
                                                  "(3 outside private ranges) and answered none (+20)", (12,))]
    assert votes(traffic_pattern, ctx.host("srv")) == []
    assert votes(traffic_pattern, ctx.host("iot")) == []
    assert votes(traffic_pattern, ctx.host("dnsonly")) == []


def test_router_fronts_addresses_off_its_subnet():
    mac = "00:00:0c:9f:f0:01"
    facts = {"10.0.0.1": [fact(MAC, mac, 2, 30), fact(TTL, "255", 2, 30)]}
    for i, ip in enumerate(["203.0.113.10", "198.51.100.7", "198.51.100.20"]):
        facts[ip] = [fact(MAC, mac, 10 + i, 5), fact(TTL, "52", 10 + i, 5)]
    ctx = context(facts)
    assert votes(router, ctx.host("10.0.0.1")) == [
        ("Router", 40, "its MAC 00:00:0c:9f:f0:01 also carries 3 addresses outside 10.0.0.0/24 or hops "
         "away (198.51.100.7, 198.51.100.20, 203.0.113.10) (+40)", (2,))]
    assert votes(router, ctx.host("203.0.113.10")) == []


def test_router_same_subnet_sharing_is_a_faint_hint():
    mac = "52:54:00:aa:00:01"
    ctx = context({"192.168.1.1": [fact(MAC, mac, 2, 23), fact(TTL, "64", 2, 23)],
                   "192.168.1.53": [fact(MAC, mac, 36, 6), fact(TTL, "64", 36, 6)]})
    assert votes(router, ctx.host("192.168.1.1")) == [
        ("Router", 10, "its MAC 52:54:00:aa:00:01 also carries 192.168.1.53 on its own subnet (+10)", (2,))]


def test_announcements_from_mdns_and_ssdp():
    ctx = context({"p": [fact(MDNS_SERVICE, "Office Printer._ipp._tcp.local", 80),
                         fact(MDNS_SERVICE, "_ipp._tcp.local", 81)],
                   "g": [fact(SSDP_NT, "urn:schemas-upnp-org:device:InternetGatewayDevice:1", 5)]})
    assert votes(announcements, ctx.host("p")) == [
        ("Printer", 35, "announces _ipp._tcp over mDNS, frame 80 (+35)", (80,))]
    assert votes(announcements, ctx.host("g")) == [
        ("Router", 35, "announces UPnP urn:schemas-upnp-org:device:InternetGatewayDevice:1 over SSDP, "
         "frame 5 (+35)", (5,))]


def test_airplay_and_raop_name_no_device_type():
    """Macs, iPhones and iPads announce AirPlay and RAOP as well as speakers and TVs."""
    ctx = context({"mac": [fact(MDNS_SERVICE, "Lucas iMac._airplay._tcp.local", 11),
                           fact(MDNS_SERVICE, "28373700:Lucas iMac._raop._tcp.local", 11)]})
    assert votes(announcements, ctx.host("mac")) == []


def test_client_software():
    ctx = context({"m": [fact(DHCP_VENDOR_CLASS, "android-dhcp-13", 2)]})
    assert votes(client_software, ctx.host("m")) == [
        ("Mobile", 20, "its DHCP vendor class is android-dhcp-13, frame 2 (+20)", (2,))]


@pytest.mark.parametrize("ua, label, words", [
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Mobile/15E148", "Mobile", "a smartphone (Apple iPhone)"),
    ("Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 "
     "Safari/537.36", "Mobile", 'a tablet (Samsung Galaxy Tab S8 11.0" WiFi)'),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 "
     "Safari/537.36", "Workstation", "a desktop or laptop computer"),
    ("Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV "
     "Safari/537.36", "Media Device", "a smart TV or streaming box"),
    ("Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko)", "IoT Device",
     "a games console (Sony PlayStation 5)"),
])
def test_user_agent_device_classes_by_device_detector(ua, label, words):
    ctx = context({"m": [fact(USER_AGENT, ua, 33)]})
    [(got, weight, reason, frames)] = votes(user_agent_device, ctx.host("m"))
    assert (got, weight, frames) == (label, 20, (33,))
    assert reason.startswith(f"Device Detector reads its User-Agent as {words}: ")
    assert reason.endswith(", first in frame 33 (+20)")


def test_libraries_and_bots_name_no_device_class():
    ctx = context({"m": [fact(USER_AGENT, "curl/8.5.0", 3), fact(USER_AGENT, "python-requests/2.31", 4)]})
    assert votes(user_agent_device, ctx.host("m")) == []


def test_a_router_answering_dhcp_for_its_segment_is_a_gateway_router():

    mac = "00:00:0c:01:02:03"
    remote = {ip: [fact(MAC, mac, 9, 80), fact(TTL, "52", 9, 80)] for ip in ("203.0.113.5", "203.0.113.6")}
    ctx = context({"10.0.0.1": [fact(MAC, mac, 1, 50), fact(TTL, "255", 1, 50), fact(SERVED, "udp/67", 2)],
                   **remote})
    assert [(v.label, v.weight, v.reason) for v in router.vote(ctx.host("10.0.0.1"))] == [
        ("Router", 30, "its MAC 00:00:0c:01:02:03 also carries 2 addresses outside 10.0.0.0/24 or hops away "
         "(203.0.113.5, 203.0.113.6) (+30)"),
        ("Router", 40, "and it answers DHCP for the segment, first in frame 2: what a gateway router gives its "
         "network (+40)")]


def test_a_dial_search_target_is_a_cast_device():
    ctx = context({"tv": [fact(SSDP_NT, "urn:dial-multiscreen-org:service:dial:1", 6)]})
    assert votes(announcements, ctx.host("tv")) == []  # the device knowledge base's, as a Media Device
    found = votes(knowledge_base, ctx.host("tv"))
    assert [(label, weight, frames) for label, weight, _, frames in found] == [("Media Device", 30, (6,))]
    assert "DIAL" in found[0][2] and "dial-multiscreen.org" in found[0][2]
