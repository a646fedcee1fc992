"""Application payloads, decoded by dpkt (DHCP, DNS, NetBIOS, TLS, HTTP) or by the
standard's layout written out here (DHCPv6), and certificates by cryptography's parser."""

from __future__ import annotations

import struct

import dpkt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tracepcap.testing import app, tls

MAC = "00:1b:21:aa:bb:cc"


def test_dhcp_discover_from_a_windows_client():
    msg = app.dhcp(app.BOOTREQUEST, 0xDEADBEEF, MAC, app.DISCOVER, hostname="WS-ACCT-01",
                   fqdn="ws-acct-01.corp.example", param_list=[1, 3, 6, 15, 31, 33],
                   vendor_class="MSFT 5.0", requested_ip="10.0.0.21")
    d = dpkt.dhcp.DHCP(msg)
    assert (d.op, d.xid, d.ciaddr) == (1, 0xDEADBEEF, 0)
    assert d.chaddr[:6] == bytes.fromhex("001b21aabbcc")
    opts = dict(d.opts)
    assert opts[53] == bytes([app.DISCOVER])
    assert opts[12] == b"WS-ACCT-01" and opts[60] == b"MSFT 5.0"
    assert opts[55] == bytes([1, 3, 6, 15, 31, 33])
    assert opts[50] == bytes([10, 0, 0, 21]) and opts[61] == b"\x01" + bytes.fromhex("001b21aabbcc")
    assert opts[81] == b"\x05\x00\x00" + b"\x0aws-acct-01\x04corp\x07example\x00"
    assert len(msg) >= 300 and msg[236:240] == b"\x63\x82\x53\x63"


def test_dhcp_ack_from_a_server():
    msg = app.dhcp(app.BOOTREPLY, 7, MAC, app.ACK, yiaddr="10.0.0.31", siaddr="10.0.0.3",
                   server_id="10.0.0.3", lease_time=86400, subnet_mask="255.255.255.0",
                   router="10.0.0.1", dns_servers=["10.0.0.2", "10.0.0.1"], domain="corp.example")
    d = dpkt.dhcp.DHCP(msg)
    opts = dict(d.opts)
    assert d.op == 2 and d.yiaddr == 0x0A00001F
    assert opts[54] == bytes([10, 0, 0, 3]) and struct.unpack("!I", opts[51]) == (86400,)
    assert opts[6] == bytes([10, 0, 0, 2, 10, 0, 0, 1]) and opts[15] == b"corp.example"
    assert 61 not in opts  # servers do not send a client identifier


def _dhcpv6_options(buf: bytes) -> dict[int, bytes]:
    """RFC 8415 21.1: code (2 bytes), length (2 bytes), data."""
    out, at = {}, 0
    while at < len(buf):
        code, length = struct.unpack_from("!HH", buf, at)
        out[code] = buf[at + 4:at + 4 + length]
        at += 4 + length
    assert at == len(buf)
    return out


def test_dhcpv6_solicit_with_fqdn_and_vendor_class():
    msg = app.dhcpv6(app.DHCP6_SOLICIT, 0xABCDEF, MAC, fqdn="ws-acct-01.corp.example",
                     vendor_class="MSFT 5.0", iaid=0x0E001B21, elapsed=0)
    assert msg[0] == 1 and msg[1:4] == b"\xab\xcd\xef"
    opts = _dhcpv6_options(msg[4:])
    assert opts[1] == b"\x00\x03\x00\x01" + bytes.fromhex("001b21aabbcc")
    assert opts[39] == b"\x01\x0aws-acct-01\x04corp\x07example\x00"
    assert opts[16] == struct.pack("!IH", 311, 8) + b"MSFT 5.0"
    assert opts[6] == b"\x00\x17\x00\x18" and opts[8] == b"\x00\x00"
    assert opts[3][:4] == struct.pack("!I", 0x0E001B21)


def test_dhcpv6_request_carries_server_id_and_address():
    msg = app.dhcpv6(app.DHCP6_REQUEST, 1, MAC, server_duid=app.duid_ll("00:25:90:3a:11:03"),
                     iaid=1, address="2001:db8::21")
    opts = _dhcpv6_options(msg[4:])
    assert opts[2].endswith(bytes.fromhex("0025903a1103"))
    inner = _dhcpv6_options(opts[3][12:])
    assert inner[5][:16] == bytes.fromhex("20010db8000000000000000000000021")


