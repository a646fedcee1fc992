"""Windows authentication and file-sharing messages: NTLMSSP ([MS-NLMP] 2.2), SMB1
SESSION_SETUP_ANDX ([MS-CIFS] 2.2.4.53, [MS-SMB] 2.2.4.6) and an SMB2 SESSION_SETUP
([MS-SMB2] 2.2.5) in NetBIOS session framing, and Kerberos AS/TGS exchanges (RFC 4120,
DER encoded; over TCP with their 4-byte length, `krb_tcp`).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from tracepcap.testing import asn1

NTLM_SIGNATURE = b"NTLMSSP\x00"
UNICODE, NEGOTIATE_NTLM, NEGOTIATE_VERSION = 0x00000001, 0x00000200, 0x02000000
TARGET_INFO = 0x00800000
AV_NB_COMPUTER, AV_NB_DOMAIN, AV_DNS_COMPUTER, AV_DNS_DOMAIN, AV_TIMESTAMP = 1, 2, 3, 4, 7
FLAGS2_UNICODE, FLAGS2_EXTENDED_SECURITY = 0x8000, 0x0800
KRB_NT_PRINCIPAL, KRB_NT_SRV_INST = 1, 2
AS_REQ, AS_REP, TGS_REQ, TGS_REP = 10, 11, 12, 13


def _version(version: tuple[int, int, int] | None) -> bytes:
    if version is None:
        return bytes(8)
    major, minor, build = version
    return struct.pack("<BBH3xB", major, minor, build, 15)


def _field(length: int, offset: int) -> bytes:
    return struct.pack("<HHI", length, length, offset)


def _utf16(text: str | None) -> bytes:
    return (text or "").encode("utf-16-le")


def ntlm_negotiate(version: tuple[int, int, int] | None = (10, 0, 19041)) -> bytes:
    flags = UNICODE | NEGOTIATE_NTLM | (NEGOTIATE_VERSION if version else 0)
    return (NTLM_SIGNATURE + struct.pack("<II", 1, flags) + _field(0, 40) + _field(0, 40)
            + _version(version))


def ntlm_challenge(nb_computer: str, nb_domain: str, dns_computer: str | None = None,
                   dns_domain: str | None = None,
                   version: tuple[int, int, int] | None = (10, 0, 17763),
                   server_challenge: bytes = b"\x11" * 8) -> bytes:
    """A server's CHALLENGE: target name (the NetBIOS domain) and target information AV
    pairs with the computer and domain names, ending in MsvAvEOL."""
    pairs = [(AV_NB_DOMAIN, nb_domain), (AV_NB_COMPUTER, nb_computer)]
    if dns_domain:
        pairs.append((AV_DNS_DOMAIN, dns_domain))
    if dns_computer:
        pairs.append((AV_DNS_COMPUTER, dns_computer))
    info = b"".join(struct.pack("<HH", kind, len(_utf16(v))) + _utf16(v) for kind, v in pairs)
    info += struct.pack("<HH", AV_TIMESTAMP, 8) + bytes(8) + struct.pack("<HH", 0, 0)
    target = _utf16(nb_domain)
    flags = UNICODE | NEGOTIATE_NTLM | TARGET_INFO | (NEGOTIATE_VERSION if version else 0)
    head = 56
    return (NTLM_SIGNATURE + struct.pack("<I", 2) + _field(len(target), head)
            + struct.pack("<I", flags) + server_challenge + bytes(8)
            + _field(len(info), head + len(target)) + _version(version) + target + info)


NTLMV2_RESPONSE = (b"\x22" * 16 + b"\x01\x01" + bytes(6) + bytes(8) + b"\x33" * 8 + bytes(4)
                   + struct.pack("<HH", 0, 0) + bytes(4))


def ntlm_authenticate(user: str, domain: str, workstation: str,
                      version: tuple[int, int, int] | None = (10, 0, 19041),
                      nt: bytes = NTLMV2_RESPONSE, lm: bytes = bytes(24)) -> bytes:
    """A client's AUTHENTICATE with an NTLMv2-shaped (random-looking) response by default, or
    the `nt` and `lm` responses given (24 bytes each for NTLMv1)."""
    flags = UNICODE | NEGOTIATE_NTLM | (NEGOTIATE_VERSION if version else 0)
    # NTLMv2 response ([MS-NLMP] 2.2.2.8): NTProofStr, then the client's blob with its
    # timestamp, client challenge and an AV pair list holding only MsvAvEOL
    payload = [lm, nt, _utf16(domain), _utf16(user), _utf16(workstation), b""]
    at, fields = 88, b""
    for part in payload:
        fields += _field(len(part), at)
        at += len(part)
    return (NTLM_SIGNATURE + struct.pack("<I", 3) + fields + struct.pack("<I", flags)
            + _version(version) + bytes(16) + b"".join(payload))


def nbss(message: bytes) -> bytes:
    """A NetBIOS session message (RFC 1002 4.3.6) around an SMB message."""
    return struct.pack("!BBH", 0, len(message) >> 16, len(message) & 0xFFFF) + message


def _smb1_header(reply: bool, unicode: bool, extended: bool, mid: int) -> bytes:
    flags2 = 0x0003 | (FLAGS2_UNICODE if unicode else 0) | (FLAGS2_EXTENDED_SECURITY if extended else 0)
    return struct.pack("<4sBIBHH8sHHHHH", b"\xffSMB", 0x73, 0, 0x98 if reply else 0x18, flags2,
                       0, bytes(8), 0, 0, 0xFEFF, 0x0800 if reply else 0, mid)


def _smb1_strings(offset: int, strings: Sequence[str], unicode: bool) -> bytes:
    """NUL-terminated strings written at `offset` from the SMB header, Unicode ones after
    a pad byte when the offset is odd ([MS-CIFS] 2.2.1.1)."""
    if not unicode:
        return b"".join(s.encode("latin-1") + b"\x00" for s in strings)
    pad = b"\x00" if offset % 2 else b""
    return pad + b"".join(s.encode("utf-16-le") + b"\x00\x00" for s in strings)


def smb1_session_setup_request(native_os: str, native_lanman: str, *, blob: bytes | None = None,
                               account: str = "alice", domain: str = "CORP",
                               unicode: bool = True, mid: int = 2) -> bytes:
    """A SESSION_SETUP_ANDX request in NBSS framing: with `blob` the extended-security form
    (word count 12), else the NT LM 0.12 form with passwords (word count 13)."""
    header = _smb1_header(False, unicode, blob is not None, mid)
    if blob is not None:
        words = struct.pack("<BBHHHHIHII", 0xFF, 0, 0, 16644, 50, 0, 0, len(blob), 0, 0x800000D4)
        lead = blob
        strings = [native_os, native_lanman, ""]
    else:
        lead = bytes(24) + bytes(24)  # OEM and Unicode password responses
        words = struct.pack("<BBHHHHIHHII", 0xFF, 0, 0, 16644, 50, 0, 0, 24, 24, 0, 0x000000D4)
        strings = [account, domain, native_os, native_lanman]
    offset = len(header) + 1 + len(words) + 2 + len(lead)
    data = lead + _smb1_strings(offset, strings, unicode)
    return nbss(header + bytes([len(words) // 2]) + words + struct.pack("<H", len(data)) + data)


def smb1_session_setup_response(native_os: str, native_lanman: str, domain: str = "CORP", *,
                                blob: bytes | None = None, unicode: bool = True,
                                mid: int = 2) -> bytes:
    """A SESSION_SETUP_ANDX response: word count 4 with a security blob, else 3."""
    header = _smb1_header(True, unicode, blob is not None, mid)
    if blob is not None:
        words = struct.pack("<BBHHH", 0xFF, 0, 0, 0, len(blob))
    else:
        words, blob = struct.pack("<BBHH", 0xFF, 0, 0, 0), b""
    offset = len(header) + 1 + len(words) + 2 + len(blob)
    data = blob + _smb1_strings(offset, [native_os, native_lanman, domain], unicode)
    return nbss(header + bytes([len(words) // 2]) + words + struct.pack("<H", len(data)) + data)


def smb2_session_setup(blob: bytes, reply: bool = False, message_id: int = 1) -> bytes:
    """An SMB2 SESSION_SETUP request or response holding a security buffer, in NBSS."""
    header = struct.pack("<4sHHIHHIIQIIQ16s", b"\xfeSMB", 64, 1, 0xC0000016 if reply else 0, 1,
                         1, 1 if reply else 0, 0, message_id, 0xFEFF, 0,
                         0x1000000000001 if reply else 0, bytes(16))
    if reply:
        body = struct.pack("<HHHH", 9, 0, 64 + 8, len(blob))
    else:
        body = struct.pack("<HBBIIHHQ", 25, 0, 1, 1, 0, 64 + 24, len(blob), 0)
    return nbss(header + body + blob)


def spnego(ntlm: bytes, response: bool = False) -> bytes:
    """NTLMSSP wrapped as Windows sends it in SMB and HTTP "Negotiate" (RFC 4178): a
    NegTokenInit inside the GSS-API header, or a NegTokenResp (accept-incomplete)."""
    mech = asn1.oid("1.3.6.1.4.1.311.2.2.10")
    if response:
        return asn1.context(1, asn1.sequence(asn1.context(0, asn1.tlv(0x0A, b"\x01")),
                                             asn1.context(1, mech), asn1.context(2, asn1.octets(ntlm))))
    return asn1.application(0, asn1.oid("1.3.6.1.5.5.2"),
                            asn1.context(0, asn1.sequence(asn1.context(0, asn1.sequence(mech)),
                                                          asn1.context(2, asn1.octets(ntlm)))))


# --- Kerberos --------------------------------------------------------------------------

def _principal(name: str, name_type: int = KRB_NT_PRINCIPAL) -> bytes:
    return asn1.sequence(asn1.context(0, asn1.integer(name_type)),
                         asn1.context(1, asn1.sequence(*(asn1.general_string(p)
                                                         for p in name.split("/")))))


def _time(text: str = "20370913024805Z") -> bytes:
    return asn1.tlv(asn1.GENERALIZED_TIME, text.encode())


def _encrypted(etype: int = 18, size: int = 64) -> bytes:
    return asn1.sequence(asn1.context(0, asn1.integer(etype)), asn1.context(2, asn1.octets(b"\x5a" * size)))


def _req_body(realm: str, sname: str, cname: str | None) -> bytes:
    fields = [asn1.context(0, asn1.tlv(asn1.BIT_STRING, b"\x00\x40\x81\x00\x10"))]
    if cname is not None:
        fields.append(asn1.context(1, _principal(cname)))
    fields += [asn1.context(2, asn1.general_string(realm)),
               asn1.context(3, _principal(sname, KRB_NT_SRV_INST)),
               asn1.context(5, _time()), asn1.context(7, asn1.integer(0x1234567)),
               asn1.context(8, asn1.sequence(asn1.integer(18), asn1.integer(17), asn1.integer(23)))]
    return asn1.sequence(*fields)


def krb_as_req(cname: str, realm: str, sname: str | None = None,
               pre_auth: tuple[int, bytes] | None = None) -> bytes:
    """An AS-REQ from `cname` for krbtgt/REALM (or `sname`), without pre-authentication, or
    with a PA-ENC-TIMESTAMP of `pre_auth` (etype, cipher) and a PA-PAC-REQUEST before it."""
    body = _req_body(realm, sname or f"krbtgt/{realm}", cname)
    fields = [asn1.context(1, asn1.integer(5)), asn1.context(2, asn1.integer(AS_REQ))]
    if pre_auth is not None:
        etype, cipher = pre_auth
        encrypted = asn1.sequence(asn1.context(0, asn1.integer(etype)), asn1.context(2, asn1.octets(cipher)))
        pac = asn1.sequence(asn1.context(0, asn1.tlv(0x01, b"\xff")))  # KERB-PA-PAC-REQUEST include-pac TRUE
        fields.append(asn1.context(3, asn1.sequence(
            asn1.sequence(asn1.context(1, asn1.integer(128)), asn1.context(2, asn1.octets(pac))),
            asn1.sequence(asn1.context(1, asn1.integer(2)), asn1.context(2, asn1.octets(encrypted))))))
    fields.append(asn1.context(4, body))
    return asn1.application(AS_REQ, asn1.sequence(*fields))


def krb_tgs_req(sname: str, realm: str) -> bytes:
    """A TGS-REQ for `sname`: its AP-REQ in padata, no cname in the body (RFC 4120 5.4.1)."""
    ap_req = asn1.application(14, asn1.sequence(asn1.context(0, asn1.integer(5)),
                                                asn1.context(1, asn1.integer(14))))
    padata = asn1.sequence(asn1.sequence(asn1.context(1, asn1.integer(1)),
                                         asn1.context(2, asn1.octets(ap_req))))
    return asn1.application(TGS_REQ, asn1.sequence(
        asn1.context(1, asn1.integer(5)), asn1.context(2, asn1.integer(TGS_REQ)),
        asn1.context(3, padata), asn1.context(4, _req_body(realm, sname, None))))


def krb_rep(msg_type: int, cname: str, realm: str, sname: str) -> bytes:
    """An AS-REP (11) or TGS-REP (13) to `cname`, with a ticket for `sname`."""
    ticket = asn1.application(1, asn1.sequence(asn1.context(0, asn1.integer(5)),
                                               asn1.context(1, asn1.general_string(realm)),
                                               asn1.context(2, _principal(sname, KRB_NT_SRV_INST)),
                                               asn1.context(3, _encrypted())))
    return asn1.application(msg_type, asn1.sequence(
        asn1.context(0, asn1.integer(5)), asn1.context(1, asn1.integer(msg_type)),
        asn1.context(3, asn1.general_string(realm)), asn1.context(4, _principal(cname)),
        asn1.context(5, ticket), asn1.context(6, _encrypted())))


# --- LDAP ------------------------------------------------------------------------------

def ldap_simple_bind(message_id: int, dn: str, password: str) -> bytes:
    """An LDAPv3 BindRequest with simple authentication (RFC 4511 4.2), BER encoded."""
    bind = asn1.application(0, asn1.integer(3), asn1.octets(dn), asn1.tlv(0x80, password.encode()))
    return asn1.sequence(asn1.integer(message_id), bind)


def ldap_sasl_bind(message_id: int, mechanism: str, credentials: bytes = b"") -> bytes:
    """An LDAPv3 BindRequest with SASL authentication: no password of its own."""
    sasl = asn1.tlv(0xA3, asn1.octets(mechanism) + (asn1.octets(credentials) if credentials else b""))
    return asn1.sequence(asn1.integer(message_id), asn1.application(0, asn1.integer(3), asn1.octets(""), sasl))


def ldap_search(message_id: int, base: str) -> bytes:
    """An LDAP SearchRequest ([APPLICATION 3]) for `base`, filter (objectClass=*)."""
    search = asn1.application(3, asn1.octets(base), asn1.tlv(0x0A, b"\x00"), asn1.tlv(0x0A, b"\x00"),
                              asn1.integer(0), asn1.integer(0), asn1.tlv(0x01, b"\x00"),
                              asn1.tlv(0x87, b"objectClass"), asn1.sequence())
    return asn1.sequence(asn1.integer(message_id), search)


def krb_tcp(message: bytes) -> bytes:
    """A Kerberos message as sent over TCP: its 4-byte length first (RFC 4120 7.2.2)."""
    return struct.pack("!I", len(message)) + message
