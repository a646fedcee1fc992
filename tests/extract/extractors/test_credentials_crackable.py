"""LDAP simple binds, HTTP cookies and Kerberos AS-REQ pre-authentication as credential facts
(secret masked, never in a fact), and the one reading of a client's bytes giving, on a reveal,
the secret or the line hashcat reads: NetNTLMv2 (5600), NetNTLMv1 (5500), Kerberos 5 AS-REQ
pre-auth etype 23 (7500) and 17/18 (19800/19900). The synthetic messages were checked against
tshark's dissectors when written (`tshark -Y 'ldap || kerberos || ntlmssp || http.cookie'`)."""

from __future__ import annotations

import base64
import zipfile
from pathlib import Path

from tracepcap.extract.extractors.credentials import Credentials, datagram_logins, stream_logins
from tracepcap.testing import app
from tracepcap.testing import windows as w
from tracepcap.testing.scenario import Scenario

SECRET = "Hunter2!"
CHALLENGE = bytes.fromhex("0123456789abcdef")
DN = "cn=admin,dc=example,dc=com"


def _network() -> Scenario:
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    dc = net.host("10.0.0.1", "00:1b:21:00:00:01")
    net.tcp_session(pc, dc, 50100, 389, client=[w.ldap_simple_bind(1, DN, SECRET), w.ldap_search(2, "dc=example")])
    net.tcp_session(pc, dc, 50101, 389, client=[w.ldap_simple_bind(1, "", ""),  # anonymous: no login
                                                w.ldap_sasl_bind(2, "GSS-SPNEGO", b"\x60\x00")])  # SASL: no password
    net.tcp_session(pc, dc, 50102, 3268, client=[w.ldap_simple_bind(1, "uid=nopass", "")])
    net.udp(pc, dc, 50103, 88, w.krb_as_req("alice", "CORP.EXAMPLE", pre_auth=(23, bytes(range(52)))))
    net.udp(pc, dc, 50104, 88, w.krb_as_req("carol", "CORP.EXAMPLE"))  # no pre-auth: nothing to crack
    net.tcp_session(pc, dc, 50105, 88, client=[w.krb_tcp(w.krb_as_req("bob", "CORP.EXAMPLE",
                                                                      pre_auth=(18, bytes(56))))])
    net.tcp_session(pc, dc, 50106, 80, client=[app.http_request(
        "GET", "/", "srv", headers=[("Cookie", f"PHPSESSID={SECRET}; lang=en")])
        + app.http_request("GET", "/a", "srv", headers=[("Cookie", f"PHPSESSID={SECRET}; lang=en")])])
    return net


def test_new_protocols_as_masked_facts(run, rows):
    found = rows(run(_network(), Credentials))
    assert {(entity, value) for entity, _, value, *_ in found} == {
        ("10.0.0.5", f"ldap user {DN}, password ****** to 10.0.0.1:389"),
        ("10.0.0.5", "ldap user uid=nopass, no password seen to 10.0.0.1:3268"),
        ("10.0.0.5", "kerberos user alice@CORP.EXAMPLE, pre-auth ****** to 10.0.0.1:88"),
        ("10.0.0.5", "kerberos user bob@CORP.EXAMPLE, pre-auth ****** to 10.0.0.1:88"),
        ("10.0.0.5", "http-cookie cookies PHPSESSID, lang ****** to 10.0.0.1:80")}
    assert SECRET not in repr(found)


def test_a_reveal_reads_the_secret_again():
    ldap = stream_logins("10.0.0.5", "10.0.0.1", 389, w.ldap_simple_bind(1, DN, SECRET), reveal=True)
    assert [(f.value, f.secret, f.format) for f in ldap] == [
        (f"ldap user {DN}, password ****** to 10.0.0.1:389", SECRET, "cleartext")]
    assert stream_logins("10.0.0.5", "10.0.0.1", 389, w.ldap_simple_bind(1, DN, SECRET))[0].secret is None
    cookie = stream_logins("10.0.0.5", "10.0.0.1", 80, app.http_request(
        "GET", "/", "srv", headers=[("Cookie", f"sid={SECRET}")]), reveal=True)
    assert [(f.value, f.secret) for f in cookie] == [("http-cookie cookies sid ****** to 10.0.0.1:80", f"sid={SECRET}")]


