"""The per-packet hot path: one frame's link, network and transport headers, decoded once.

`decode_frame` turns a frame into a `Packet` that every extractor reads; nothing here looks
at application payloads. Link types follow the tcpdump.org LINKTYPE_ registry.
"""

from __future__ import annotations

import socket

from .decoders import DecodeError, Malformed, ethernet, ipv4, ipv6, sll, tcp, udp

LINKTYPE_NULL, LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LOOP = 0, 1, 101, 108
LINKTYPE_LINUX_SLL, LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL2 = 113, 228, 229, 276
DLT_RAW_ALIASES = (12, 14)  # DLT_RAW as some BSDs numbered it before LINKTYPE_RAW existed
ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_ARP = 0x0800, 0x86DD, 0x0806
NULL_FAMILY_INET = 2
NULL_FAMILY_INET6 = frozenset((10, 24, 28, 30))  # Linux, NetBSD/OpenBSD, FreeBSD, macOS
PROTO_TCP, PROTO_UDP = 6, 17

_ADDR_CACHE: dict[bytes, str] = {}
_ADDR_CACHE_LIMIT = 1 << 18


def addr_text(raw: bytes) -> str:
    """Text form of a 4- or 16-byte address, cached (a capture repeats few addresses)."""
    text = _ADDR_CACHE.get(raw)
    if text is None:
        if len(_ADDR_CACHE) >= _ADDR_CACHE_LIMIT:
            _ADDR_CACHE.clear()
        text = socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, raw)
        _ADDR_CACHE[raw] = text
    return text


class Packet:
    """One decoded frame. Transport fields are 0/None when absent; `payload` is the transport
    payload (or the IP payload of a non-first fragment or an unknown protocol)."""

    __slots__ = ("frame", "ts", "wire_len", "src_mac", "dst_mac", "vlans", "ethertype",
                 "src", "dst", "ttl", "proto", "ip_len", "fragment", "sport", "dport",
                 "flags", "seq", "ack", "window", "tcp_options", "payload", "link")

    def __init__(self, frame: int, ts: float, wire_len: int) -> None:
        self.frame = frame
        self.ts = ts
        self.wire_len = wire_len
        self.src_mac = self.dst_mac = None
        self.vlans = ()
        self.ethertype = 0
        self.src = self.dst = None
        self.ttl = self.proto = self.ip_len = 0
        self.fragment = False
        self.sport = self.dport = self.flags = self.seq = self.ack = self.window = 0
        self.tcp_options = None
        self.payload = None
        self.link = None

    @property
    def src_mac_text(self) -> str | None:
        return self.src_mac.hex(":") if self.src_mac else None


def is_group(pkt: Packet) -> bool:
    """Sent to a group (multicast or broadcast) rather than one host: by the destination MAC's
    I/G bit where there is one, else by the address (224/4 and above, ff00::/8)."""
    if pkt.dst_mac is not None:
        return bool(pkt.dst_mac[0] & 0x01)
    dst = pkt.dst
    if ":" in dst:
        return dst.startswith("ff")
    return int(dst.split(".", 1)[0]) >= 224


def decode_frame(linktype: int, buf: memoryview, frame: int, ts: float, wire_len: int) -> Packet:
    """Decode link to transport. Raises DecodeError for what cannot be read; a frame that is
    not IP (ARP, STP, ...) comes back with `src` None and the link payload in `link`."""
    pkt = Packet(frame, ts, wire_len)
    if linktype == LINKTYPE_ETHERNET:
        dst, src, ethertype, at, vlans = ethernet.decode(buf, 0)
        pkt.dst_mac, pkt.src_mac, pkt.vlans = dst, src, vlans
    elif linktype == LINKTYPE_LINUX_SLL:
        pkt.src_mac, ethertype, at = sll.decode_sll(buf, 0)
    elif linktype == LINKTYPE_LINUX_SLL2:
        pkt.src_mac, ethertype, at = sll.decode_sll2(buf, 0)
    elif linktype in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6) or linktype in DLT_RAW_ALIASES:
        if not buf:
            raise Malformed("raw-ip", "empty frame")
        ethertype, at = (ETHERTYPE_IPV6 if buf[0] >> 4 == 6 else ETHERTYPE_IPV4), 0
    elif linktype in (LINKTYPE_NULL, LINKTYPE_LOOP):
        if len(buf) < 4:
            raise Malformed("null", "shorter than its 4-byte family")
        family = int.from_bytes(buf[:4], "big" if linktype == LINKTYPE_LOOP else "little")
        if family > 0xFFFF:  # written in the capturing host's byte order, which may differ
            family = int.from_bytes(buf[:4], "big")
        ethertype = ETHERTYPE_IPV4 if family == NULL_FAMILY_INET else (
            ETHERTYPE_IPV6 if family in NULL_FAMILY_INET6 else 0)
        at = 4
    else:
        raise Malformed("link", f"unsupported link type {linktype}")
    pkt.ethertype = ethertype
    if ethertype == ETHERTYPE_IPV4:
        src, dst, ttl, proto, at, end, _ident, first, _more = ipv4.decode(buf, at)
    elif ethertype == ETHERTYPE_IPV6:
        src, dst, ttl, proto, at, end, first = ipv6.decode(buf, at)
    else:
        pkt.link = buf[at:]
        return pkt
    pkt.src, pkt.dst, pkt.ttl, pkt.proto = addr_text(src), addr_text(dst), ttl, proto
    pkt.ip_len = end - at
    if not first:
        pkt.fragment = True
        pkt.payload = buf[at:end]
        return pkt
    if proto == PROTO_TCP:
        sport, dport, seq, ack, flags, window, opt_at, data_at = tcp.decode(buf, at)
        pkt.sport, pkt.dport, pkt.seq, pkt.ack, pkt.flags, pkt.window = sport, dport, seq, ack, flags, window
        if flags & tcp.SYN and data_at > opt_at:
            pkt.tcp_options = bytes(buf[opt_at:data_at])
        pkt.payload = buf[data_at:end] if data_at < end else b""
    elif proto == PROTO_UDP:
        pkt.sport, pkt.dport, data_at, data_end = udp.decode(buf, at, end)
        pkt.payload = buf[data_at:data_end]
    else:
        pkt.payload = buf[at:end]
    return pkt


__all__ = ["DecodeError", "Packet", "addr_text", "decode_frame", "is_group"]
