"""The per-packet hot path: one frame's link, network and transport headers, decoded once,
and the tunnels it travels in taken apart.

`decode_frame` turns a frame into a `Packet` that every extractor reads; nothing here looks
at application payloads. Link types follow the tcpdump.org LINKTYPE_ registry: Ethernet,
Linux cooked (SLL, SLL2), raw IP and BSD loopback inline, the rarer ones (PPP, HDLC, 802.11
bare or behind Radiotap or PPI, NFLOG) through the `LINKS` table. An 802.11 frame that is
not a readable data frame (management, control, Null, protected) is a non-IP frame.

Tunnels. After the transport header, three explicit dispatch tables say whether what
follows is another packet: `UDP_TUNNELS` (by port: VXLAN on 4789 and 8472, Geneve, GTP-U,
Teredo; on other ports `UDP_TUNNEL_SHAPES` recognises VXLAN and Teredo by their contents),
`IP_TUNNELS` (by IP protocol: IP-in-IP, 6in4, GRE with ERSPAN) and, in place of an IP
ethertype, `LINK_SHIMS` (MPLS label stacks, PPPoE sessions). A frame without tunnels pays
two dict lookups and a look at the first byte for a UDP datagram, and nothing else. A
tunnelled frame comes back as its innermost packet: `tunnel` lists the layers it came
through (outermost first), `outer` is the packet that carried it (whose `carries` names
the layer, and whose own `outer` may be another carrier). At most `MAX_DEPTH` layers are taken apart; deeper nesting, and a
tunnel whose inner bytes do not decode, leave the deepest packet that did decode with
`inner_error` set, so a broken inner layer never costs the outer one.
"""

from __future__ import annotations

import socket
import struct
import types
from typing import NamedTuple

from .decoders import (
    DecodeError,
    Malformed,
    ethernet,
    geneve,
    gre,
    gtpu,
    ieee80211,
    ipv4,
    ipv6,
    mpls,
    nflog,
    ppi,
    ppp,
    pppoe,
    radiotap,
    sll,
    tcp,
    teredo,
    udp,
    vxlan,
)

LINKTYPE_NULL, LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LOOP = 0, 1, 101, 108
LINKTYPE_LINUX_SLL, LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL2 = 113, 228, 229, 276
LINKTYPE_PPP, LINKTYPE_PPP_HDLC, LINKTYPE_C_HDLC, LINKTYPE_IEEE802_11 = 9, 50, 104, 105
LINKTYPE_IEEE802_11_RADIOTAP, LINKTYPE_PPI, LINKTYPE_NFLOG = 127, 192, 239
DLT_RAW_ALIASES = (12, 14)  # DLT_RAW as some BSDs numbered it before LINKTYPE_RAW existed
ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_ARP = 0x0800, 0x86DD, 0x0806
ETHERTYPE_TEB = 0x6558  # transparent Ethernet bridging: an Ethernet frame follows
NULL_FAMILY_INET = 2
NULL_FAMILY_INET6 = frozenset((10, 24, 28, 30))  # Linux, NetBSD/OpenBSD, FreeBSD, macOS
PROTO_IPIP, PROTO_TCP, PROTO_UDP, PROTO_IPV6, PROTO_GRE = 4, 6, 17, 41, 47
MAX_DEPTH = 8  # encapsulation layers taken apart per frame; deeper is counted, not read
# Never raised: what `inner_error` holds for a frame nested deeper than MAX_DEPTH.
DEPTH_EXCEEDED = Malformed("tunnel", f"nested deeper than {MAX_DEPTH} encapsulations")
# Layers whose identity is the same both ways; GTP-U TEIDs and MPLS labels are chosen by
# each receiving end, so they differ per direction and cannot key a conversation.
SYMMETRIC_IDENTITY = frozenset(("vxlan", "geneve", "gre", "erspan-ii", "erspan-iii", "pppoe"))
IDENT_FORMATS = {"vxlan": "vni {}", "geneve": "vni {}", "gre": "key {}", "erspan-ii": "session {}",
                 "erspan-iii": "session {}", "gtp-u": "teid {:#010x}", "pppoe": "session {:#06x}",
                 "mpls": "label {}"}

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


