"""Cleartext logins read from what a client sent; the secret never comes back."""

from __future__ import annotations

import base64

import pytest

from tracepcap.extract.decoders import logins
from tracepcap.testing import snmp

Login = logins.Login


def b64(data: bytes) -> bytes:
    return base64.b64encode(data)


def test_real_ftp_login(payload):
    # ftp.pcap frames 5 and 7: "USER csanders", "PASS echo" (tshark -z credentials: csanders)
    assert logins.user_pass(payload("ftp.pcap", 5, 7)) == [Login("user/pass", "csanders", True)]


def test_real_imap_login(payload):
    # monitor_large_week1_baseline.pcap frame 48: "A001 LOGIN user password"
    assert logins.imap(payload("monitor_large_week1_baseline.pcap", 48)) == [
        Login("login", "user", True)]


def test_real_http_basic(payload):
    # demo_all_rules.pcap frame 1737: Authorization: Basic dXNlcjpwYXNz (user:pass)
    assert logins.http_basic(payload("demo_all_rules.pcap", 1737)) == [Login("basic", "user", True)]


def test_pop3_user_without_pass_and_apop():
    data = b"USER bob\r\nSTAT\r\nAPOP carol c4c9334bac560ecc979e58001b3e22fb\r\n"
    assert logins.user_pass(data) == [Login("user/pass", "bob", False),
                                      Login("apop", "carol", True)]


def test_smtp_auth_plain_inline_and_on_the_next_line_and_login():
    plain = b64(b"\x00dave\x00hunter2")
    assert logins.user_pass(b"EHLO x\r\nAUTH PLAIN " + plain + b"\r\n") == [
        Login("sasl-plain", "dave", True)]
    assert logins.user_pass(b"AUTH PLAIN\r\n" + plain + b"\r\nMAIL FROM:<d@x>\r\n") == [
        Login("sasl-plain", "dave", True)]
    assert logins.user_pass(b"AUTH LOGIN\r\n" + b64(b"erin") + b"\r\n" + b64(b"pw") + b"\r\n") == [
        Login("sasl-login", "erin", True)]
    assert logins.user_pass(b"AUTH LOGIN " + b64(b"erin") + b"\r\n") == [
        Login("sasl-login", "erin", False)]


def test_imap_quoted_login_and_authenticate_plain():
    data = b'a1 LOGIN "frank smith" "p w"\r\na2 AUTHENTICATE PLAIN\r\n' + b64(b"\x00gina\x00x") + b"\r\n"
    assert logins.imap(data) == [Login("login", "frank smith", True), Login("sasl-plain", "gina", True)]


def test_telnet_negotiation_is_removed_and_prompts_dropped():
    data = b"\xff\xfd\x18\xff\xfb\x1f\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0alice\r\x00s3cret\r\n"
    assert logins.telnet_text(data) == b"alice\ns3cret\n"
    assert logins.telnet(data) == [Login("login", "alice", True)]
    assert logins.telnet(b"login: admin\r\nPassword: x\r\n") == [Login("login", "admin", True)]
    assert logins.telnet(b"adm") == []  # still typing


def test_snmp_community():
    assert logins.snmp_community(snmp.get_request(1, ["1.3.6.1.2.1.1.5.0"], community="s3cr3t"))
    assert not logins.snmp_community(snmp.get_request(1, ["1.3.6.1.2.1.1.5.0"], community=""))


def test_no_reader_returns_the_secret():
    data = b"USER a\r\nPASS hunter2\r\nAUTH PLAIN " + b64(b"\x00a\x00hunter2") + b"\r\n"
    assert "hunter2" not in repr(logins.user_pass(data) + logins.imap(b"x LOGIN a hunter2\r\n"))


@pytest.mark.parametrize("read, data", [
    (logins.user_pass, b"USER a\r\nPASS b\r\nAUTH LOGIN\r\n" + b64(b"u") + b"\r\n"),
    (logins.imap, b'a LOGIN "x\\"y" z\r\n'),
    (logins.http_basic, b"GET / HTTP/1.1\r\nAuthorization: Basic " + b64(b"u:p") + b"\r\n\r\n"),
    (logins.telnet, b"\xff\xfa\x18\x00VT100\xff\xf0u\r\np\r\n"),
    (logins.snmp_community, snmp.get_request(7, ["1.3.6.1.2.1.1.1.0"], community="public")),
])
def test_truncation_sweep(sweep, read, data):
    sweep(lambda view: read(bytes(view)), data)
