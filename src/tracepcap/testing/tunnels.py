"""Encapsulations, each returning the bytes its carrier holds: VXLAN (RFC 7348) and Geneve
(RFC 8926) UDP payloads, GRE (RFC 2784/2890) with ERSPAN types I-III, GTP-U (3GPP TS
29.281), Teredo (RFC 4380), MPLS label stacks (RFC 3032) and PPPoE sessions (RFC 2516),
plus `over_udp`/`over_ip` to put any of them in an outer IPv4 or IPv6 packet.

    inner = f.ipv4(ue, server, f.PROTO_ICMP, f.icmp_echo(1, 1))
    frame = f.ethernet(gnb_mac, upf_mac, f.ETH_IPV4,
                       over_udp(gnb, upf, 2152, 2152, gtpu(0x1234, inner)))
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from tracepcap.testing import frames as f

VXLAN_PORT, GENEVE_PORT, GTPU_PORT, TEREDO_PORT = 4789, 6081, 2152, 3544
ETHERTYPE_TEB, ETHERTYPE_ERSPAN, ETHERTYPE_ERSPAN_III = 0x6558, 0x88BE, 0x22EB
ETHERTYPE_MPLS, ETHERTYPE_PPPOE_SESSION, ETHERTYPE_PPP = 0x8847, 0x8864, 0x880B
PROTO_IPIP, PROTO_IPV6, PROTO_GRE = 4, 41, 47
PPP_IPV4, PPP_IPV6, PPP_LCP = 0x0021, 0x0057, 0xC021
GTP_G_PDU, GTP_ECHO_REQUEST = 0xFF, 0x01
GRE_CHECKSUM, GRE_KEY, GRE_SEQUENCE = 0x8000, 0x2000, 0x1000
U16, U32 = struct.Struct("!H"), struct.Struct("!I")


def vxlan(vni: int, frame: bytes) -> bytes:
    """A VXLAN header (I flag set) and the inner Ethernet frame."""
    return struct.pack("!B3xI", 0x08, vni << 8) + frame


def geneve(vni: int, payload: bytes, protocol: int = ETHERTYPE_TEB, options: bytes = b"") -> bytes:
    """A Geneve header with `options` (a multiple of 4 bytes) and what follows."""
    if len(options) % 4:
        raise ValueError(f"Geneve options must be a multiple of 4 bytes (got {len(options)})")
    return struct.pack("!BBHI", len(options) // 4, 0, protocol, vni << 8) + options + payload


def geneve_option(option_class: int, option_type: int, data: bytes) -> bytes:
    """One Geneve option TLV (RFC 8926 3.5): class, type, length in 4-byte words."""
    data += b"\x00" * (-len(data) % 4)
    return struct.pack("!HBB", option_class, option_type, len(data) // 4) + data


def gre(protocol: int, payload: bytes, key: int | None = None, sequence: int | None = None,
        checksum: bool = False) -> bytes:
    """A GRE header with the optional checksum, key and sequence fields, and `payload`."""
    flags = (GRE_CHECKSUM if checksum else 0) | (GRE_KEY if key is not None else 0) | (
        GRE_SEQUENCE if sequence is not None else 0)
    header = U16.pack(flags) + U16.pack(protocol)
    tail = (U32.pack(key) if key is not None else b"") + (
        U32.pack(sequence) if sequence is not None else b"")
    if checksum:
        body = header + b"\x00\x00\x00\x00" + tail + payload
        return header + U16.pack(f.checksum(body)) + b"\x00\x00" + tail + payload
    return header + tail + payload


def erspan_i(frame: bytes) -> bytes:
    """ERSPAN type I: GRE with protocol 0x88be, no sequence number, no ERSPAN header."""
    return gre(ETHERTYPE_ERSPAN, frame)


def erspan_ii(session: int, frame: bytes, vlan: int = 0, index: int = 0,
              sequence: int = 0) -> bytes:
    """ERSPAN type II: GRE with a sequence number, then the 8-byte ERSPAN header."""
    header = struct.pack("!HHI", 1 << 12 | vlan, session & 0x3FF, index & 0xFFFFF)
    return gre(ETHERTYPE_ERSPAN, header + frame, sequence=sequence)


def erspan_iii(session: int, payload: bytes, vlan: int = 0, timestamp: int = 0,
               ip_packet: bool = False, platform: bytes | None = None,
               sequence: int = 0) -> bytes:
    """ERSPAN type III: 12-byte header (frame type 0 Ethernet, 2 IP packet), and the 8-byte
    platform-specific subheader when `platform` is given (O flag)."""
    word = (2 if ip_packet else 0) << 10 | (1 if platform is not None else 0)
    header = struct.pack("!HHIHH", 2 << 12 | vlan, session & 0x3FF, timestamp, 0, word)
    if platform is not None:
        if len(platform) != 8:
            raise ValueError(f"the platform subheader is 8 bytes (got {len(platform)})")
        header += platform
    return gre(ETHERTYPE_ERSPAN_III, header + payload, sequence=sequence)


def gtpu(teid: int, packet: bytes, sequence: int | None = None,
         extensions: Sequence[tuple[int, bytes]] = (), msg_type: int = GTP_G_PDU) -> bytes:
    """A GTPv1-U message: flags, type, length, TEID; the optional sequence number and the
    chained extension headers ((type, content), content padded to 4n-2 bytes)."""
    optional = b""
    if sequence is not None or extensions:
        first = extensions[0][0] if extensions else 0
        optional = struct.pack("!HBB", sequence or 0, 0, first)
        for i, (_kind, content) in enumerate(extensions):
            content += b"\x00" * (-(len(content) + 2) % 4)
            following = extensions[i + 1][0] if i + 1 < len(extensions) else 0
            optional += bytes([(len(content) + 2) // 4]) + content + bytes([following])
    flags = 0x30 | (0x04 if extensions else 0) | (0x02 if sequence is not None else 0)
    body = optional + packet
    return struct.pack("!BBHI", flags, msg_type, len(body), teid) + body


def teredo(ipv6_packet: bytes, origin: tuple[str, int] | None = None,
           auth: tuple[bytes, bytes, bytes] | None = None) -> bytes:
    """A Teredo datagram: the optional authentication indicator (client id, value, 8-byte
    nonce) and origin indication (address and port, bits inverted), then IPv6."""
    out = b""
    if auth is not None:
        client, value, nonce = auth
        out += struct.pack("!HBB", 0x0001, len(client), len(value)) + client + value + nonce + b"\x00"
    if origin is not None:
        addr, port = origin
        out += struct.pack("!HH", 0x0000, port ^ 0xFFFF) + bytes(b ^ 0xFF for b in f.ip_bytes(addr))
    return out + ipv6_packet


def mpls(labels: Sequence[int], payload: bytes, ttl: int = 64, control_word: bool = False) -> bytes:
    """A label stack, outermost first, bottom-of-stack on the last; a pseudowire control
    word (RFC 4385: four zero bytes) before an Ethernet payload when asked."""
    stack = b"".join(U32.pack(label << 12 | (0x100 if i == len(labels) - 1 else 0) | ttl)
                     for i, label in enumerate(labels))
    return stack + (b"\x00\x00\x00\x00" if control_word else b"") + payload


def pppoe_session(session: int, payload: bytes, protocol: int = PPP_IPV4) -> bytes:
    """A PPPoE session-stage packet (version/type 0x11, code 0) carrying one PPP frame."""
    ppp = U16.pack(protocol) + payload
    return struct.pack("!BBHH", 0x11, 0, session, len(ppp)) + ppp


def over_udp(src: str, dst: str, sport: int, dport: int, payload: bytes, ttl: int = 64) -> bytes:
    """An outer IPv4 or IPv6 packet holding a UDP datagram."""
    return over_ip(src, dst, f.PROTO_UDP, f.udp(src, dst, sport, dport, payload), ttl)


def over_ip(src: str, dst: str, proto: int, payload: bytes, ttl: int = 64) -> bytes:
    """An outer IPv4 or IPv6 packet of protocol `proto` (4 IP-in-IP, 41 IPv6, 47 GRE)."""
    if f.is_ipv6(src):
        return f.ipv6(src, dst, proto, payload, hop_limit=ttl)
    return f.ipv4(src, dst, proto, payload, ttl=ttl)
