"""Wire builders: link headers, IPv4/IPv6, TCP/UDP/ICMP, ARP, each returning bytes.

Every builder fills its checksum the way a sending stack would (RFC 1071 arithmetic;
pseudo-headers per RFC 793/768 for IPv4 and RFC 8200 section 8.1 for IPv6). Addresses are
text ("00:1b:21:aa:bb:cc", "10.0.0.1", "fe80::1"); ports and numbers are ints.
"""

from __future__ import annotations

import ipaddress
import struct
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ETH_IPV4, ETH_ARP, ETH_IPV6 = 0x0800, 0x0806, 0x86DD
TPID_8021Q, TPID_QINQ = 0x8100, 0x88A8  # IEEE 802.1Q C-tag, 802.1ad S-tag
PROTO_ICMP, PROTO_TCP, PROTO_UDP, PROTO_ICMPV6 = 1, 6, 17, 58
EXT_HOP_BY_HOP, EXT_ROUTING, EXT_FRAGMENT, EXT_DEST_OPTS = 0, 43, 44, 60
AF_INET = 2
AF_INET6_BSD, AF_INET6_FREEBSD, AF_INET6_DARWIN = 24, 28, 30  # DLT_NULL differs per BSD
ARP_REQUEST, ARP_REPLY = 1, 2
BROADCAST_MAC = "ff:ff:ff:ff:ff:ff"

U16 = struct.Struct("!H")
U32 = struct.Struct("!I")
ETH_ADDRS = struct.Struct("!6s6s")  # destination, source (the type follows any VLAN tags)
VLAN_TAG = struct.Struct("!HH")  # TPID, TCI (PCP 3 bits, DEI 1, VID 12)
SLL = struct.Struct("!HHH8sH")  # packet type, ARPHRD, address length, address, protocol
SLL2 = struct.Struct("!HHIHBB8s")  # protocol, reserved, ifindex, ARPHRD, pkt type, len, addr
NULL_LE, NULL_BE = struct.Struct("<I"), struct.Struct(">I")  # DLT_NULL family, host order
IPV4 = struct.Struct("!BBHHHBBH4s4s")  # ver/ihl, tos, len, id, flags/frag, ttl, proto, sum
IPV6 = struct.Struct("!IHBB16s16s")  # ver/tc/flow, payload length, next header, hop limit
TCP = struct.Struct("!HHIIHHHH")  # ports, seq, ack, offset/flags, window, sum, urgent
UDP = struct.Struct("!HHHH")  # ports, length, checksum
ARP = struct.Struct("!HHBBH6s4s6s4s")  # htype, ptype, hlen, plen, op, sha, spa, tha, tpa
ICMP_ECHO = struct.Struct("!BBHHH")  # type, code, checksum, identifier, sequence
PSEUDO4 = struct.Struct("!4s4sxBH")  # RFC 793: src, dst, zero, protocol, length
PSEUDO6 = struct.Struct("!16s16sI3xB")  # RFC 8200 8.1: src, dst, length, zero, next header

TCP_FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10, "U": 0x20, "E": 0x40,
             "C": 0x80}


def mac_bytes(mac: str) -> bytes:
    """Six bytes from "aa:bb:cc:dd:ee:ff" (or dashes)."""
    raw = bytes.fromhex(mac.replace(":", "").replace("-", ""))
    if len(raw) != 6:
        raise ValueError(f"MAC address must be 6 bytes (got {mac!r})")
    return raw


def ip_bytes(addr: str) -> bytes:
    """4 or 16 bytes from an IPv4 or IPv6 address in text form."""
    return ipaddress.ip_address(addr).packed


def is_ipv6(addr: str) -> bool:
    return ipaddress.ip_address(addr).version == 6


def multicast_mac(addr: str) -> str:
    """The Ethernet group address an IP multicast or broadcast address maps to."""
    ip = ipaddress.ip_address(addr)
    if ip.version == 6:  # RFC 2464 section 7: 33:33 + low 32 bits
        return "33:33:" + ":".join(f"{b:02x}" for b in ip.packed[-4:])
    if ip.is_multicast:  # RFC 1112 section 6.4: 01:00:5e + low 23 bits
        low = ip.packed[1:]
        return "01:00:5e:" + ":".join(f"{b:02x}" for b in (low[0] & 0x7F, low[1], low[2]))
    return BROADCAST_MAC