def test_dns_query_and_compressed_response():
    query = dpkt.dns.DNS(app.dns_query(0x1234, "www.example.com", "AAAA"))
    assert (query.id, query.qr, query.rd, query.qd[0].name, query.qd[0].type) == (
        0x1234, 0, 1, "www.example.com", dpkt.dns.DNS_AAAA)
    raw = app.dns_response(0x1234, ("www.example.com", "A"), [
        ("www.example.com", "CNAME", "edge.example.net", 60),
        ("edge.example.net", "A", "203.0.113.10", 60),
        ("edge.example.net", "AAAA", "2001:db8::10", 60)])
    assert raw[33:35] == b"\xc0\x0c"  # the first answer's owner points at the question
    d = dpkt.dns.DNS(raw)
    assert (d.qr, d.ra, d.aa, d.rcode) == (1, 1, 0, 0)
    assert [(rr.name, rr.type) for rr in d.an] == [
        ("www.example.com", 5), ("edge.example.net", 1), ("edge.example.net", 28)]
    assert d.an[0].cname == "edge.example.net" and d.an[1].ip == bytes([203, 0, 113, 10])


def test_dns_ptr_srv_txt_and_nxdomain():
    name = app.reverse_name("10.0.0.10")
    assert name == "10.0.0.10.in-addr.arpa"
    assert app.reverse_name("2001:db8::1").endswith(".8.b.d.0.1.0.0.2.ip6.arpa")
    d = dpkt.dns.DNS(app.dns_response(9, (name, "PTR"), [(name, "PTR", "intranet.corp.example",
                                                            300)], aa=True))
    assert d.aa == 1 and d.an[0].ptrname == "intranet.corp.example"
    d = dpkt.dns.DNS(app.dns_response(10, ("_ldap._tcp.corp.example", "SRV"), [
        ("_ldap._tcp.corp.example", "SRV", (0, 100, 389, "dc1.corp.example"), 600),
        ("dc1.corp.example", "TXT", ["v=1", "role=dc"], 600)]))
    assert (d.an[0].priority, d.an[0].weight, d.an[0].port, d.an[0].srvname) == (
        0, 100, 389, "dc1.corp.example")
    assert d.an[1].text == ["v=1", "role=dc"]
    nx = dpkt.dns.DNS(app.dns_response(11, "nope.example", [], rcode=3))
    assert nx.rcode == 3 and nx.an == []


def test_mdns_announcement_sets_cache_flush_on_unique_records():
    records = app.mdns_host_records("Alices-MacBook", "10.0.0.30")
    records += app.mdns_service_records("HP LaserJet", "_ipp._tcp", "HP-LJ", 631, ["rp=ipp/print"])
    d = dpkt.dns.DNS(app.mdns_announcement(records))
    assert (d.id, d.qr, d.aa, d.qd) == (0, 1, 1, [])
    by_type = [(rr.name, rr.type, rr.cls) for rr in d.an]
    assert by_type[0] == ("Alices-MacBook.local", 1, 0x8001)
    assert by_type[1] == ("30.0.0.10.in-addr.arpa", 12, 0x8001)  # reverse PTR is unique
    assert ("_ipp._tcp.local", 12, 1) in by_type  # shared browse PTR: no cache-flush
    assert d.an[3].ptrname == "HP LaserJet._ipp._tcp.local"
    assert d.an[4].srvname == "HP-LJ.local" and d.an[4].port == 631
    query = dpkt.dns.DNS(app.mdns_query("_ipp._tcp.local", unicast_response=True))
    assert query.qd[0].cls == 0x8001 and query.qd[0].type == 12


def test_llmnr_query_and_response():
    q = dpkt.dns.DNS(app.llmnr_query(0x3C01, "WS-SALES-02"))
    assert (q.qr, q.rd, q.qd[0].name) == (0, 0, "WS-SALES-02")
    r = dpkt.dns.DNS(app.llmnr_response(0x3C01, "WS-SALES-02", "10.0.0.22"))
    assert (r.id, r.qr, len(r.qd), r.an[0].name, r.an[0].ip) == (
        0x3C01, 1, 1, "WS-SALES-02", bytes([10, 0, 0, 22]))
    r6 = dpkt.dns.DNS(app.llmnr_response(1, "WS-SALES-02", "fe80::22"))
    assert r6.an[0].type == dpkt.dns.DNS_AAAA


def test_netbios_first_level_encoding():
    # RFC 1001 14.1's own example; the 16th byte (here a space) is the suffix
    assert app.netbios_name("FRED", 0x20)[1:33] == b"EGFCEFEECACACACACACACACACACACACA"
    encoded = app.netbios_name("ws-acct-01")
    assert encoded[0] == 32 and encoded[-1] == 0 and len(encoded) == 34
    assert dpkt.netbios.decode_name(encoded[1:33].decode()).rstrip() == "WS-ACCT-01"


