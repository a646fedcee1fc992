"""DHCPv6 facts: client FQDN and vendor class, on the client's address or relay peer."""

from __future__ import annotations

import socket
import struct

from tracepcap.extract.extractors.dhcpv6 import Dhcpv6
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

MAC = "00:15:5d:01:02:03"


def test_solicit_and_relayed_request(run, rows):
    net = Scenario()
    client = net.host("fe80::215:5dff:fe01:203", MAC)
    server = net.host("2001:db8::547", "00:00:0c:00:00:01")
    relay = net.host("2001:db8:1::1", "00:00:0c:00:00:02")
    solicit = app.dhcpv6(app.DHCP6_SOLICIT, 0x10, MAC, fqdn="WIN-DESKTOP.corp.example.",
                         vendor_class="MSFT 5.0")
    net.udp(client, "ff02::1:2", 546, 547, solicit)  # frame 1
    net.udp(server, client, 547, 546, app.dhcpv6(app.DHCP6_ADVERTISE, 0x10, MAC,
                                                 server_duid=b"\x00\x01"))  # 2: says nothing
    inner = app.dhcpv6(app.DHCP6_REQUEST, 0x11, "00:15:5d:09:09:09", fqdn="far-host")
    forward = (struct.pack("!BB16s16s", 12, 0, socket.inet_pton(socket.AF_INET6, "2001:db8:1::1"),
                           socket.inet_pton(socket.AF_INET6, "fe80::9"))
               + struct.pack("!HH", 9, len(inner)) + inner)
    net.udp(relay, server, 547, 547, forward)  # frame 3
    assert rows(run(net, Dhcpv6)) == {
        ("fe80::215:5dff:fe01:203", "hostname-claim", "WIN-DESKTOP.corp.example", "dhcpv6",
         1, 1, 1),
        ("fe80::215:5dff:fe01:203", "dhcp-vendor-class", "MSFT 5.0", "dhcpv6", 1, 1, 1),
        ("fe80::215:5dff:fe01:203", "dhcp-vendor-enterprise", "311 microsoft", "dhcpv6", 1, 1, 1),
        ("fe80::9", "hostname-claim", "far-host", "dhcpv6", 3, 3, 1)}


def test_claims_join_the_ia_na_address_the_reply_assigns(run, rows):
    net = Scenario()
    client = net.host("fe80::215:5dff:fe01:203", MAC)
    other = net.host("fe80::215:5dff:fe09:909", "00:15:5d:09:09:09")
    server = net.host("fe80::1", "00:00:0c:00:00:01")
    for msg_type in (app.DHCP6_SOLICIT, app.DHCP6_REQUEST):  # frames 1, 2
        net.udp(client, "ff02::1:2", 546, 547, app.dhcpv6(
            msg_type, 0x20, MAC, fqdn="ws7.corp.example", vendor_class="MSFT 5.0", enterprise=4491,
            iaid=7))
    net.udp(server, client, 547, 546, app.dhcpv6(  # frame 3: assigns 2001:db8::77
        app.DHCP6_REPLY, 0x20, MAC, iaid=7, address="2001:db8::77", server_duid=b"\x00\x03\x00\x01" + bytes(6)))
    net.udp(server, other, 547, 546, app.dhcpv6(  # frame 4: another client's lease
        app.DHCP6_REPLY, 0x21, "00:15:5d:09:09:09", iaid=1, address="2001:db8::99"))
    joined = {row for row in rows(run(net, Dhcpv6)) if row[0] == "2001:db8::77"}
    assert joined == {
        ("2001:db8::77", "hostname-claim", "ws7.corp.example", "dhcpv6", 1, 2, 2),
        ("2001:db8::77", "dhcp-vendor-class", "MSFT 5.0", "dhcpv6", 1, 2, 2),
        ("2001:db8::77", "dhcp-vendor-enterprise", "4491 cablelabs", "dhcpv6", 1, 2, 2)}


def test_a_malformed_vendor_class_keeps_the_name_before_it(run, rows, manifest):
    net = Scenario()
    client = net.host("fe80::215:5dff:fe01:203", MAC)
    solicit = bytearray(app.dhcpv6(app.DHCP6_SOLICIT, 0x30, MAC, fqdn="ws8", vendor_class="MSFT 5.0"))
    at = solicit.index(b"MSFT 5.0") - 2
    solicit[at:at + 2] = (200).to_bytes(2, "big")  # an item longer than its option
    net.udp(client, "ff02::1:2", 546, 547, bytes(solicit))
    result = run(net, Dhcpv6)
    assert rows(result) == {("fe80::215:5dff:fe01:203", "hostname-claim", "ws8", "dhcpv6", 1, 1, 1)}
    row = manifest(result, "dhcpv6")  # a notice, not a broken extractor
    assert (row.status, row.error) == ("completed", "1 notice (dhcpv6-truncated 1)")
    assert [(n.kind, n.entity, n.frame) for n in result.notices] == [
        ("dhcpv6-truncated", "fe80::215:5dff:fe01:203", 1)]