def checksum(data: bytes) -> int:
    """RFC 1071 Internet checksum of `data` (odd lengths padded with a zero byte)."""
    if len(data) % 2:
        data += b"\x00"
    total = sum(memoryview(data).cast("H"))  # native order; RFC 1071 2(B): swap at the end
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    value = ~total & 0xFFFF
    return value if sys.byteorder == "big" else ((value >> 8) | (value & 0xFF) << 8)


def pseudo_header(src_ip: str, dst_ip: str, proto: int, length: int) -> bytes:
    """The IPv4 or IPv6 pseudo-header that TCP, UDP and ICMPv6 checksums cover."""
    if is_ipv6(src_ip):
        return PSEUDO6.pack(ip_bytes(src_ip), ip_bytes(dst_ip), length, proto)
    return PSEUDO4.pack(ip_bytes(src_ip), ip_bytes(dst_ip), proto, length)


def _with_sum(data: bytes, at: int, value: int) -> bytes:
    return data[:at] + U16.pack(value) + data[at + 2:]


# --- link layer -------------------------------------------------------------------------

def ethernet(src_mac: str, dst_mac: str, ethertype: int, payload: bytes,
             vlans: Sequence[int | tuple[int, int]] = (), pad: bool = False) -> bytes:
    """An Ethernet II frame, outermost VLAN tag first.

    A tag is (tpid, vid) or a bare vid; a bare vid is an 802.1Q C-tag, except the outer tag
    of a stack (QinQ), which is an 802.1ad S-tag (TPID 0x88a8). `pad` fills short frames
    to the 60-byte minimum as a NIC does on the wire (IEEE 802.3 clause 3.2.8).
    """
    tags = b""
    for i, tag in enumerate(vlans):
        if isinstance(tag, int):
            tag = (TPID_QINQ if i == 0 and len(vlans) > 1 else TPID_8021Q, tag)
        tags += VLAN_TAG.pack(tag[0], tag[1] & 0x0FFF)
    frame = ETH_ADDRS.pack(mac_bytes(dst_mac), mac_bytes(src_mac)) + tags
    frame += U16.pack(ethertype) + payload
    return frame + b"\x00" * (60 - len(frame)) if pad and len(frame) < 60 else frame


def linux_sll(src_mac: str, protocol: int, payload: bytes, pkttype: int = 0,
              hatype: int = 1) -> bytes:
    """LINKTYPE_LINUX_SLL (113) cooked header; pkttype 0 = to us, 4 = sent by us."""
    return SLL.pack(pkttype, hatype, 6, mac_bytes(src_mac), protocol) + payload


def linux_sll2(src_mac: str, protocol: int, payload: bytes, ifindex: int = 1,
               pkttype: int = 0, hatype: int = 1) -> bytes:
    """LINKTYPE_LINUX_SLL2 (276) cooked header, which adds the interface index."""
    return SLL2.pack(protocol, 0, ifindex, hatype, pkttype, 6, mac_bytes(src_mac)) + payload


def bsd_null(family: int, payload: bytes, big_endian: bool = False) -> bytes:
    """LINKTYPE_NULL (0) loopback header: the address family in the writer's byte order."""
    return (NULL_BE if big_endian else NULL_LE).pack(family) + payload


def arp(op: int, sender_mac: str, sender_ip: str, target_mac: str, target_ip: str) -> bytes:
    """An ARP payload for Ethernet/IPv4 (RFC 826); op 1 request, 2 reply."""
    return ARP.pack(1, ETH_IPV4, 6, 4, op, mac_bytes(sender_mac), ip_bytes(sender_ip),
                    mac_bytes(target_mac), ip_bytes(target_ip))


# --- network layer ----------------------------------------------------------------------

