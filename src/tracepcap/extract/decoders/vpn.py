"""VPN handshakes recognised by their shape: WireGuard (whitepaper 5.4: fixed-size
handshake messages with three zero reserved bytes), OpenVPN (openvpn's ssl_pkt.h: the
opcode in the top five bits of the first byte, hard resets open a session), IKE (RFC 7296
3.1 and RFC 2408 3.1: a 28-byte header whose length field is the message's), ESP (RFC 4303
2: SPI and sequence number) and L2TP (RFC 2661 3.1, RFC 3931 4.1.2.1: flags and version).

Each function returns None when the bytes do not have the protocol's shape, so a caller
may try them on any datagram; it raises Truncated only where the shape was already met.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from . import need

WG_INITIATION, WG_RESPONSE = 1, 2
WG_SIZES = {WG_INITIATION: 148, WG_RESPONSE: 92}  # exact message lengths
WG_HEADER = struct.Struct("<B3sI")  # type, reserved (zero), sender index
OVPN_HARD_RESETS = {1: "client", 2: "server", 7: "client", 8: "server", 10: "client"}  # opcodes
OVPN_MIN = 14  # opcode/key id, session id (8), ack array length (1), packet id (4)
IKE_HEADER = struct.Struct("!8s8sBBBBII")  # SPIi, SPIr, next payload, version, exchange,
#                                            flags, message id, length
IKE_VERSIONS = {0x10: 1, 0x20: 2}  # major version in the high nibble
IKE_INITIATOR = 0x08  # IKEv2 flags: sent by the original initiator
NON_ESP_MARKER = b"\x00\x00\x00\x00"  # RFC 3948 2.2: IKE on udp/4500 starts with it
ESP = struct.Struct("!II")  # SPI, sequence number
L2TP = struct.Struct("!H")  # T, L, S, O, P flags and version
L2TP_CONTROL = 0x8000


class Handshake(NamedTuple):
    protocol: str  # "wireguard", "openvpn", "ike", "esp", "l2tp"
    detail: str  # "initiation", "v2 IKE_SA_INIT", "spi 0x0000abcd", ...
    initiator: bool | None  # the sender opened it (None: the message does not say)


def wireguard(buf) -> Handshake | None:
    if len(buf) not in WG_SIZES.values() or buf[0] not in WG_SIZES:
        return None
    kind, reserved, _sender = WG_HEADER.unpack_from(buf, 0)
    if reserved != b"\x00\x00\x00" or WG_SIZES[kind] != len(buf):
        return None
    first = kind == WG_INITIATION
    return Handshake("wireguard", "initiation" if first else "response", first)


def openvpn(buf) -> Handshake | None:
    """A UDP OpenVPN hard reset (the opening of a session); other opcodes give None."""
    if len(buf) < 1 or buf[0] & 0x07 or (buf[0] >> 3) not in OVPN_HARD_RESETS:
        return None
    need("openvpn", buf, 0, OVPN_MIN)
    side = OVPN_HARD_RESETS[buf[0] >> 3]
    return Handshake("openvpn", f"hard reset {side}", side == "client")


IKE_EXCHANGES = {(2, 34): "IKE_SA_INIT", (2, 35): "IKE_AUTH", (2, 36): "CREATE_CHILD_SA",
                 (2, 37): "INFORMATIONAL", (1, 2): "main mode", (1, 4): "aggressive mode",
                 (1, 5): "informational", (1, 32): "quick mode"}


def ike(buf, natt: bool = False) -> Handshake | None:
    """An IKE message on udp/500, or with `natt` one on udp/4500 after its non-ESP marker."""
    if natt:
        if bytes(buf[:4]) != NON_ESP_MARKER:
            return None
        buf = buf[4:]
    if len(buf) < IKE_HEADER.size:
        return None
    _spi_i, _spi_r, _next, version, exchange, flags, _mid, length = IKE_HEADER.unpack_from(buf, 0)
    major = IKE_VERSIONS.get(version & 0xF0)
    if major is None or length != len(buf) or (major, exchange) not in IKE_EXCHANGES:
        return None
    initiator = bool(flags & IKE_INITIATOR) if major == 2 else None
    return Handshake("ike", f"v{major} {IKE_EXCHANGES[(major, exchange)]}", initiator)


def esp(buf) -> Handshake | None:
    """ESP (IP protocol 50, or in udp/4500 with a non-zero first word): its SPI."""
    need("esp", buf, 0, ESP.size)
    spi, _seq = ESP.unpack_from(buf, 0)
    if spi == 0 or spi < 256:  # RFC 4303 2.1: 1..255 reserved, 0 is the non-ESP marker
        return None
    return Handshake("esp", f"spi 0x{spi:08x}", None)


def l2tp(buf) -> Handshake | None:
    """An L2TPv2 or v3 message on udp/1701."""
    if len(buf) < L2TP.size:
        return None
    flags = L2TP.unpack_from(buf, 0)[0]
    version = flags & 0x000F
    if version not in (2, 3):
        return None
    kind = "control" if flags & L2TP_CONTROL else "data"
    return Handshake("l2tp", f"v{version} {kind}", None)
