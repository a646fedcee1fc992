"""SSDP searches' USER-AGENT and UPnP device descriptions fetched over HTTP."""

from __future__ import annotations

from tracepcap.extract.extractors.ssdp import Ssdp
from tracepcap.extract.extractors.upnp_description import UpnpDescription, describe
from tracepcap.testing import app, identity
from tracepcap.testing.scenario import Scenario

SSDP_GROUP = "239.255.255.250"


def test_demo_all_rules_chrome_searches(run, rows, captures):
    # frames 748, 825, 899, 946: 192.168.1.77 searches for DIAL devices with
    # USER-AGENT: Google Chrome/83.0.4103.34 Mac OS X (tshark -Y ssdp -e http.user_agent)
    result = run(captures / "demo_all_rules.pcap", Ssdp)
    assert rows(result, "user-agent") == {
        ("192.168.1.77", "user-agent", "Google Chrome/83.0.4103.34 Mac OS X", "ssdp", 748, 946, 4)}


def test_search_user_agent_and_served_description(run, rows):
    net = Scenario()
    laptop = net.host("10.0.0.5", "00:1b:21:00:00:05")
    speaker = net.host("10.0.0.40", "00:0e:58:00:00:01")
    net.udp(laptop, SSDP_GROUP, 50000, 1900, identity.ssdp_search(  # frame 1
        "urn:schemas-upnp-org:device:MediaRenderer:1", "Windows/10.0 UPnP/2.0 Player/1.0"))
    body = identity.upnp_description("Kitchen", "Sonos, Inc.", "Sonos One", "S18")
    net.tcp_session(laptop, speaker, 50001, 1400,  # handshake frames 2-4, request 5
                    client=[app.http_request("GET", "/xml/device_description.xml", "10.0.0.40:1400")],
                    server=[app.http_response(body=body, content_type="text/xml")])
    result = run(net, Ssdp, UpnpDescription)
    assert rows(result, "user-agent") == {
        ("10.0.0.5", "user-agent", "Windows/10.0 UPnP/2.0 Player/1.0", "ssdp", 1, 1, 1)}
    first = min(row[4] for row in rows(result, "device-model"))
    assert rows(result, "device-model") | rows(result, "device-name") == {
        ("10.0.0.40", "device-model", "Sonos, Inc. Sonos One S18", "upnp", first, first, 1),
        ("10.0.0.40", "device-name", "Kitchen", "upnp", first, first, 1)}
    assert first > 5  # the response, not the request


def test_describe_reads_the_root_device_only_and_unescapes():
    body = (b'<root xmlns="urn:schemas-upnp-org:device-1-0"><device><friendlyName>A &amp; B'
            b"</friendlyName><manufacturer>ACME</manufacturer><modelName>Box</modelName>"
            b"<deviceList><device><manufacturer>Other</manufacturer></device></deviceList>")
    assert describe(body) == ("ACME Box", "A & B")
    assert describe(b"<html><manufacturer>x</manufacturer></html>") == (None, None)