class Encap(NamedTuple):
    """One encapsulation layer: its kind ("vxlan", "geneve", "gre", "erspan-i", "erspan-ii",
    "erspan-iii", "gtp-u", "teredo", "ipip", "6in4", "4in6", "ip6ip6", "mpls", "pppoe"),
    its identity where it has one (VNI, GRE key, ERSPAN session, TEID, bottom MPLS label,
    PPPoE session), the carrier's addresses (None for MPLS and PPPoE, which sit below IP)
    and a note (a Teredo origin indication, an MPLS label stack)."""

    kind: str
    ident: int | None
    src: str | None
    dst: str | None
    note: str = ""

    def text(self) -> str:
        """How a fact names the layer: "vxlan vni 42", "gtp-u teid 0x00001234", "gre"."""
        parts = [self.kind]
        if self.ident is not None:
            parts.append(IDENT_FORMATS.get(self.kind, "{}").format(self.ident))
        if self.note:
            parts.append(self.note)
        return " ".join(parts)

    def key(self) -> tuple:
        """The layer's share of a conversation key: the same for both directions."""
        a, b = self.src or "", self.dst or ""
        ident = self.ident if self.kind in SYMMETRIC_IDENTITY else None
        return (self.kind, ident, a, b) if a <= b else (self.kind, ident, b, a)


class Packet:
    """One decoded frame. Transport fields are 0/None when absent; `payload` is the transport
    payload (or the IP payload of a non-first fragment or an unknown protocol). `tunnel`,
    `outer`, `carries` and `inner_error` are None unless a tunnel was met (module doc)."""

    __slots__ = ("frame", "ts", "wire_len", "src_mac", "dst_mac", "vlans", "ethertype",
                 "src", "dst", "ttl", "proto", "ip_len", "fragment", "sport", "dport",
                 "flags", "seq", "ack", "window", "tcp_options", "payload", "link",
                 "tunnel", "outer", "carries", "inner_error")

    def __init__(self, frame: int, ts: float, wire_len: int) -> None:
        # every slot typed where it is first set: the same source runs interpreted and
        # compiled by mypyc (setup.py), which checks these types on every write
        self.frame: int = frame
        self.ts: float = ts
        self.wire_len: int = wire_len
        self.src_mac: bytes | None = None
        self.dst_mac: bytes | None = None
        self.vlans: tuple[int, ...] = ()
        self.ethertype: int = 0
        self.src: str | None = None
        self.dst: str | None = None
        self.ttl: int = 0
        self.proto: int = 0
        self.ip_len: int = 0
        self.fragment: bool = False
        self.sport: int = 0
        self.dport: int = 0
        self.flags: int = 0
        self.seq: int = 0
        self.ack: int = 0
        self.window: int = 0
        self.tcp_options: bytes | None = None
        self.payload: memoryview | bytes | None = None
        self.link: memoryview | None = None
        self.tunnel: tuple[Encap, ...] | None = None
        self.outer: Packet | None = None
        self.carries: Encap | None = None
        self.inner_error: DecodeError | None = None

    @property
    def src_mac_text(self) -> str | None:
        return self.src_mac.hex(":") if self.src_mac else None

    def tunnel_key(self) -> tuple:
        """The identity of the tunnels it came through, for keying its conversation."""
        return tuple(layer.key() for layer in self.tunnel or ())


def is_group(pkt: Packet) -> bool:
    """Sent to a group (multicast or broadcast) rather than one host: by the destination MAC's
    I/G bit where there is one, else by the address (224/4 and above, ff00::/8)."""
    if pkt.dst_mac is not None:
        return bool(pkt.dst_mac[0] & 0x01)
    dst = pkt.dst
    if dst is None:
        return False  # not an IP packet: no address to judge by
    if ":" in dst:
        return dst.startswith("ff")
    return int(dst.split(".", 1)[0]) >= 224


# --- tunnels: each returns (layer, inner ethertype, inner offset, inner end) or None -------

def _vxlan(pkt: Packet, buf, at: int, end: int):
    found = vxlan.decode(buf, at)
    if found is None:
        return None
    return Encap("vxlan", found[0], pkt.src, pkt.dst), ETHERTYPE_TEB, found[1], end


