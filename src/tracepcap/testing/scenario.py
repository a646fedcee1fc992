"""A story-level capture builder: hosts on one Ethernet segment, a clock, and whole
exchanges (TCP sessions, UDP datagrams, DHCP leases, ARP, ping, DNS lookups) that become
frames with correct headers, sequence numbers and checksums.

    net = Scenario(start=1_700_000_000.0)
    router = net.host("10.0.0.1", "00:00:0c:12:34:56", ttl=255)
    pc = net.host("10.0.0.23", "00:1b:21:aa:bb:cc", ttl=128, syn=WINDOWS_SYN)
    web = net.host("203.0.113.10", via=router, ttl=52)   # off-subnet: router's MAC
    net.tcp_session(pc, web, 49152, 443, client=[hello], server=[flight])
    net.write_pcap(path)

Everything is deterministic: no wall clock, no unseeded randomness.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest
from pathlib import Path

from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing.writers import LINKTYPE_ETHERNET, PcapngWriter, PcapWriter


@dataclass(frozen=True)
class SynSignature:
    """What a TCP stack puts in its SYN: window, MSS, window scale and option order."""

    window: int
    mss: int
    wscale: int | None
    order: tuple[str, ...]

    def options(self, tsval: int, tsecr: int = 0, with_ts: bool = True) -> bytes:
        order = [t for t in self.order if t != "TS" or with_ts]
        return f.tcp_options(mss=self.mss, wscale=self.wscale, sack_ok=True,
                             timestamps=(tsval, tsecr), order=order)


# SYN layouts as p0f v3 (p0f.fp) and published stack defaults describe them.
#: Windows 10/11: window 64240 (MSS 1460 * 44), MSS,NOP,WS,NOP,NOP,SACK_PERM; no timestamps.
WINDOWS_SYN = SynSignature(64240, 1460, 8, ("MSS", "NOP", "WS", "NOP", "NOP", "SACK"))
#: Linux 3.x+: window 64240 (10 * MSS rounded), MSS,SACK_PERM,TS,NOP,WS with WS 7.
LINUX_SYN = SynSignature(64240, 1460, 7, ("MSS", "SACK", "TS", "NOP", "WS"))
#: macOS/iOS: window 65535, MSS,NOP,WS(6),NOP,NOP,TS,SACK_PERM,EOL (p0f "eol+1").
MACOS_SYN = SynSignature(65535, 1460, 6, ("MSS", "NOP", "WS", "NOP", "NOP", "TS", "SACK",
                                          "EOL"))
IOS_SYN = MACOS_SYN
#: Android runs the Linux stack; p0f files it under Linux.
ANDROID_SYN = LINUX_SYN


@dataclass(frozen=True)
class Host:
    """An IP endpoint as the capture sees it. `mac` is the MAC its frames carry: the
    router's for an off-subnet address. `ttl` is what its packets show in the capture."""

    ip: str
    mac: str
    ttl: int = 64
    syn: SynSignature = LINUX_SYN
    vlan: int | None = None
    latency: float = 0.0003  # seconds before this host answers

    @property
    def v6(self) -> bool:
        return f.is_ipv6(self.ip)


