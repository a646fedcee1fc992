"""Credential facts: protocol, user and server, the secret masked, on the client."""

from __future__ import annotations

import base64

import pytest

from tracepcap.extract.extractors.credentials import Credentials, value_parts
from tracepcap.testing import app, snmp
from tracepcap.testing import windows as w
from tracepcap.testing.scenario import Scenario


@pytest.mark.parametrize("capture, expected", [
    ("ftp.pcap", {("192.168.0.114", "ftp user csanders, password ****** to 192.168.0.193:21", 5)}),
    ("demo_all_rules.pcap", {("192.168.100.10", "http user user, password ****** to 203.0.113.100:80",
                              1737)}),
    ("monitor_large_week1_baseline.pcap", {("10.0.1.10", "imap user user, password ****** to "
                                            "10.0.2.20:143", 48)}),
    # frames 38 and 56 hold USER+PASS and a typed login in one segment each
    ("monitor_large_week4_ftp_exfil_gateway_change.pcap", {
        ("10.0.1.10", "imap user user, password ****** to 10.0.2.20:143", 26),
        ("10.0.1.11", "ftp user ftpuser, password ****** to 192.0.2.99:21", 38),
        ("10.0.1.12", "telnet user admin, password ****** to 10.0.2.10:23", 56)}),
])
def test_shared_captures(run, rows, captures, capture, expected):
    found = rows(run(captures / capture, Credentials))
    assert {(entity, value, first) for entity, _, value, _, first, _, _ in found} == expected


def test_every_protocol_and_no_secret_stored(run, rows):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    srv = net.host("10.0.0.9", "00:1b:21:00:00:09")
    plain = base64.b64encode(b"\x00dave\x00Hunter2!").decode()
    net.tcp_session(pc, srv, 50001, 110, client=[b"USER bob\r\n", b"PASS Hunter2!\r\n"],
                    server=[b"+OK\r\n", b"+OK\r\n"])
    net.tcp_session(pc, srv, 50002, 587, client=[b"EHLO pc\r\n", f"AUTH PLAIN {plain}\r\n".encode()],
                    server=[b"250 ok\r\n", b"235 ok\r\n"])
    net.tcp_session(pc, srv, 50003, 8080, client=[app.http_request(
        "GET", "/", "srv", headers=[("Authorization", "Basic " + base64.b64encode(b"erin:Hunter2!").decode())])])
    net.udp(pc, srv, 50004, 161, snmp.get_request(1, ["1.3.6.1.2.1.1.5.0"], community="Hunter2!"))
    net.udp(srv, pc, 161, 50004, snmp.get_response(1, [("1.3.6.1.2.1.1.5.0", "srv")],
                                                    community="Hunter2!"))
    net.tcp_session(pc, srv, 50005, 445, client=[
        w.smb2_session_setup(w.spnego(w.ntlm_authenticate("alice", "CORP", "WS-ALICE"), response=True))])
    found = rows(run(net, Credentials))
    assert {value for _, _, value, _, _, _, _ in found} == {
        "pop3 user bob, password ****** to 10.0.0.9:110",
        "smtp user dave, password ****** to 10.0.0.9:587",
        "http user erin, password ****** to 10.0.0.9:8080",
        "snmp community ****** to 10.0.0.9:161",
        "ntlm user CORP\\alice, response ****** to 10.0.0.9:445"}
    assert {entity for entity, *_ in found} == {"10.0.0.5"}
    assert "Hunter2" not in repr(found)


def test_value_parts():
    assert value_parts("ftp user a to b, password ****** to 192.0.2.1:21") == ("ftp", "192.0.2.1", 21)
    assert value_parts("snmp community ****** to [2001:db8::1]:161") == ("snmp", "2001:db8::1", 161)