def _geneve(pkt: Packet, buf, at: int, end: int):
    found = geneve.decode(buf, at)
    if found is None:
        return None
    vni, protocol, inner = found
    return Encap("geneve", vni, pkt.src, pkt.dst), protocol, inner, end


def _gtpu(pkt: Packet, buf, at: int, end: int):
    found = gtpu.decode(buf, at)
    if found is None or found[1] != gtpu.G_PDU or found[2] >= found[3]:
        return None  # path management (echo, error indication, end marker), no user packet
    teid, _type, inner, inner_end = found
    version = buf[inner] >> 4
    if version != 4 and version != 6:
        return None  # an Ethernet or unstructured PDU session: no IP packet to read
    return (Encap("gtp-u", teid, pkt.src, pkt.dst),
            ETHERTYPE_IPV4 if version == 4 else ETHERTYPE_IPV6, inner, inner_end)


def _teredo(pkt: Packet, buf, at: int, end: int):
    found = teredo.decode(buf, at, end)
    if found is None:
        return None
    origin, inner = found
    note = f"origin {origin}" if origin else ""
    return Encap("teredo", None, pkt.src, pkt.dst, note), ETHERTYPE_IPV6, inner, end


def _ip_in_ip(pkt: Packet, buf, at: int, end: int):
    kind = "ipip" if pkt.ethertype == ETHERTYPE_IPV4 else "4in6"
    return Encap(kind, None, pkt.src, pkt.dst), ETHERTYPE_IPV4, at, end


def _ipv6_in_ip(pkt: Packet, buf, at: int, end: int):
    kind = "6in4" if pkt.ethertype == ETHERTYPE_IPV4 else "ip6ip6"
    return Encap(kind, None, pkt.src, pkt.dst), ETHERTYPE_IPV6, at, end


def _gre(pkt: Packet, buf, at: int, end: int):
    kind, ident, protocol, inner = gre.decode(buf, at)
    return Encap(kind, ident, pkt.src, pkt.dst), protocol, inner, end


def _mpls(buf, at: int):
    labels, ethertype, at = mpls.decode(buf, at)
    note = "labels " + "/".join(map(str, labels)) if len(labels) > 1 else ""
    return Encap("mpls", labels[-1], None, None, note), ethertype, at, len(buf)


def _pppoe(buf, at: int):
    session, ethertype, at, end = pppoe.decode(buf, at)
    return Encap("pppoe", session, None, None), ethertype, at, end


# --- link types beyond the common ones: each returns (ethertype or 0, its offset) ---------

def _ethernet(pkt: Packet, buf, at: int):
    pkt.dst_mac, pkt.src_mac, ethertype, at, pkt.vlans = ethernet.decode(buf, at)
    return ethertype, at


def _ieee80211(pkt: Packet, buf, at: int):
    pkt.src_mac, pkt.dst_mac, ethertype, at = ieee80211.decode(buf, at)
    return ethertype, at


def _radiotap(pkt: Packet, buf, at: int):
    return _ieee80211(pkt, buf, radiotap.decode(buf, at))


def _ppi(pkt: Packet, buf, at: int):
    linktype, at = ppi.decode(buf, at)
    inner = PPI_LINKS.get(linktype)
    if inner is None:
        raise Malformed("ppi", f"unsupported link type {linktype} after the PPI header")
    return inner(pkt, buf, at)


def _nflog(pkt: Packet, buf, at: int):
    pkt.src_mac, ethertype, at = nflog.decode(buf, at)
    return ethertype, at


def _ppp(pkt: Packet, buf, at: int):
    return ppp.decode_ppp(buf, at)


def _hdlc(pkt: Packet, buf, at: int):
    return ppp.decode_hdlc(buf, at)


def _cisco_hdlc(pkt: Packet, buf, at: int):
    return ppp.decode_cisco_hdlc(buf, at)


LINKS = {LINKTYPE_PPP: _ppp, LINKTYPE_PPP_HDLC: _hdlc, LINKTYPE_C_HDLC: _cisco_hdlc,
         LINKTYPE_IEEE802_11: _ieee80211, LINKTYPE_IEEE802_11_RADIOTAP: _radiotap,
         LINKTYPE_PPI: _ppi, LINKTYPE_NFLOG: _nflog}