def test_nbns_registration_and_query_response():
    reg = dpkt.netbios.NS(app.nbns_registration(0x8015, "WS-ACCT-01", "10.0.0.21"))
    assert (reg.op & 0x7800) >> 11 == 5  # opcode: registration
    assert dpkt.netbios.decode_name(reg.qd[0].name).rstrip() == "WS-ACCT-01"
    assert len(reg.ar) == 1 and reg.ar[0].type == 0x20 and reg.ar[0].rdata[2:] == bytes(
        [10, 0, 0, 21])
    resp = dpkt.netbios.NS(app.nbns_query_response(0x9102, "WS-ACCT-01", "10.0.0.21"))
    assert resp.qr == 1 and resp.aa == 1 and resp.an[0].type == 0x20
    assert resp.an[0].rdata == b"\x00\x00" + bytes([10, 0, 0, 21])  # NB_FLAGS, address
    query = dpkt.netbios.NS(app.nbns_query(0x9102, "WS-ACCT-01"))
    assert query.op & 0x0010 and len(query.qd) == 1


def _handshakes(records: bytes) -> list:
    parsed, used = dpkt.ssl.tls_multi_factory(records)
    assert used == len(records)
    return [dpkt.ssl.TLSHandshake(r.data) for r in parsed]


def test_tls_client_hello_carries_sni_alpn_and_ciphers():
    hello = app.tls_client_hello("www.example.com", alpn=["h2", "http/1.1"])
    assert hello == app.tls_client_hello("www.example.com", alpn=["h2", "http/1.1"])
    record = dpkt.ssl.TLSRecord(hello)
    assert record.type == 22 and record.version == app.TLS10
    (hs,) = _handshakes(hello)
    ch = hs.data
    assert isinstance(ch, dpkt.ssl.TLSClientHello) and ch.version == app.TLS12
    exts = dict(ch.extensions)
    assert exts[0] == b"\x00\x12\x00\x00\x0fwww.example.com"
    assert exts[16] == b"\x00\x0c\x02h2\x08http/1.1"
    assert [c.code for c in ch.ciphersuites][:2] == [0xC02B, 0xC02F]


def test_tls_server_flight_shows_the_certificate_chain():
    leaf = tls.certificate("intranet.corp.example", ["intranet.corp.example", "wiki.corp.example"],
                           issuer_cn="Corp CA", issuer_key_seed=tls.CA_KEY_SEED)
    ca = tls.ca_cert("Corp CA")
    flight = app.tls_server_flight([leaf, ca])
    hello, cert, done = _handshakes(flight)
    assert isinstance(hello.data, dpkt.ssl.TLSServerHello) and hello.data.ciphersuite.code == 0xC02B
    assert cert.type == 11 and cert.data.certificates == [leaf, ca]
    assert done.type == 14 and done.length == 0
    big = tls.record(23, b"x" * 40000)
    assert [len(r.data) for r in dpkt.ssl.tls_multi_factory(big)[0]] == [16384, 16384, 7232]


def test_certificates_are_deterministic_and_verify():
    leaf = tls.certificate("intranet.corp.example", ["intranet.corp.example"],
                           issuer_cn="Corp CA", issuer_key_seed=tls.CA_KEY_SEED)
    assert leaf == tls.certificate("intranet.corp.example", ["intranet.corp.example"],
                                   issuer_cn="Corp CA", issuer_key_seed=tls.CA_KEY_SEED)
    parsed = x509.load_der_x509_certificate(leaf)
    cn = parsed.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    assert cn == "intranet.corp.example"
    san = parsed.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["intranet.corp.example"]
    ca = x509.load_der_x509_certificate(tls.ca_cert("Corp CA"))
    ca.public_key().verify(parsed.signature, parsed.tbs_certificate_bytes,
                           ec.ECDSA(hashes.SHA256()))
    selfie = x509.load_der_x509_certificate(app.self_signed_cert("printer.local",
                                                                 ["printer.local"]))
    assert selfie.issuer == selfie.subject
    selfie.public_key().verify(selfie.signature, selfie.tbs_certificate_bytes,
                               ec.ECDSA(hashes.SHA256()))


def test_http_request_and_response():
    req = dpkt.http.Request(app.http_request("GET", "/", "intranet.corp.example", "Mozilla/5.0 X"))
    assert (req.method, req.uri, req.headers["host"], req.headers["user-agent"]) == (
        "GET", "/", "intranet.corp.example", "Mozilla/5.0 X")
    post = dpkt.http.Request(app.http_request("POST", "/ipp", "p", None, body=b"abc"))
    assert post.body == b"abc" and "user-agent" not in post.headers
    resp = dpkt.http.Response(app.http_response(200, "OK", "nginx/1.24.0", b"<html/>"))
    assert (resp.status, resp.headers["server"], resp.body) == ("200", "nginx/1.24.0", b"<html/>")


def test_ssh_banner():
    assert app.ssh_banner("OpenSSH_9.6p1", "Ubuntu-3ubuntu13") == \
        b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n"
    assert app.ssh_banner() == b"SSH-2.0-OpenSSH_9.6p1\r\n"


def test_dhcp_option_too_long_is_refused():
    with pytest.raises(ValueError, match="at most 255"):
        app.dhcp(app.BOOTREQUEST, 1, MAC, app.DISCOVER, hostname="h" * 300)
