"""NTLMSSP messages ([MS-NLMP] 2.2): NEGOTIATE, CHALLENGE and AUTHENTICATE, wherever they
ride (SMB session setup, HTTP and SMTP authentication, DCE/RPC), found by their signature.

What names a host: the server's CHALLENGE carries its NetBIOS and DNS computer and domain
names in the target information AV pairs (2.2.2.1); the client's AUTHENTICATE carries its
workstation name. Both may carry the sender's Windows version (2.2.2.10).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from . import Malformed, need

SIGNATURE = b"NTLMSSP\x00"
HEADER = struct.Struct("<8sI")  # signature, message type
FIELD = struct.Struct("<HHI")  # length, maximum length, offset (from the signature)
U32 = struct.Struct("<I")
AV = struct.Struct("<HH")  # AvId, AvLen
VERSION = struct.Struct("<BBH3xB")  # major, minor, build, reserved, NTLM revision
NEGOTIATE, CHALLENGE, AUTHENTICATE = 1, 2, 3
UNICODE = 0x00000001  # NTLMSSP_NEGOTIATE_UNICODE
NEGOTIATE_VERSION = 0x02000000
AV_EOL, AV_NB_COMPUTER, AV_NB_DOMAIN, AV_DNS_COMPUTER, AV_DNS_DOMAIN = 0, 1, 2, 3, 4
# where each message keeps its flags, version, and the fields this module reads
FLAGS_AT = {NEGOTIATE: 12, CHALLENGE: 20, AUTHENTICATE: 60}
VERSION_AT = {NEGOTIATE: 32, CHALLENGE: 48, AUTHENTICATE: 64}
TARGET_INFO_AT = 40  # CHALLENGE
DOMAIN_AT, USER_AT, WORKSTATION_AT = 28, 36, 44  # AUTHENTICATE
LM_RESPONSE_AT, NT_RESPONSE_AT = 12, 20  # AUTHENTICATE
SERVER_CHALLENGE_AT, SERVER_CHALLENGE_SIZE = 24, 8  # CHALLENGE
NTLMV1_RESPONSE = 24  # bytes of an NTLMv1 NtChallengeResponse; an NTLMv2 one is longer (2.2.2.8)
MAX_AV_PAIRS = 64


class Ntlm(NamedTuple):
    msg_type: int
    flags: int
    version: tuple[int, int, int] | None  # (major, minor, build) when the sender gave it
    names: dict[int, str]  # CHALLENGE: AV pair id -> name
    workstation: str | None  # AUTHENTICATE
    user: str | None
    domain: str | None
    server_challenge: bytes | None = None  # CHALLENGE
    lm_response: bytes = b""  # AUTHENTICATE
    nt_response: bytes = b""  # AUTHENTICATE

    @property
    def version_text(self) -> str | None:
        """"10.0.19041" (major.minor.build), the numbering Windows and Samba use."""
        return None if self.version is None else "{}.{}.{}".format(*self.version)


def _payload(buf, at: int, unicode: bool) -> str | None:
    """The string a (length, maximum, offset) field points at, None when empty."""
    need("ntlmssp", buf, at, FIELD.size)
    length, _maximum, offset = FIELD.unpack_from(buf, at)
    if not length:
        return None
    need("ntlmssp-payload", buf, offset, length)
    raw = bytes(buf[offset:offset + length])
    return raw.decode("utf-16-le" if unicode else "latin-1", "backslashreplace")


def _bytes(buf, at: int) -> bytes:
    """The bytes a (length, maximum, offset) field points at."""
    need("ntlmssp", buf, at, FIELD.size)
    length, _maximum, offset = FIELD.unpack_from(buf, at)
    need("ntlmssp-payload", buf, offset, length)
    return bytes(buf[offset:offset + length])


def _av_pairs(buf, at: int) -> dict[int, str]:
    need("ntlmssp", buf, at, FIELD.size)
    length, _maximum, offset = FIELD.unpack_from(buf, at)
    need("ntlmssp-target-info", buf, offset, length)
    pos, end, names = offset, offset + length, {}
    for _ in range(MAX_AV_PAIRS):
        if pos + AV.size > end:
            break
        av_id, av_len = AV.unpack_from(buf, pos)
        if av_id == AV_EOL:
            break
        if pos + AV.size + av_len > end:
            raise Malformed("ntlmssp-av", f"pair {av_id} of {av_len} bytes overruns the list")
        if AV_NB_COMPUTER <= av_id <= AV_DNS_DOMAIN:
            names.setdefault(av_id, bytes(buf[pos + AV.size:pos + AV.size + av_len])
                             .decode("utf-16-le", "backslashreplace"))
        pos += AV.size + av_len
    return names


def decode(buf) -> Ntlm | None:
    """The message starting at `buf[0]` (its signature), or None for an unknown type."""
    need("ntlmssp", buf, 0, HEADER.size)
    signature, msg_type = HEADER.unpack_from(buf, 0)
    if signature != SIGNATURE:
        raise Malformed("ntlmssp", "no NTLMSSP signature")
    if msg_type not in FLAGS_AT:
        return None
    need("ntlmssp", buf, FLAGS_AT[msg_type], U32.size)
    flags = U32.unpack_from(buf, FLAGS_AT[msg_type])[0]
    unicode = bool(flags & UNICODE)
    version = None
    if flags & NEGOTIATE_VERSION and len(buf) >= VERSION_AT[msg_type] + VERSION.size:
        major, minor, build, _revision = VERSION.unpack_from(buf, VERSION_AT[msg_type])
        if major:
            version = (major, minor, build)
    if msg_type == CHALLENGE:
        need("ntlmssp", buf, SERVER_CHALLENGE_AT, SERVER_CHALLENGE_SIZE)
        challenge = bytes(buf[SERVER_CHALLENGE_AT:SERVER_CHALLENGE_AT + SERVER_CHALLENGE_SIZE])
        return Ntlm(msg_type, flags, version, _av_pairs(buf, TARGET_INFO_AT), None, None, None, challenge)
    if msg_type == AUTHENTICATE:
        return Ntlm(msg_type, flags, version, {}, _payload(buf, WORKSTATION_AT, unicode),
                    _payload(buf, USER_AT, unicode), _payload(buf, DOMAIN_AT, unicode), None,
                    _bytes(buf, LM_RESPONSE_AT), _bytes(buf, NT_RESPONSE_AT))
    return Ntlm(msg_type, flags, version, {}, None, None, None)


def hashcat_line(auth: Ntlm, server_challenge: bytes) -> str | None:
    """The AUTHENTICATE's challenge-response as hashcat reads it: NetNTLMv2 (mode 5600)
    `user::domain:challenge:NTProofStr:blob`, NetNTLMv1 (mode 5500) `user::domain:lm:nt:challenge`;
    None for an anonymous AUTHENTICATE (no NT response)."""
    nt, user, domain = auth.nt_response, auth.user or "", auth.domain or ""
    if not nt:
        return None
    if len(nt) > NTLMV1_RESPONSE:
        return f"{user}::{domain}:{server_challenge.hex()}:{nt[:16].hex()}:{nt[16:].hex()}"
    return f"{user}::{domain}:{auth.lm_response.hex()}:{nt.hex()}:{server_challenge.hex()}"


def find(data, limit: int = 16) -> list[int]:
    """Offsets of NTLMSSP signatures in `data` (at most `limit`)."""
    out, at = [], 0
    while len(out) < limit:
        at = data.find(SIGNATURE, at)
        if at < 0:
            break
        out.append(at)
        at += len(SIGNATURE)
    return out