PPI_LINKS = {LINKTYPE_ETHERNET: _ethernet, LINKTYPE_IEEE802_11: _ieee80211}

UDP_TUNNELS = {vxlan.PORT: _vxlan, vxlan.LINUX_PORT: _vxlan, geneve.PORT: _geneve,
               gtpu.PORT: _gtpu, teredo.PORT: _teredo}
# Tunnels on any other port, recognised by what they carry (each decoder's `looks_like`
# says how strictly); tried in order after the port table found nothing.
VXLAN_FIRST_BYTE = vxlan.FLAG_VNI
UDP_TUNNEL_SHAPES = ((vxlan.looks_like, _vxlan), (teredo.looks_like, _teredo))
IP_TUNNELS = {PROTO_IPIP: _ip_in_ip, PROTO_IPV6: _ipv6_in_ip, PROTO_GRE: _gre}
LINK_SHIMS = {0x8847: _mpls, 0x8848: _mpls, pppoe.ETHERTYPE_SESSION: _pppoe}


_ETH = struct.Struct("!6s6sH")
_TAG = struct.Struct("!HH")
_IP4 = struct.Struct("!BxHxxHBB2x4s4s")  # ver/ihl, total length, flags/frag, ttl, proto, src, dst
_IP6 = struct.Struct("!I2xBB16s16s")  # the payload length is read apart (below)
_IP6_LEN = struct.Struct("!H")
_TCP = struct.Struct("!HHIIBBH")  # sport, dport, seq, ack, data offset, flags, window
_UDP = struct.Struct("!HHH")  # sport, dport, length
_VLAN_TPIDS = ethernet.VLAN_TPIDS
_MAX_TAGS = ethernet.MAX_TAGS
_IP6_NOT_TRANSPORT = ipv6.SKIPPABLE | {ipv6.AUTH, ipv6.FRAGMENT}


def _compiled() -> bool:
    """True when this module runs compiled by mypyc (setup.py): its functions are then not
    Python function objects."""
    return not isinstance(_compiled, types.FunctionType)


_NATIVE = _compiled()