def ipv4(src: str, dst: str, proto: int, payload: bytes, ttl: int = 64, ident: int = 0,
         df: bool = True, frag_offset: int = 0, more_fragments: bool = False, tos: int = 0,
         options: bytes = b"") -> bytes:
    """An IPv4 packet (RFC 791) with its header checksum; `frag_offset` is in bytes."""
    if frag_offset % 8:
        raise ValueError(f"fragment offset must be a multiple of 8 bytes (got {frag_offset})")
    options += b"\x00" * (-len(options) % 4)
    flags = (0x4000 if df else 0) | (0x2000 if more_fragments else 0) | frag_offset // 8
    header = IPV4.pack(0x40 | (20 + len(options)) // 4, tos, 20 + len(options) + len(payload),
                       ident & 0xFFFF, flags, ttl, proto, 0, ip_bytes(src), ip_bytes(dst))
    header += options
    return _with_sum(header, 10, checksum(header)) + payload


def ipv4_fragments(src: str, dst: str, proto: int, l4_bytes: bytes, mtu_payload: int,
                   ttl: int = 64, ident: int = 0) -> list[bytes]:
    """`l4_bytes` cut into IPv4 fragments of at most `mtu_payload` data bytes each.

    Every fragment but the last carries a multiple of 8 bytes (RFC 791 offsets count
    8-byte units) and sets More Fragments; DF is clear, as fragmentation requires.
    """
    size = mtu_payload - mtu_payload % 8
    if size < 8:
        raise ValueError(f"fragment payload must hold at least 8 bytes (got {mtu_payload})")
    offsets = range(0, max(len(l4_bytes), 1), size)
    return [ipv4(src, dst, proto, l4_bytes[at:at + size], ttl=ttl, ident=ident, df=False,
                 frag_offset=at, more_fragments=at + size < len(l4_bytes)) for at in offsets]


@dataclass(frozen=True)
class ExtHeader:
    """One IPv6 extension header: its protocol number and its bytes after Next Header."""

    kind: int
    body: bytes

    def encode(self, next_header: int) -> bytes:
        return bytes([next_header]) + self.body