def test_kerberos_pre_auth_in_hashcat_layouts():
    rc4 = bytes(range(16)) + bytes(range(100, 136))  # HMAC-MD5 checksum, then the 36 encrypted bytes
    [found] = datagram_logins("10.0.0.1", 88, w.krb_as_req("alice", "CORP.EXAMPLE", pre_auth=(23, rc4)), reveal=True)
    # mode 7500: user, realm, an empty salt, then the encrypted timestamp and the checksum last
    assert found.secret == f"$krb5pa$23$alice$CORP.EXAMPLE$${rc4[16:].hex()}{rc4[:16].hex()}"
    assert len(found.secret.rpartition("$")[2]) == 72 + 32 and "7500" in found.format
    aes = bytes(range(44)) + b"\xaa" * 12  # the cipher as sent, its 12-byte HMAC last
    [found] = datagram_logins("10.0.0.1", 88, w.krb_as_req("bob", "CORP.EXAMPLE", pre_auth=(18, aes)), reveal=True)
    assert found.secret == f"$krb5pa$18$bob$CORP.EXAMPLE${aes.hex()}" and "19900" in found.format
    [found] = datagram_logins("10.0.0.1", 88, w.krb_as_req("bob", "CORP.EXAMPLE", pre_auth=(17, aes)), reveal=True)
    assert found.secret.startswith("$krb5pa$17$bob$CORP.EXAMPLE$") and "19800" in found.format


def test_ntlm_pairs_the_authenticate_with_the_servers_challenge():
    sent = (w.smb2_session_setup(w.spnego(w.ntlm_negotiate()))
            + w.smb2_session_setup(w.spnego(w.ntlm_authenticate("alice", "CORP", "WS1"), response=True)))
    reply = w.smb2_session_setup(w.spnego(w.ntlm_challenge("DC1", "CORP", server_challenge=CHALLENGE),
                                          response=True), reply=True)
    [found] = stream_logins("10.0.0.5", "10.0.0.1", 445, sent, reply=reply, reveal=True)
    nt = w.NTLMV2_RESPONSE
    assert found.value == "ntlm user CORP\\alice, response ****** to 10.0.0.1:445"
    assert found.secret == f"alice::CORP:{CHALLENGE.hex()}:{nt[:16].hex()}:{nt[16:].hex()}"
    assert "5600" in found.format
    # without the server's side, the response alone is not crackable: no line
    assert stream_logins("10.0.0.5", "10.0.0.1", 445, sent, reveal=True)[0].secret is None

    lm, v1 = b"\x44" * 24, b"\x55" * 24
    http = app.http_request("GET", "/", "srv", headers=[("Authorization", "NTLM " + base64.b64encode(
        w.ntlm_authenticate("bob", "CORP", "WS2", nt=v1, lm=lm)).decode())])
    challenge = ("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: NTLM " + base64.b64encode(
        w.ntlm_challenge("WEB", "CORP", server_challenge=CHALLENGE)).decode() + "\r\n\r\n").encode()
    [found] = stream_logins("10.0.0.5", "10.0.0.1", 80, http, reply=challenge, reveal=True)
    assert found.secret == f"bob::CORP:{lm.hex()}:{v1.hex()}:{CHALLENGE.hex()}" and "5500" in found.format


def test_real_domain_logons(run, rows, captures, tmp_path):
    """A real Windows domain (malware-traffic-analysis.net 2018-01-16, unzipped only into a
    temporary folder): the machine account's and a user's AS-REQ pre-authentication (etype 18,
    frames 58, 99 and 430) and the machine's NTLMv2 SMB session setup. tshark reads the
    AUTHENTICATE's NTProofStr bb33efab... and the CHALLENGE's 961f9597aaa80d1b in tcp stream 15."""
    archive = captures / "real" / "mta" / "2018-01-16-traffic-analysis-exercise.pcap.zip"
    with zipfile.ZipFile(archive) as z:
        path = z.extract(z.namelist()[0], tmp_path, pwd=b"infected")
    found = rows(run(Path(path), Credentials))
    assert {(value, first) for _, _, value, _, first, _, _ in found} == {
        ("kerberos user maine-office-pc$@marsmart.com, pre-auth ****** to 10.100.14.22:88", 58),
        ("kerberos user maine-office-pc$@MARSMART.COM, pre-auth ****** to 10.100.14.22:88", 99),
        ("kerberos user edward.reid@MARSMART, pre-auth ****** to 10.100.14.22:88", 430),
        ("ntlm user MARSMART\\MAINE-OFFICE-PC$, response ****** to 10.100.14.22:445", 198)}
    assert {entity for entity, *_ in found} == {"10.100.14.173"}