def _fast_ethernet(buf: memoryview, frame: int, ts: float, wire_len: int,
                   new=object.__new__, eth=_ETH.unpack_from, tag=_TAG.unpack_from,
                   ip4=_IP4.unpack_from, ip6=_IP6.unpack_from, ip6_len=_IP6_LEN.unpack_from,
                   tcp_=_TCP.unpack_from, udp_=_UDP.unpack_from, cache=_ADDR_CACHE):
    """The common frame in one function: Ethernet (any VLAN tags), IPv4 or IPv6 without
    extension headers, then TCP, UDP or another protocol that carries no tunnel; the Packet
    built once, every slot written once. Anything else (a short or odd header, an extension
    header, a tunnel, a frame that is not IP) returns None and `decode_frame`'s general walk
    decodes it, so the two always agree: this only skips work on frames it fully checked."""
    n = len(buf)
    if n < 14:
        return None
    dst_mac, src_mac, ethertype = eth(buf, 0)
    at = 14
    vlans: tuple[int, ...] = ()
    while ethertype in _VLAN_TPIDS and len(vlans) < _MAX_TAGS:
        if n - at < 4:
            return None
        tci, ethertype = tag(buf, at)
        vlans += (tci & 0x0FFF,)
        at += 4
    if ethertype == 0x0800:
        if n - at < 20:
            return None
        vihl, total, frag, ttl, proto, src, dst = ip4(buf, at)
        ihl = (vihl & 0x0F) * 4
        if vihl >> 4 != 4 or ihl < 20 or n - at < ihl:
            return None
        end = at + total if total >= ihl else n
        if end > n:
            end = n
        at += ihl
        fragment = frag & 0x1FFF != 0
    elif ethertype == 0x86DD:
        if n - at < 40:
            return None
        vcf, proto, ttl, src, dst = ip6(buf, at)
        if vcf >> 28 != 6 or proto in _IP6_NOT_TRANSPORT:
            return None
        plen = ip6_len(buf, at + 4)[0]
        at += 40
        end = (at + plen if at + plen < n else n) if plen else n
        fragment = False
    else:
        return None
    if _NATIVE:  # a compiled class is made only through its __init__ (cheap there)
        pkt = Packet(frame, ts, wire_len)
    else:  # interpreted, skipping __init__ saves writing every slot twice
        pkt = new(Packet)
        pkt.frame, pkt.ts, pkt.wire_len = frame, ts, wire_len
    pkt.src_mac, pkt.dst_mac, pkt.vlans, pkt.ethertype = src_mac, dst_mac, vlans, ethertype
    text = cache.get(src)
    pkt.src = text if text is not None else addr_text(src)
    text = cache.get(dst)
    pkt.dst = text if text is not None else addr_text(dst)
    pkt.ttl, pkt.proto, pkt.ip_len, pkt.fragment = ttl, proto, end - at, fragment
    pkt.link = pkt.tunnel = pkt.outer = pkt.carries = pkt.inner_error = None
    if fragment:
        pkt.sport = pkt.dport = pkt.flags = pkt.seq = pkt.ack = pkt.window = 0
        pkt.tcp_options = None
        pkt.payload = buf[at:end]
        return pkt
    if proto == 6:
        if n - at < 20:
            return None
        sport, dport, seq, ack, off, flags, window = tcp_(buf, at)
        hlen = (off >> 4) * 4
        if hlen < 20 or n - at < hlen:
            return None
        pkt.sport, pkt.dport, pkt.seq, pkt.ack, pkt.flags, pkt.window = sport, dport, seq, ack, flags, window
        data_at = at + hlen
        pkt.tcp_options = bytes(buf[at + 20:data_at]) if flags & 0x02 and hlen > 20 else None
        pkt.payload = buf[data_at:end] if data_at < end else b""
        return pkt
    pkt.flags = pkt.seq = pkt.ack = pkt.window = 0
    pkt.tcp_options = None
    if proto == 17:
        if n - at < 8:
            return None
        sport, dport, length = udp_(buf, at)
        stop = at + length if length >= 8 else end
        data_end = stop if stop < end else end
        if sport in UDP_TUNNELS or dport in UDP_TUNNELS or _udp_shape(buf, at + 8, data_end) is not None:
            return None
        pkt.sport, pkt.dport, pkt.payload = sport, dport, buf[at + 8:data_end]
        return pkt
    if proto in IP_TUNNELS:
        return None
    pkt.sport = pkt.dport = 0
    pkt.payload = buf[at:end]
    return pkt


def decode_frame(linktype: int, buf: memoryview, frame: int, ts: float, wire_len: int) -> Packet:
    """Decode link to transport, through any tunnels. Raises DecodeError for what cannot be
    read; a frame that is not IP (ARP, LLDP, ...) comes back with `src` None and the link
    payload in `link`."""
    if linktype == LINKTYPE_ETHERNET:
        pkt = _fast_ethernet(buf, frame, ts, wire_len)
        if pkt is not None:
            return pkt
    pkt = Packet(frame, ts, wire_len)
    if linktype == LINKTYPE_ETHERNET:
        dst, src, ethertype, at, vlans = ethernet.decode(buf, 0)
        pkt.dst_mac, pkt.src_mac, pkt.vlans = dst, src, vlans
    elif linktype == LINKTYPE_LINUX_SLL:
        pkt.src_mac, ethertype, at, pkt.vlans = sll.decode_sll(buf, 0)
    elif linktype == LINKTYPE_LINUX_SLL2:
        pkt.src_mac, ethertype, at, pkt.vlans = sll.decode_sll2(buf, 0)
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
        link = LINKS.get(linktype)
        if link is None:
            raise Malformed("link", f"unsupported link type {linktype}")
        ethertype, at = link(pkt, buf, 0)
    try:
        while True:  # once per packet: the outer one, then each inner one
            pkt.ethertype = ethertype
            if ethertype == ETHERTYPE_IPV4:
                src, dst, ttl, proto, at, end, _ident, first, _more = ipv4.decode(buf, at)
            elif ethertype == ETHERTYPE_IPV6:
                src, dst, ttl, proto, at, end, first = ipv6.decode(buf, at)
            else:
                found = _below_ip(pkt, buf, ethertype, at)
                if found is None:
                    return pkt
                ethertype, at, buf = found
                continue
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
                return pkt
            if proto == PROTO_UDP:
                sport, dport, at, end = udp.decode(buf, at, end)
                pkt.sport, pkt.dport, pkt.payload = sport, dport, buf[at:end]
                tunnel = UDP_TUNNELS.get(dport) or UDP_TUNNELS.get(sport)
                if tunnel is None:
                    tunnel = _udp_shape(buf, at, end)
            else:
                pkt.payload = buf[at:end]
                tunnel = IP_TUNNELS.get(proto)
            if tunnel is None:
                return pkt
            found = _enter(pkt, tunnel, buf, at, end)
            if found is None:
                return pkt
            pkt, ethertype, at, buf = found
    except DecodeError as err:
        carrier = pkt.outer
        if carrier is None:
            raise
        carrier.inner_error = err  # the inner packet is lost, its carrier is not
        return carrier