def _option_area(options: bytes) -> bytes:
    """Length byte plus options padded to 8n bytes with Pad1/PadN (RFC 8200 section 4.2)."""
    pad = -(2 + len(options)) % 8
    if pad == 1:
        options += b"\x00"
    elif pad:
        options += bytes([1, pad - 2]) + bytes(pad - 2)
    return bytes([(2 + len(options)) // 8 - 1]) + options


def router_alert(value: int = 0) -> bytes:
    """The Router Alert hop-by-hop option (RFC 2711); 0 means MLD, as MLD reports carry."""
    return bytes([5, 2]) + U16.pack(value)


def hop_by_hop(options: bytes = b"") -> ExtHeader:
    return ExtHeader(EXT_HOP_BY_HOP, _option_area(options))


def destination_options(options: bytes = b"") -> ExtHeader:
    return ExtHeader(EXT_DEST_OPTS, _option_area(options))


def routing(addresses: Iterable[str], routing_type: int = 2,
            segments_left: int | None = None) -> ExtHeader:
    """A type 0/2 layout routing header (RFC 8200 4.4, RFC 6275 6.4): reserved word, then
    addresses. Upper-layer checksums then use the final address (RFC 8200 8.1)."""
    addrs = [ip_bytes(a) for a in addresses]
    left = len(addrs) if segments_left is None else segments_left
    return ExtHeader(EXT_ROUTING, bytes([2 * len(addrs), routing_type, left]) + bytes(4)
                     + b"".join(addrs))


def fragment(offset: int, more: bool, ident: int) -> ExtHeader:
    """The IPv6 Fragment header (RFC 8200 4.5); `offset` in bytes, a multiple of 8."""
    if offset % 8:
        raise ValueError(f"fragment offset must be a multiple of 8 bytes (got {offset})")
    return ExtHeader(EXT_FRAGMENT, b"\x00" + U16.pack(offset | int(more)) + U32.pack(ident))


def ipv6(src: str, dst: str, next_header: int, payload: bytes, hop_limit: int = 64,
         ext_headers: Sequence[ExtHeader] = (), traffic_class: int = 0,
         flow_label: int = 0) -> bytes:
    """An IPv6 packet (RFC 8200): the extension headers chained in the given order."""
    chain, nh = b"", next_header
    for ext in reversed(ext_headers):
        chain, nh = ext.encode(nh) + chain, ext.kind
    first = 6 << 28 | (traffic_class & 0xFF) << 20 | (flow_label & 0xFFFFF)
    return IPV6.pack(first, len(chain) + len(payload), nh, hop_limit, ip_bytes(src),
                     ip_bytes(dst)) + chain + payload


# --- transport layer --------------------------------------------------------------------

TCP_OPTION_ALIASES = {"SACK_PERM": "SACK", "SOK": "SACK", "WSCALE": "WS"}


def tcp_options(mss: int | None = None, wscale: int | None = None, sack_ok: bool = False,
                timestamps: tuple[int, int] | None = None,
                order: Sequence[str] | None = None) -> bytes:
    """TCP option bytes (RFC 9293, 7323, 2018) laid out in `order`, padded to 4n with EOL.

    Tokens: MSS, WS, SACK (alias SACK_PERM), TS, NOP, EOL. The order is what OS
    fingerprints read, so it is the caller's; by default: MSS, SACK, TS, NOP, WS.
    """
    if order is None:
        order = [tok for tok, present in (("MSS", mss is not None), ("SACK", sack_ok),
                                          ("TS", timestamps is not None),
                                          ("NOP", wscale is not None), ("WS", wscale is not None))
                 if present]
    out = b""
    for token in order:
        token = TCP_OPTION_ALIASES.get(token.upper(), token.upper())
        if token == "NOP":
            out += b"\x01"
        elif token == "EOL":
            out += b"\x00"
        elif token == "SACK":
            out += b"\x04\x02"
        elif token == "MSS" and mss is not None:
            out += b"\x02\x04" + U16.pack(mss)
        elif token == "WS" and wscale is not None:
            out += bytes([3, 3, wscale])
        elif token == "TS" and timestamps is not None:
            out += b"\x08\x0a" + U32.pack(timestamps[0]) + U32.pack(timestamps[1])
        else:
            raise ValueError(f"TCP option {token!r} is in the order but has no value")
    return out + b"\x00" * (-len(out) % 4)


def tcp(src_ip: str, dst_ip: str, sport: int, dport: int, seq: int, ack: int, flags: str,
        payload: bytes = b"", window: int = 65535, options: bytes = b"",
        urgent: int = 0) -> bytes:
    """A TCP segment with its checksum; `flags` are letters, e.g. "S", "SA", "PA", "FA", "R"."""
    try:
        bits = sum(TCP_FLAGS[c] for c in set(flags.upper()))
    except KeyError as err:
        raise ValueError(f"TCP flags must be letters from FSRPAUEC (got {flags!r})") from err
    options += b"\x00" * (-len(options) % 4)
    segment = TCP.pack(sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                       (20 + len(options)) // 4 << 12 | bits, window, 0, urgent)
    segment += options + payload
    pseudo = pseudo_header(src_ip, dst_ip, PROTO_TCP, len(segment))
    return _with_sum(segment, 16, checksum(pseudo + segment))


def udp(src_ip: str, dst_ip: str, sport: int, dport: int, payload: bytes) -> bytes:
    """A UDP datagram with its checksum (RFC 768)."""
    datagram = UDP.pack(sport, dport, 8 + len(payload), 0) + payload
    value = checksum(pseudo_header(src_ip, dst_ip, PROTO_UDP, len(datagram)) + datagram)
    return _with_sum(datagram, 6, value or 0xFFFF)  # a computed 0 is sent as all ones


def icmp_echo(ident: int, seq: int, payload: bytes = b"", reply: bool = False,
              src_ip: str | None = None, dst_ip: str | None = None) -> bytes:
    """An ICMP echo request/reply (RFC 792); ICMPv6 (RFC 4443) when the IPs are IPv6,
    whose checksum covers the pseudo-header."""
    v6 = src_ip is not None and is_ipv6(src_ip)
    kind = (129 if reply else 128) if v6 else (0 if reply else 8)
    message = ICMP_ECHO.pack(kind, 0, 0, ident, seq) + payload
    covered = pseudo_header(src_ip, dst_ip, PROTO_ICMPV6, len(message)) if v6 else b""
    return _with_sum(message, 2, checksum(covered + message))
