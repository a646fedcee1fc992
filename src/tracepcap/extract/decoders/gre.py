"""GRE (RFC 2784, keys and sequence numbers RFC 2890, PPTP's enhanced GRE RFC 2637 4.1)
and the ERSPAN headers Cisco's port mirroring puts inside it (types I, II and III,
draft-foschiano-erspan-03): what a tunnel or a remote SPAN session carries.

`decode` returns the layer's kind ("gre", "erspan-i", "erspan-ii", "erspan-iii"), its
identity (GRE key, ERSPAN session id, PPTP call id; None without one), and where the
inner frame or packet starts with the ethertype naming it (0x6558: an Ethernet frame).
"""

from __future__ import annotations

import struct

from . import Malformed, need
from .pppoe import PPP_ETHERTYPES, ppp_protocol

GRE = struct.Struct("!HH")  # flags and version, protocol type
WORD = struct.Struct("!I")
CHECKSUM, ROUTING, KEY, SEQUENCE = 0x8000, 0x4000, 0x2000, 0x1000
ACK = 0x0080  # enhanced GRE (version 1) only
VERSION_MASK = 0x0007
ERSPAN_II_III = struct.Struct("!HH")  # version/VLAN, COS/encapsulation/truncated/session id
ERSPAN_III_TAIL = struct.Struct("!IHH")  # timestamp, security group tag, P/FT/hw id/D/Gra/O
ETHERTYPE_ERSPAN, ETHERTYPE_ERSPAN_III, ETHERTYPE_PPP = 0x88BE, 0x22EB, 0x880B
ETHERNET = 0x6558  # transparent Ethernet bridging (RFC 1701)
ERSPAN_II_VERSION, ERSPAN_III_VERSION = 1, 2
ERSPAN_III_FRAME_TYPE_IP = 2  # FT: 0 an Ethernet frame, 2 an IP packet
ERSPAN_III_PLATFORM = 8  # the optional platform-specific subheader when O is set


def _erspan(buf, at: int, version: int) -> tuple[int, int, int]:
    """(session id, inner ethertype, inner offset) of an ERSPAN type II or III header."""
    need("erspan", buf, at, ERSPAN_II_III.size)
    ver_vlan, session_word = ERSPAN_II_III.unpack_from(buf, at)
    if ver_vlan >> 12 != version:
        raise Malformed("erspan", f"version {ver_vlan >> 12} in a type {version + 1} header")
    session = session_word & 0x03FF
    if version == ERSPAN_II_VERSION:
        need("erspan", buf, at, 8)
        return session, ETHERNET, at + 8
    need("erspan", buf, at, 12)
    _stamp, _sgt, word = ERSPAN_III_TAIL.unpack_from(buf, at + 4)
    inner = at + 12 + (ERSPAN_III_PLATFORM if word & 1 else 0)
    need("erspan", buf, inner, 0)
    if (word >> 10) & 0x1F == ERSPAN_III_FRAME_TYPE_IP:
        need("erspan", buf, inner, 1)
        return session, 0x86DD if buf[inner] >> 4 == 6 else 0x0800, inner
    return session, ETHERNET, inner


def decode(buf, at: int) -> tuple[str, int | None, int, int]:
    """Return (kind, identity, inner ethertype (0 when unknown), inner offset)."""
    need("gre", buf, at, GRE.size)
    flags, protocol = GRE.unpack_from(buf, at)
    version = flags & VERSION_MASK
    if version > 1:
        raise Malformed("gre", f"version {version}")
    if flags & ROUTING:  # RFC 2784 2.3: reserved0 bits; RFC 1701 source routes are obsolete
        raise Malformed("gre", "source routing present")
    at += GRE.size
    if flags & CHECKSUM:
        at += 4  # checksum and reserved1
    key = None
    if flags & KEY:
        need("gre", buf, at, WORD.size)
        key = WORD.unpack_from(buf, at)[0]
        if version == 1:
            key &= 0xFFFF  # enhanced GRE: payload length (16 bits), then the call id
        at += WORD.size
    if flags & SEQUENCE:
        at += 4
    if version == 1 and flags & ACK:
        at += 4
    need("gre", buf, at, 0)
    if protocol == ETHERTYPE_ERSPAN:
        if not flags & SEQUENCE:  # type I: no ERSPAN header, the mirrored frame follows
            return "erspan-i", None, ETHERNET, at
        session, inner_type, at = _erspan(buf, at, ERSPAN_II_VERSION)
        return "erspan-ii", session, inner_type, at
    if protocol == ETHERTYPE_ERSPAN_III:
        session, inner_type, at = _erspan(buf, at, ERSPAN_III_VERSION)
        return "erspan-iii", session, inner_type, at
    if protocol == ETHERTYPE_PPP:
        ppp, at = ppp_protocol(buf, at)
        return "gre", key, PPP_ETHERTYPES.get(ppp, 0), at
    return "gre", key, protocol, at
