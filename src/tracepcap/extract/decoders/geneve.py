"""Geneve (RFC 8926): a frame or packet in UDP to port 6081, with a 24-bit VNI and
variable-length options; the protocol type names what follows (an ethertype, 0x6558 for
Ethernet)."""

from __future__ import annotations

import struct

from . import need

GENEVE = struct.Struct("!BBHI")  # version/option length, O/C flags, protocol type, VNI + reserved
PORT = 6081  # IANA
VERSION = 0  # RFC 8926 3.4: a receiver must drop packets of an unknown version
ETHERTYPE_TEB = 0x6558  # transparent Ethernet bridging: an Ethernet frame follows


def decode(buf, at: int) -> tuple[int, int, int] | None:
    """Return (VNI, inner protocol type, offset of the inner frame or packet), or None when
    the version is not one we know."""
    need("geneve", buf, at, GENEVE.size)
    ver_len, _flags, protocol, word = GENEVE.unpack_from(buf, at)
    if ver_len >> 6 != VERSION:
        return None
    inner = at + GENEVE.size + (ver_len & 0x3F) * 4  # option length in 4-byte words
    need("geneve-options", buf, at + GENEVE.size, inner - at - GENEVE.size)
    return word >> 8, protocol, inner