def _udp_shape(buf, at: int, end: int):
    """The tunnel a datagram on an unassigned port carries, by its shape, or None."""
    if end - at < 40:
        return None  # shorter than any tunnel header with an IP packet inside
    first = buf[at]
    if first != VXLAN_FIRST_BYTE and first >> 4 != 6:
        return None  # neither VXLAN's flags nor an IPv6 header: most datagrams stop here
    for looks_like, tunnel in UDP_TUNNEL_SHAPES:
        if looks_like(buf, at, end):
            return tunnel
    return None


def _enter(pkt: Packet, tunnel, buf, at: int, end: int):
    """Open the tunnel `pkt` carries: (the inner packet, its ethertype, offset and buffer),
    or None when `pkt` carries none or may not be opened (its `inner_error` then says why)."""
    if at >= end:
        return None  # an empty datagram on a tunnel's port carries nothing
    try:
        found = tunnel(pkt, buf, at, end)
    except DecodeError as err:
        pkt.inner_error = err
        return None
    if found is None:
        return None
    layer, ethertype, at, end = found
    pkt.carries = layer
    chain = pkt.tunnel or ()
    if len(chain) >= MAX_DEPTH:
        pkt.inner_error = DEPTH_EXCEEDED
        return None
    inner = Packet(pkt.frame, pkt.ts, pkt.wire_len)
    inner.outer = pkt
    inner.tunnel = chain + (layer,)
    return inner, ethertype, at, buf[:end]


def _below_ip(pkt: Packet, buf, ethertype: int, at: int):
    """An inner Ethernet header or a link-layer shim (MPLS, PPPoE) where an IP ethertype
    was expected: (next ethertype, offset, buffer), or None when `pkt` ends here as a
    non-IP frame (its link payload in `link`)."""
    shim = LINK_SHIMS.get(ethertype)
    if shim is None and ethertype != ETHERTYPE_TEB:
        pkt.link = buf[at:]
        return None
    chain = pkt.tunnel or ()
    if shim is not None and len(chain) >= MAX_DEPTH:
        pkt.inner_error = DEPTH_EXCEEDED
        pkt.link = buf[at:]
        return None
    try:
        if shim is None:  # an inner frame's own link header, inside the layer that carried it
            pkt.dst_mac, pkt.src_mac, ethertype, inner_at, pkt.vlans = ethernet.decode(buf, at)
            if ethertype == ETHERTYPE_TEB:
                raise Malformed("ethernet", "a bridged frame directly inside another")
            return ethertype, inner_at, buf
        layer, ethertype, inner_at, end = shim(buf, at)
    except DecodeError as err:
        if pkt.outer is not None:
            raise
        pkt.inner_error = err  # the frame's own link layer decoded; keep it
        pkt.link = buf[at:]
        return None
    pkt.tunnel = chain + (layer,)
    return ethertype, inner_at, buf[:end]


__all__ = ["DecodeError", "Encap", "Packet", "addr_text", "decode_frame", "is_group"]