class Scenario:
    """Accumulates frames on a microsecond clock; every frame advances the clock by `gap`."""

    def __init__(self, start: float = 1_700_000_000.0, gap: float = 0.0002) -> None:
        self._us = round(start * 1_000_000)
        self._gap_us = round(gap * 1_000_000)
        self._frames: list[tuple[float, bytes]] = []
        self._ident: dict[str, int] = {}
        self._dns_id = 0x1000

    @property
    def now(self) -> float:
        return self._us / 1_000_000

    def advance(self, seconds: float) -> None:
        self._us += round(seconds * 1_000_000)

    def host(self, ip: str, mac: str | None = None, *, ttl: int = 64,
             syn: SynSignature = LINUX_SYN, vlan: int | None = None,
             via: Host | None = None, latency: float | None = None) -> Host:
        """A host on the segment, or with `via`, one beyond that router: its frames carry
        the router's MAC and VLAN and it answers after a WAN-like delay."""
        if via is not None:
            return Host(ip, via.mac, ttl, syn, via.vlan, 0.015 if latency is None else latency)
        if mac is None:
            raise ValueError(f"host {ip} needs a MAC address or a router (via=)")
        return Host(ip, mac, ttl, syn, vlan, 0.0003 if latency is None else latency)

    # --- frames ---------------------------------------------------------------------------

    def emit(self, frame: bytes, delay: float = 0.0) -> None:
        """Append one frame at the current time (after `delay`), then tick the clock."""
        self._us += round(delay * 1_000_000)
        self._frames.append((self._us / 1_000_000, frame))
        self._us += self._gap_us

    def _ip(self, src_ip: str, src_mac: str, dst_ip: str, dst_mac: str, proto: int,
            l4: bytes, ttl: int, vlan: int | None, delay: float = 0.0) -> None:
        vlans = () if vlan is None else (vlan,)
        if f.is_ipv6(src_ip):
            packet, ethertype = f.ipv6(src_ip, dst_ip, proto, l4, hop_limit=ttl), f.ETH_IPV6
        else:
            ident = self._ident.get(src_ip, zlib.crc32(src_ip.encode()) & 0xFFFF)
            self._ident[src_ip] = ident + 1
            packet, ethertype = f.ipv4(src_ip, dst_ip, proto, l4, ttl=ttl, ident=ident), f.ETH_IPV4
        self.emit(f.ethernet(src_mac, dst_mac, ethertype, packet, vlans), delay)

    def _send(self, src: Host, dst: Host | str, proto: int, l4: bytes, ttl: int | None = None,
              delay: float = 0.0) -> None:
        dst_ip = dst if isinstance(dst, str) else dst.ip
        dst_mac = f.multicast_mac(dst) if isinstance(dst, str) else dst.mac
        vlan = src.vlan if src.vlan is not None or isinstance(dst, str) else dst.vlan
        self._ip(src.ip, src.mac, dst_ip, dst_mac, proto, l4, ttl or src.ttl, vlan, delay)

    def frames(self) -> list[tuple[float, bytes]]:
        """(timestamp, Ethernet frame) pairs in capture order."""
        return list(self._frames)

    def write_pcap(self, path: Path | str, nanos: bool = False) -> Path:
        with open(path, "wb") as out:
            writer = PcapWriter(out, nanos=nanos)
            for ts, frame in self._frames:
                writer.write(ts, frame)
        return Path(path)

    def write_pcapng(self, path: Path | str) -> Path:
        with open(path, "wb") as out:
            writer = PcapngWriter(out)
            writer.interface(LINKTYPE_ETHERNET)
            for ts, frame in self._frames:
                writer.write(ts, frame)
        return Path(path)

    # --- exchanges ------------------------------------------------------------------------

    def udp(self, src: Host, dst: Host | str, sport: int, dport: int, payload: bytes, *,
            ttl: int | None = None, delay: float = 0.0) -> None:
        """One datagram; `dst` may be a broadcast or multicast address string."""
        dst_ip = dst if isinstance(dst, str) else dst.ip
        self._send(src, dst, f.PROTO_UDP, f.udp(src.ip, dst_ip, sport, dport, payload), ttl,
                   delay)

    def ip(self, src: Host, dst: Host | str, proto: int, payload: bytes) -> None:
        """One IP packet of another protocol (ESP: 50), `payload` as its whole body."""
        self._send(src, dst, proto, payload)

    def arp_exchange(self, asker: Host, target: Host) -> None:
        """Who-has from `asker` to broadcast, is-at from `target` (RFC 826)."""
        request = f.arp(f.ARP_REQUEST, asker.mac, asker.ip, "00:00:00:00:00:00", target.ip)
        self.emit(f.ethernet(asker.mac, f.BROADCAST_MAC, f.ETH_ARP, request, pad=True))
        reply = f.arp(f.ARP_REPLY, target.mac, target.ip, asker.mac, asker.ip)
        self.emit(f.ethernet(target.mac, asker.mac, f.ETH_ARP, reply, pad=True), target.latency)

    def ping(self, src: Host, dst: Host, count: int = 1, ident: int = 1) -> None:
        """ICMP echo requests and their replies."""
        proto = f.PROTO_ICMPV6 if src.v6 else f.PROTO_ICMP
        for seq in range(1, count + 1):
            data = bytes(range(32))
            self._send(src, dst, proto, f.icmp_echo(ident, seq, data, False, src.ip, dst.ip))
            self._send(dst, src, proto, f.icmp_echo(ident, seq, data, True, dst.ip, src.ip),
                       delay=dst.latency)
            self.advance(1.0)

    def dns_lookup(self, client: Host, server: Host, name: str, values: Sequence[str],
                   qtype: str = "A", sport: int = 53000, ttl: int = 300) -> None:
        """A query from `client` and the server's answer listing `values` (none: NXDOMAIN)."""
        self._dns_id += 1
        self.udp(client, server, sport, 53, app.dns_query(self._dns_id, name, qtype))
        answers = [(name, qtype, value, ttl) for value in values]
        reply = app.dns_response(self._dns_id, (name, qtype), answers, rcode=0 if values else 3)
        self.udp(server, client, 53, sport, reply, delay=server.latency)

    def dhcp_exchange(self, client: Host | str, server: Host, offered_ip: str | None = None,
                      *, router: str | None = None, dns_servers: Sequence[str] = (),
                      domain: str | None = None, lease_time: int = 86400,
                      subnet_mask: str = "255.255.255.0", xid: int | None = None,
                      **client_options) -> Host:
        """DISCOVER and REQUEST broadcast from 0.0.0.0:68, OFFER and ACK from the server
        (RFC 2131 3.1). `client_options` (hostname, fqdn, vendor_class, param_list) go in
        both client messages. Returns the client as a Host holding its leased address."""
        if isinstance(client, str):
            if offered_ip is None:
                raise ValueError(f"dhcp_exchange for {client} needs offered_ip")
            client = Host(offered_ip, client)
        ip = offered_ip or client.ip
        xid = zlib.crc32(client.mac.encode()) if xid is None else xid
        lease = dict(router=router, dns_servers=dns_servers, domain=domain,
                     lease_time=lease_time, subnet_mask=subnet_mask, server_id=server.ip)
        unbound = replace(client, ip="0.0.0.0")
        for msg_type, reply_type in ((app.DISCOVER, app.OFFER), (app.REQUEST, app.ACK)):
            extra = {} if msg_type == app.DISCOVER else {"requested_ip": ip,
                                                         "server_id": server.ip}
            ask = app.dhcp(app.BOOTREQUEST, xid, client.mac, msg_type, **extra,
                           **client_options)
            self.udp(unbound, "255.255.255.255", 68, 67, ask, ttl=client.ttl)
            answer = app.dhcp(app.BOOTREPLY, xid, client.mac, reply_type, yiaddr=ip,
                              siaddr=server.ip, **lease)
            self._ip(server.ip, server.mac, ip, client.mac, f.PROTO_UDP,
                     f.udp(server.ip, ip, 67, 68, answer), server.ttl, server.vlan,
                     server.latency)
        return replace(client, ip=ip)

    def tcp_session(self, client_host: Host, server_host: Host, sport: int, dport: int, *,
                    client: Sequence[bytes] = (), server: Sequence[bytes] = (),
                    segment: int | None = None, handshake: bool = True, close: bool = True,
                    reorder: bool = False, rst_instead_of_synack: bool = False) -> None:
        """A TCP connection: handshake, then turns (client[0], server[0], client[1], ...)
        cut into segments of at most `segment` bytes (default: the smaller of the two SYN
        signatures' MSS, as the handshake would agree), each turn ACKed, then FIN both ways.

        `handshake=False` starts mid-stream (no SYN); `reorder` swaps the first two data
        segments of the first turn that has two; `rst_instead_of_synack` answers the SYN
        with RST+ACK, as a closed port does (RFC 9293 3.10.7.1), and ends there.
        """
        c, s = client_host, server_host
        segment = segment or min(c.syn.mss, s.syn.mss)
        # Deterministic ISNs below 2^31, so a story never wraps the sequence space by
        # accident; a test that wants wraparound builds those segments itself.
        cseq = zlib.crc32(f"{c.ip}:{sport}:{len(self._frames)}".encode()) & 0x7FFFFFFF
        sseq = zlib.crc32(f"{s.ip}:{dport}:{len(self._frames)}".encode()) & 0x7FFFFFFF

        def c_tcp(seq: int, ack: int, flags: str, **kw) -> None:  # client to server
            self._send(c, s, f.PROTO_TCP, f.tcp(c.ip, s.ip, sport, dport, seq, ack, flags, **kw))

        if handshake:
            tsval = self._us // 1000 & 0xFFFFFFFF
            c_tcp(cseq, 0, "S", window=c.syn.window, options=c.syn.options(tsval))
            cseq += 1
            if rst_instead_of_synack:
                self._send(s, c, f.PROTO_TCP, f.tcp(s.ip, c.ip, dport, sport, 0, cseq, "RA",
                                                    window=0), delay=s.latency)
                return
            synack = s.syn.options(tsval + 7, tsval, with_ts="TS" in c.syn.order)
            self._send(s, c, f.PROTO_TCP, f.tcp(s.ip, c.ip, dport, sport, sseq, cseq, "SA",
                                                window=s.syn.window, options=synack),
                       delay=s.latency)
            sseq += 1
            c_tcp(cseq, sseq, "A", window=c.syn.window)
        pending_reorder = reorder
        for c_msg, s_msg in zip_longest(client, server):
            if c_msg:
                cseq, pending_reorder = self._data(c, s, sport, dport, cseq, sseq, c_msg,
                                                   segment, pending_reorder)
            if s_msg:
                sseq, pending_reorder = self._data(s, c, dport, sport, sseq, cseq, s_msg,
                                                   segment, pending_reorder)
        if close:
            c_tcp(cseq, sseq, "FA", window=c.syn.window)
            self._send(s, c, f.PROTO_TCP, f.tcp(s.ip, c.ip, dport, sport, sseq, cseq + 1, "FA",
                                                window=s.syn.window), delay=s.latency)
            c_tcp(cseq + 1, sseq + 1, "A", window=c.syn.window)

    def _data(self, src: Host, dst: Host, sport: int, dport: int, seq: int, ack: int,
              data: bytes, segment: int, reorder: bool) -> tuple[int, bool]:
        """One turn: `data` in segments from `src`, PSH on the last, then one ACK back."""
        pieces = [data[at:at + segment] for at in range(0, len(data), segment)]
        offsets = [seq + at for at in range(0, len(data), segment)]
        order = list(range(len(pieces)))
        if reorder and len(pieces) >= 2:
            order[0], order[1], reorder = 1, 0, False
        for n, i in enumerate(order):
            flags = "PA" if i == len(pieces) - 1 else "A"
            self._send(src, dst, f.PROTO_TCP,
                       f.tcp(src.ip, dst.ip, sport, dport, offsets[i], ack, flags, pieces[i],
                             window=src.syn.window),
                       delay=src.latency if n == 0 else 0.0)
        end = seq + len(data)
        self._send(dst, src, f.PROTO_TCP,
                   f.tcp(dst.ip, src.ip, dport, sport, ack, end, "A", window=dst.syn.window),
                   delay=dst.latency)
        return end, reorder
