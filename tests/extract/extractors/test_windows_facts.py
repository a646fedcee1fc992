"""Facts from Windows authentication and file sharing: NTLM names and versions, SMB1
native OS strings, Kerberos principals."""

from __future__ import annotations

import base64

from tracepcap.extract.extractors.kerberos import Kerberos
from tracepcap.extract.extractors.ntlmssp import Ntlmssp
from tracepcap.extract.extractors.smb import Smb
from tracepcap.limits import Limits
from tracepcap.testing import app
from tracepcap.testing import windows as w
from tracepcap.testing.scenario import WINDOWS_SYN, Scenario

REALM = "CORP.EXAMPLE"


def hosts():
    net = Scenario()
    client = net.host("10.0.0.21", "00:1b:21:4a:7e:21", ttl=128, syn=WINDOWS_SYN)
    server = net.host("10.0.0.10", "00:26:b9:5c:20:10", ttl=128, syn=WINDOWS_SYN)
    return net, client, server


def test_ntlm_in_smb2(run, rows):
    net, client, server = hosts()
    challenge = w.ntlm_challenge("FS01", "CORP", "fs01.corp.example", "corp.example", version=(10, 0, 17763))
    net.tcp_session(client, server, 49700, 445, client=[
        w.smb2_session_setup(w.spnego(w.ntlm_negotiate(version=(10, 0, 19045)))),
        w.smb2_session_setup(w.spnego(w.ntlm_authenticate("alice", "CORP", "WS-ALICE", version=(10, 0, 19045)), response=True))],
        server=[w.smb2_session_setup(w.spnego(challenge, response=True), reply=True)])
    # frames 1-3 handshake, 4 the client's first turn (its stream head's first frame), 6 the server's
    assert rows(run(net, Ntlmssp)) == {
        ("10.0.0.10", "hostname-claim", "fs01.corp.example", "ntlm", 6, 6, 1),
        ("10.0.0.10", "hostname-claim", "FS01", "ntlm", 6, 6, 1),
        ("10.0.0.10", "os-version", "10.0.17763", "ntlm", 6, 6, 1),
        ("10.0.0.21", "hostname-claim", "WS-ALICE", "ntlm", 4, 4, 1),
        ("10.0.0.21", "os-version", "10.0.19045", "ntlm", 4, 4, 2)}


def test_ntlm_in_http_headers(run, rows):
    net, client, server = hosts()
    token = base64.b64encode(w.ntlm_authenticate("bob", "CORP", "LAPTOP-7")).decode()
    challenge = base64.b64encode(w.spnego(w.ntlm_challenge("WEB01", "CORP"), response=True)).decode()
    net.tcp_session(client, server, 49701, 80, client=[
        app.http_request("GET", "/", "intranet", headers=[("Authorization", f"NTLM {token}")])],
        server=[app.http_response(401, "Unauthorized", headers=[("WWW-Authenticate", f"Negotiate {challenge}")])])
    assert rows(run(net, Ntlmssp)) == {
        ("10.0.0.10", "hostname-claim", "WEB01", "ntlm", 6, 6, 1),
        ("10.0.0.10", "os-version", "10.0.17763", "ntlm", 6, 6, 1),
        ("10.0.0.21", "hostname-claim", "LAPTOP-7", "ntlm", 4, 4, 1),
        ("10.0.0.21", "os-version", "10.0.19041", "ntlm", 4, 4, 1)}


def test_ntlm_cut_by_the_end_of_a_head_is_not_a_failure(run, rows, manifest):
    net, client, server = hosts()
    challenge = w.ntlm_challenge("FS01", "CORP")
    net.tcp_session(client, server, 49702, 445, server=[b"\x00" * 60 + challenge])
    result = run(net, Ntlmssp, limits=Limits(stream_head_bytes=100))
    assert rows(result) == set() and manifest(result, "ntlmssp").status == "completed"


def test_smb1_native_os(run, rows):
    net, client, server = hosts()
    net.tcp_session(client, server, 49703, 139, client=[
        w.smb1_session_setup_request("Windows 2002 Service Pack 2 2600", "Windows 2002 5.1")],
        server=[w.smb1_session_setup_response("Unix", "Samba 3.0.37", "WORKGROUP")])
    net.tcp_session(client, server, 49704, 8445, client=[w.smb1_session_setup_request("X", "Y")])  # not SMB's port
    assert rows(run(net, Smb)) == {
        ("10.0.0.21", "os-version", "Windows 2002 Service Pack 2 2600", "smb", 4, 4, 1),
        ("10.0.0.21", "smb-lanman", "Windows 2002 5.1", "smb", 4, 4, 1),
        ("10.0.0.10", "os-version", "Unix", "smb", 6, 6, 1),
        ("10.0.0.10", "smb-lanman", "Samba 3.0.37", "smb", 6, 6, 1)}


def test_kerberos_over_udp_and_tcp(run, rows):
    net, client, kdc = hosts()
    net.udp(client, kdc, 50001, 88, w.krb_as_req("alice", REALM))  # frame 1
    net.udp(kdc, client, 88, 50001, w.krb_rep(11, "alice", REALM, f"krbtgt/{REALM}"))  # 2
    net.tcp_session(client, kdc, 50002, 88, client=[w.krb_tcp(w.krb_tgs_req("cifs/fs01.corp.example", REALM))],
                    server=[w.krb_tcp(w.krb_rep(13, "WS01$", REALM, "cifs/fs01.corp.example"))])  # 3-5, 6, 8
    assert rows(run(net, Kerberos)) == {
        ("10.0.0.21", "krb-principal", "alice@CORP.EXAMPLE", "kerberos-client", 1, 2, 2),
        ("10.0.0.21", "krb-principal", "WS01$@CORP.EXAMPLE", "kerberos-client", 8, 8, 1),
        ("10.0.0.21", "krb-principal", "cifs/fs01.corp.example@CORP.EXAMPLE", "kerberos-service", 6, 6, 1)}


def test_ntlm_in_smtp_auth(run, rows):
    net, client, server = hosts()
    negotiate = base64.b64encode(w.ntlm_negotiate(version=None)).decode()
    challenge = base64.b64encode(w.ntlm_challenge("MAIL01", "CORP", "mail01.corp.example")).decode()
    authenticate = base64.b64encode(w.ntlm_authenticate("carol", "CORP", "WS-CAROL")).decode()
    net.tcp_session(client, server, 49705, 587,
                    client=[b"EHLO ws\r\n", f"AUTH NTLM {negotiate}\r\n".encode(), f"{authenticate}\r\n".encode()],
                    server=[b"250 mail01\r\n", f"334 {challenge}\r\n".encode(), b"235 ok\r\n"])
    found = {(e, k, v) for e, k, v, *_ in rows(run(net, Ntlmssp))}
    assert found == {("10.0.0.10", "hostname-claim", "mail01.corp.example"),
                     ("10.0.0.10", "hostname-claim", "MAIL01"), ("10.0.0.10", "os-version", "10.0.17763"),
                     ("10.0.0.21", "hostname-claim", "WS-CAROL"), ("10.0.0.21", "os-version", "10.0.19041")}
