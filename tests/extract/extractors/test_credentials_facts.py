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
    # frame 1725 posts a form, 1730 a JSON body with a token, 1737 sends HTTP Basic
    ("demo_all_rules.pcap", {
        ("192.168.100.10", "http-form user admin, secret ****** to 203.0.113.100:80", 1725),
        ("192.168.100.10", "http-json user admin, secret ****** to 203.0.113.100:8080", 1730),
        ("192.168.100.10", "http user user, password ****** to 203.0.113.100:80", 1737)}),
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


def test_http_logins_by_field_digest_and_bearer(run, rows):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    srv = net.host("10.0.0.9", "00:1b:21:00:00:09")
    form = [("Content-Type", "application/x-www-form-urlencoded")]
    net.tcp_session(pc, srv, 50010, 80, client=[app.http_request(
        "POST", "/signin", "srv", headers=form, body=b"login=carol&passwd=Hunter2%21&remember=1")])
    net.tcp_session(pc, srv, 50011, 8000, client=[app.http_request(
        "POST", "/api/session", "srv", headers=[("Content-Type", "application/json; charset=utf-8")],
        body=b'{"auth": {"email": "dan@example.com", "password": "Hunter2!"}}')])
    net.tcp_session(pc, srv, 50012, 80, client=[app.http_request(
        "GET", "/cgi-bin/admin?user=frank&pwd=Hunter2!", "srv")])
    net.tcp_session(pc, srv, 50013, 80, client=[app.http_request(
        "GET", "/private", "srv", headers=[("Authorization", 'Digest username="gina", realm="x", '
                                             'nonce="1", uri="/private", response="0a1b"')])])
    net.tcp_session(pc, srv, 50014, 443, client=[app.http_request(
        "GET", "/v1/me", "srv", headers=[("Authorization", "Bearer Hunter2.token.value")])])
    # pipelined: a search form (no secret field) then a login in the second request
    net.tcp_session(pc, srv, 50015, 80, client=[
        app.http_request("POST", "/search", "srv", headers=form, body=b"q=password+reset&page=2")
        + app.http_request("PUT", "/login", "srv", headers=form, body=b"username=hank&password=")])
    found = rows(run(net, Credentials))
    assert {value for _, _, value, _, _, _, _ in found} == {
        "http-form user carol, secret ****** to 10.0.0.9:80",
        "http-json user dan@example.com, secret ****** to 10.0.0.9:8000",
        "http-query user frank, secret ****** to 10.0.0.9:80",
        "http-digest user gina, response ****** to 10.0.0.9:80",
        "http-bearer token ****** to 10.0.0.9:443",
        "http-form user hank, no secret seen to 10.0.0.9:80"}
    assert {entity for entity, *_ in found} == {"10.0.0.5"}
    assert "Hunter2" not in repr(found)


def test_http_bodies_that_are_no_login(run, rows):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    srv = net.host("10.0.0.9", "00:1b:21:00:00:09")
    net.tcp_session(pc, srv, 50020, 80, client=[app.http_request(
        "POST", "/search", "srv", headers=[("Content-Type", "application/x-www-form-urlencoded")],
        body=b"q=user+password&user=nobody")])
    net.tcp_session(pc, srv, 50021, 80, client=[app.http_request(
        "POST", "/api", "srv", headers=[("Content-Type", "application/json")],
        body=b'{"password": ' + b"[" * 5000)])  # cut and deeply nested: not JSON, not a crash
    net.tcp_session(pc, srv, 50022, 80, client=[app.http_request(
        "POST", "/upload", "srv", headers=[("Content-Type", "image/png")], body=b"\x89PNG password=x")])
    assert rows(run(net, Credentials)) == set()
