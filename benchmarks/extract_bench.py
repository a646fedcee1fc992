#!/usr/bin/env python3
"""Extract-stage benchmark: prints figures, asserts nothing.

    .venv/bin/python benchmarks/extract_bench.py [--size-gb 1.0] [--out DIR] [--keep]
                                                 [--skip-peers] [--profile]
                                                 [--stress flows|hosts]

1. Generates (once; reused from --out while it is kept) a synthetic office-LAN pcap of at
   least --size-gb GiB: Ethernet/IPv4 mostly, some 802.1Q-tagged and IPv6 traffic, a few
   thousand hosts, TCP sessions (handshake, data segments of varied sizes, close) carrying
   TLS ClientHellos, HTTP requests, SSH banners and bulk transfers, DNS over UDP, DHCP,
   ARP, mDNS and NBNS. A pool of session templates is built once (payloads from
   `tracepcap.testing`, headers packed here) and replayed, 64 sessions interleaved, with
   fresh timestamps and a fresh client port per replay (patched in place, so TCP/UDP
   checksums of replays are wrong: nothing here checks them).
2. Runs, one after another, each in its own process started under /usr/bin/time (peak
   RSS is the measured process's own, see `measure`):
     a. TracePcap extract: `pipeline.extract(path, "bench")`, every extractor, no database;
     b. TracePcap hot path: reader + `packet.decode_frame` on every record, no extractors;
    ap, bp. the same two with TRACEPCAP_PURE=1: the hot path as Python source even where
        `pip install` compiled it (setup.py, issue 29); a closing table puts packets per
        CPU second of each walk side by side, compiled and pure, with dpkt and tshark;
     c. dpkt: pcap reader, Ethernet -> IP/IP6 -> TCP/UDP, addresses and ports read;
     d. tshark -n -r FILE -T fields -e frame.number -e ip.src ... > /dev/null (ten fields);
     e. the whole `tracepcap analyze FILE --json > /dev/null` (CLI `main`, fresh SQLite store)
        with its stages timed: ingest, extract, store, scan, adjudicate, swap, report, and
        the CPU of the walk's shard processes when the default plan shards it;
    e1. the same with `--workers 1` (the walk in the analyzing process);
   and prints wall time, CPU time, packets/s, MiB/s, peak RSS and ratios between them.
3. Deletes the generated capture at the end unless --keep.

`--skip-peers` runs rows a, b, e and e1 only; `--skip-analyze` leaves rows e and e1 out;
`--analyze-only` runs rows e and e1 only. `--profile`
runs extract in this process under cProfile instead of the table (use a small --size-gb, e.g. 0.05) and prints the hotspots.
`--stress flows|hosts` swaps the LAN capture for a small one that stresses one bounded table
(1M conversations over 1,000 hosts; or 200,000 hosts) and runs TracePcap's rows on it.
Sizes are binary: 1 GiB = 2^30 bytes, MiB = 2^20 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GEN_VERSION = 1  # bump when the generated traffic changes, so cached captures are rebuilt
GIB, MIB = 1 << 30, 1 << 20
START_US = 1_700_000_000 * 1_000_000  # 2023-11-14 22:13:20 UTC
TSHARK = "/usr/bin/tshark"
GNU_TIME = "/usr/bin/time"
TSHARK_FIELDS = ("frame.number", "frame.time_epoch", "eth.src", "ip.src", "ip.dst", "ip.ttl",
                 "tcp.srcport", "tcp.dstport", "udp.srcport", "udp.dstport")  # ten (issue 16)


# =========================================================================================
# Synthetic capture
# =========================================================================================

# OS profiles: IP TTL, SYN window / window scale / option order (p0f-style layouts, as in
# tracepcap.testing.scenario), a User-Agent, DHCP option 55 and option 60, MAC prefixes.
PROFILES = {
    "win": dict(weight=55, ttl=128, window=64240, wscale=8,
                order=("MSS", "NOP", "WS", "NOP", "NOP", "SACK"),
                ua="Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
                   "(KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36 Edg/119.0.0.0",
                dhcp=((1, 3, 6, 15, 31, 33, 43, 44, 46, 47, 119, 121, 249, 252), "MSFT 5.0"),
                ouis=("00:14:22", "00:1b:21", "3c:97:0e", "10:c5:95", "3c:d9:2b", "00:26:b9",
                      "d4:be:d9", "54:e1:ad")),
    "linux": dict(weight=10, ttl=64, window=64240, wscale=7,
                  order=("MSS", "SACK", "TS", "NOP", "WS"),
                  ua="Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:119.0) Gecko/20100101 "
                     "Firefox/119.0",
                  dhcp=((1, 28, 2, 3, 15, 6, 119, 12, 44, 47, 26, 121, 42), None),
                  ouis=("00:25:90", "00:50:56", "00:0c:29", "dc:a6:32", "52:54:00")),
    "mac": dict(weight=20, ttl=64, window=65535, wscale=6,
                order=("MSS", "NOP", "WS", "NOP", "NOP", "TS", "SACK", "EOL"),
                ua="Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
                   "(KHTML, like Gecko) Version/17.1 Safari/605.1.15",
                dhcp=((1, 121, 3, 6, 15, 119, 252, 95, 44, 46), None),
                ouis=("a4:83:e7", "f0:18:98", "28:cf:e9", "ac:bc:32", "8c:85:90")),
    "android": dict(weight=15, ttl=64, window=65535, wscale=9,
                    order=("MSS", "SACK", "TS", "NOP", "WS"),
                    ua="Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 "
                       "(KHTML, like Gecko) Chrome/119.0.6045.163 Mobile Safari/537.36",
                    dhcp=((1, 3, 6, 15, 26, 28, 51, 58, 59, 43), "android-dhcp-13"),
                    ouis=("00:12:47", "f4:f5:d8", "8c:f5:a3", "5c:e8:eb")),
}
SERVER_SOFTWARE = ("nginx/1.24.0", "Apache/2.4.57 (Debian)", "Microsoft-IIS/10.0",
                   "cloudflare", "envoy")
SSH_SOFTWARE = ("OpenSSH_9.6p1", "OpenSSH_8.9p1 Ubuntu-3ubuntu0.6", "dropbear_2022.83")
WORDS = ("api", "cdn", "static", "login", "mail", "www", "update", "telemetry", "assets",
         "files", "img", "video", "push", "auth", "store", "docs", "chat", "sync")
# (vlan, IPv4 prefix, share of clients, gateway MAC); the capture sees a trunk port.
SEGMENTS = ((None, "10.1", 0.80, "00:00:0c:9f:f0:01"), (20, "10.20", 0.10, "00:00:0c:9f:f0:14"),
            (30, "10.30", 0.10, "00:00:0c:9f:f0:1e"))


# Header layouts (RFC 791, 8200, 9293, 768 and the checksum pseudo-headers), packed here
# rather than through tracepcap.testing.frames, whose text-address parsing would dominate the
# build; application payloads do come from tracepcap.testing.
ETH_IPV4, ETH_IPV6, TPID_8021Q = 0x0800, 0x86DD, 0x8100
IP4 = struct.Struct("!BBHHHBBH4s4s")
IP6 = struct.Struct("!IHBB16s16s")
TCP_HDR = struct.Struct("!HHIIHHHH")
UDP_HDR = struct.Struct("!HHHH")
PSEUDO4 = struct.Struct("!4s4sxBH")
PSEUDO6 = struct.Struct("!16s16sI3xB")
U16 = struct.Struct("!H")
TCP_BITS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10}
PROTO_TCP, PROTO_UDP = 6, 17


class _Host:
    __slots__ = ("ip", "ip6", "mac", "vlan", "gw", "os", "ttl", "name", "local",
                 "ip_b", "ip6_b", "mac_b", "gw_b")

    def __init__(self, ip, ip6, mac, vlan, gw, os_, ttl, name, local):
        import ipaddress
        self.ip, self.ip6, self.mac, self.vlan, self.gw = ip, ip6, mac, vlan, gw
        self.os, self.ttl, self.name, self.local = os_, ttl, name, local
        self.ip_b = ipaddress.ip_address(ip).packed
        self.ip6_b = ipaddress.ip_address(ip6).packed if ip6 else None
        self.mac_b = bytes.fromhex(mac.replace(":", "")) if mac else None
        self.gw_b = bytes.fromhex(gw.replace(":", "")) if gw else None


class _Templates:
    """Builds session templates: each a list of (frame length, head, tail) where the
    client's port sits between head and tail (tail None: nothing to patch)."""

    def __init__(self, rng, n_clients: int) -> None:
        from tracepcap.testing import app, frames, tls
        self.f, self.app, self.tls = frames, app, tls
        self.rng = rng
        self.noise = rng.randbytes(4 * MIB)
        self.sessions: list[tuple[str, list]] = []
        self._ident = 0
        self._hosts(n_clients)

    # -- population ------------------------------------------------------------------

    def _mac(self, oui: str, n: int) -> str:
        return oui + ":" + ":".join(f"{b:02x}" for b in n.to_bytes(3, "big"))

    def _hosts(self, n_clients: int) -> None:
        rng, names = self.rng, list(PROFILES)
        weights = [PROFILES[o]["weight"] for o in names]
        self.clients: list[_Host] = []
        per_segment = {s[1]: 0 for s in SEGMENTS}
        for i in range(n_clients):
            vlan, prefix, _share, gw = rng.choices(SEGMENTS, [s[2] for s in SEGMENTS])[0]
            k = per_segment[prefix]
            per_segment[prefix] += 1
            ip = f"{prefix}.{k // 250 + 1}.{k % 250 + 2}"
            os_ = rng.choices(names, weights)[0]
            prof = PROFILES[os_]
            ip6 = f"2001:db8:1:{vlan or 1:x}::{k + 0x100:x}" if rng.random() < 0.2 else None
            mac = self._mac(rng.choice(prof["ouis"]), 0x100000 + i * 37)
            name = {"win": f"DESKTOP-{i:05X}", "linux": f"dev-linux-{i:04d}",
                    "mac": f"MacBook-Pro-{i}", "android": f"android-{i:08x}"}[os_]
            self.clients.append(_Host(ip, ip6, mac, vlan, gw, os_, prof["ttl"], name, False))
        # Servers on the untagged segment (their own MACs there), then the internet,
        # reached through the gateway (RFC 5737 / RFC 3849 documentation ranges).
        srv = lambda ip, ip6, oui, n, os_, name: _Host(  # noqa: E731
            ip, ip6, self._mac(oui, n), None, None, os_, PROFILES[os_]["ttl"], name, True)
        self.resolvers = [srv("10.1.0.53", "2001:db8:1:1::53", "00:25:90", 0x53, "linux",
                              "ns1.corp.example"),
                          srv("10.1.0.54", "2001:db8:1:1::54", "00:25:90", 0x54, "linux",
                              "ns2.corp.example")]
        self.dhcp_server = srv("10.1.0.2", None, "00:25:90", 0x02, "linux", "dhcp1.corp.example")
        self.web = [srv(f"10.1.0.{10 + i}", f"2001:db8:1:1::{10 + i:x}" if i < 3 else None,
                        "00:26:b9", 0x10 + i, "linux", f"intranet{i}.corp.example")
                    for i in range(8)]
        self.files = [srv(f"10.1.0.{20 + i}", None, "00:15:5d", 0x20 + i, "win",
                          f"fs{i}.corp.example") for i in range(6)]
        self.ssh = [srv(f"10.1.0.{30 + i}", None, "00:50:56", 0x30 + i, "linux",
                        f"git{i}.corp.example") for i in range(4)]
        self.internet: list[_Host] = []
        n = 0
        for net in ("192.0.2", "198.51.100", "203.0.113"):
            for last in range(1, 255, 2):
                name = f"{rng.choice(WORDS)}{n}.example.{('com', 'net', 'org')[n % 3]}"
                ip6 = f"2001:db8:ff::{n + 1:x}" if n % 6 == 0 else None
                h = _Host(f"{net}.{last}", ip6, None, None, None, "linux",
                          rng.choice((49, 50, 52, 53, 55, 56, 57, 116, 118)), name, False)
                self.internet.append(h)
                n += 1
        self.certs = [self.tls.certificate(f"{w}.example.com", [f"{w}.example.com"],
                                           issuer_cn="Example Issuing CA 1", serial=100 + i)
                      for i, w in enumerate(WORDS[:8])]

    # -- frames ----------------------------------------------------------------------

    def _l2(self, src: _Host, dst: _Host, cli: _Host, ethertype: int) -> bytes:
        """Ethernet header on the client's segment: a peer off that segment (the internet,
        or any server for a client on a VLAN) is seen behind the gateway's MAC."""
        def mac(h: _Host) -> bytes:
            return h.mac_b if h is cli or (h.local and cli.vlan is None) else cli.gw_b
        tag = b"" if cli.vlan is None else U16.pack(TPID_8021Q) + U16.pack(cli.vlan)
        return mac(dst) + mac(src) + tag + U16.pack(ethertype)

    def _ip(self, l2: bytes, s: bytes, d: bytes, ttl: int, proto: int, l4: bytes,
            port_at: int | None) -> tuple:
        """Frame = l2 + IPv4/IPv6 header + l4, padded to 60 bytes; split around the client
        port (at `port_at` inside l4) when there is one to patch per replay."""
        if len(s) == 16:
            ip = IP6.pack(6 << 28, len(l4), proto, ttl, s, d)
        else:
            self._ident = (self._ident + 1) & 0xFFFF
            h = IP4.pack(0x45, 0, 20 + len(l4), self._ident, 0x4000, ttl, proto, 0, s, d)
            ip = h[:10] + U16.pack(self.f.checksum(h)) + h[12:]
        frame = l2 + ip + l4
        if len(frame) < 60:
            frame += bytes(60 - len(frame))
        if port_at is None:
            return len(frame), frame, None
        at = len(l2) + len(ip) + port_at
        return len(frame), frame[:at], frame[at + 2:]

    def _l4(self, s: bytes, d: bytes, proto: int, header: bytes, payload: bytes, sum_at: int) -> bytes:
        seg = header + payload
        pseudo = PSEUDO6.pack(s, d, len(seg), proto) if len(s) == 16 else PSEUDO4.pack(s, d, proto, len(seg))
        value = self.f.checksum(pseudo + seg) or (0xFFFF if proto == PROTO_UDP else 0)
        return seg[:sum_at] + U16.pack(value) + seg[sum_at + 2:]

    def _udp(self, src: _Host, dst: _Host, cli: _Host, sport: int, dport: int, payload: bytes,
             v6: bool = False, port_at: int | None = None, l2: bytes | None = None) -> tuple:
        s, d = (src.ip6_b, dst.ip6_b) if v6 else (src.ip_b, dst.ip_b)
        l4 = self._l4(s, d, PROTO_UDP, UDP_HDR.pack(sport, dport, 8 + len(payload), 0), payload, 6)
        if l2 is None:
            l2 = self._l2(src, dst, cli, ETH_IPV6 if v6 else ETH_IPV4)
        return self._ip(l2, s, d, src.ttl, PROTO_UDP, l4, port_at)

    def _l2_raw(self, src_mac: bytes, dst_mac: bytes, cli: _Host) -> bytes:
        tag = b"" if cli.vlan is None else U16.pack(TPID_8021Q) + U16.pack(cli.vlan)
        return dst_mac + src_mac + tag + U16.pack(ETH_IPV4)

    def _payload(self, n: int) -> bytes:
        at = self.rng.randrange(len(self.noise) - n)
        return self.noise[at:at + n]

    def _tcp(self, kind: str, cli: _Host, srv: _Host, dport: int, turns: list[tuple[bool, bytes]],
             v6: bool) -> None:
        """Handshake, `turns` (from_client, data) cut into MSS segments with an ACK every
        second segment and after each turn, then FIN both ways (or an RST)."""
        f, rng = self.f, self.rng
        sport = 40000  # patched per replay
        mss = 1440 if v6 else 1460
        prof, sprof = PROFILES[cli.os], PROFILES[srv.os]
        cseq, sseq = rng.getrandbits(32), rng.getrandbits(32)
        c_b, s_b = (cli.ip6_b, srv.ip6_b) if v6 else (cli.ip_b, srv.ip_b)
        ethertype = ETH_IPV6 if v6 else ETH_IPV4
        l2_c, l2_s = self._l2(cli, srv, cli, ethertype), self._l2(srv, cli, cli, ethertype)
        out = []

        def send(from_client: bool, seq: int, ack: int, flags: str, data: bytes = b"",
                 options: bytes = b"") -> None:
            bits = sum(TCP_BITS[c] for c in flags)
            off = (20 + len(options)) // 4 << 12 | bits
            if from_client:
                hdr = TCP_HDR.pack(sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, off,
                                   prof["window"], 0, 0) + options
                out.append(self._ip(l2_c, c_b, s_b, cli.ttl, PROTO_TCP,
                                    self._l4(c_b, s_b, PROTO_TCP, hdr, data, 16), 0))
            else:
                hdr = TCP_HDR.pack(dport, sport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, off,
                                   sprof["window"], 0, 0) + options
                out.append(self._ip(l2_s, s_b, c_b, srv.ttl, PROTO_TCP,
                                    self._l4(s_b, c_b, PROTO_TCP, hdr, data, 16), 2))

        ts = rng.getrandbits(31)
        has_ts = "TS" in prof["order"]
        send(True, cseq, 0, "S", options=f.tcp_options(
            mss=mss, wscale=prof["wscale"], sack_ok=True, timestamps=(ts, 0), order=prof["order"]))
        send(False, sseq, cseq + 1, "SA", options=f.tcp_options(
            mss=mss, wscale=7, sack_ok=True, timestamps=(ts + 9, ts) if has_ts else None))
        cseq, sseq = cseq + 1, sseq + 1
        send(True, cseq, sseq, "A")
        for from_client, data in turns:
            seq, ack = (cseq, sseq) if from_client else (sseq, cseq)
            pieces = [data[at:at + mss] for at in range(0, len(data), mss)]
            for n, piece in enumerate(pieces):
                send(from_client, seq, ack, "PA" if n == len(pieces) - 1 else "A", piece)
                seq += len(piece)
                if n % 2 == 1 and n != len(pieces) - 1:
                    send(not from_client, ack, seq, "A")
            send(not from_client, ack, seq, "A")
            if from_client:
                cseq = seq
            else:
                sseq = seq
        if rng.random() < 0.1:
            send(True, cseq, sseq, "RA")
        else:
            send(True, cseq, sseq, "FA")
            send(False, sseq, cseq + 1, "FA")
            send(True, cseq + 1, sseq + 1, "A")
        self.sessions.append((kind, out))

    def _response_size(self) -> int:
        r = self.rng.random()
        if r < 0.6:
            return self.rng.randrange(200, 6000)
        if r < 0.92:
            return self.rng.randrange(6000, 60_000)
        return self.rng.randrange(60_000, 250_000)

    def tls_session(self, cli: _Host) -> None:
        rng, tls = self.rng, self.tls
        v6 = cli.ip6 is not None and rng.random() < 0.5
        pool = [s for s in self.internet if s.ip6] if v6 else self.internet
        srv = rng.choice(pool) if rng.random() < 0.85 or v6 else rng.choice(self.web)
        alpn = ("h2", "http/1.1") if rng.random() < 0.7 else ()
        hello = tls.tls_client_hello(srv.name, alpn=alpn,
                                     supported_versions=(tls.TLS13, tls.TLS12) if rng.random() < 0.6 else (),
                                     random=rng.randbytes(32), session_id=rng.randbytes(32))
        finished = (tls.record(tls.CT_CHANGE_CIPHER_SPEC, b"\x01")
                    + tls.record(tls.CT_HANDSHAKE, self._payload(rng.randrange(40, 120))))
        turns = [(True, hello),
                 (False, tls.tls_server_flight([rng.choice(self.certs)])),
                 (True, finished), (False, finished)]
        for _ in range(rng.choice((1, 1, 2, 3, 5))):
            turns.append((True, tls.tls_application_data(self._payload(rng.randrange(80, 900)))))
            turns.append((False, tls.tls_application_data(self._payload(self._response_size()))))
        self._tcp("tls", cli, srv, 443, turns, v6)

    def http_session(self, cli: _Host) -> None:
        rng, app = self.rng, self.app
        srv = rng.choice(self.web if rng.random() < 0.4 else self.internet)
        turns = []
        for _ in range(rng.choice((1, 1, 2, 4))):
            path = f"/{rng.choice(WORDS)}/{rng.randrange(10**6)}.{rng.choice(('js', 'png', 'html', 'json'))}"
            turns.append((True, app.http_request("GET", path, srv.name, PROFILES[cli.os]["ua"],
                                                 [("Accept", "*/*"), ("Accept-Encoding", "gzip")])))
            body = self._payload(self._response_size())
            turns.append((False, app.http_response(200, "OK", rng.choice(SERVER_SOFTWARE), body)))
        self._tcp("http", cli, srv, 80, turns, False)

    def ssh_session(self, cli: _Host) -> None:
        rng, app = self.rng, self.app
        turns = [(True, app.ssh_banner("OpenSSH_for_Windows_8.1" if cli.os == "win" else "OpenSSH_9.6p1")),
                 (False, app.ssh_banner(rng.choice(SSH_SOFTWARE)))]
        for _ in range(rng.randrange(3, 12)):
            turns.append((True, self._payload(rng.randrange(36, 400))))
            turns.append((False, self._payload(rng.randrange(36, 3000))))
        self._tcp("ssh", cli, rng.choice(self.ssh), 22, turns, False)

    def bulk_session(self, cli: _Host) -> None:
        """SMB-like: small requests, 64 KiB reads (or writes) back to back."""
        rng = self.rng
        turns = []
        upload = rng.random() < 0.3
        for _ in range(rng.randrange(2, 7)):
            turns.append((True, self._payload(65536 if upload else rng.randrange(100, 300))))
            turns.append((False, self._payload(rng.randrange(100, 300) if upload else 65536)))
        self._tcp("bulk", cli, rng.choice(self.files), 445, turns, False)

    def dns_lookup(self, cli: _Host) -> None:
        rng, app = self.rng, self.app
        v6 = cli.ip6 is not None and rng.random() < 0.3
        resolver = rng.choice(self.resolvers)
        target = rng.choice(self.internet)
        qtype = "AAAA" if target.ip6 and rng.random() < 0.5 else "A"
        ident = rng.getrandbits(16)
        values = [target.ip6 if qtype == "AAAA" else target.ip]
        values += [rng.choice(self.internet).ip for _ in range(rng.randrange(0, 3))] if qtype == "A" else []
        query = app.dns_query(ident, target.name, qtype)
        answer = app.dns_response(ident, (target.name, qtype),
                                  [(target.name, qtype, v, 300) for v in values])
        out = [self._udp(cli, resolver, cli, 50000, 53, query, v6, 0),
               self._udp(resolver, cli, cli, 53, 50000, answer, v6, 2)]
        self.sessions.append(("dns", out))

    def dhcp_lease(self, cli: _Host) -> None:
        rng, app = self.rng, self.app
        params, vendor = PROFILES[cli.os]["dhcp"]
        xid = rng.getrandbits(32)
        server = self.dhcp_server
        gw_ip = cli.ip.rsplit(".", 2)[0] + ".0.1"
        unbound = _Host("0.0.0.0", None, cli.mac, cli.vlan, cli.gw, cli.os, cli.ttl, cli.name, False)
        bcast = _Host("255.255.255.255", None, "ff:ff:ff:ff:ff:ff", None, None, "linux", 64, "", True)
        to_client = self._l2_raw(server.mac_b if cli.vlan is None else cli.gw_b, cli.mac_b, cli)
        to_all = self._l2_raw(cli.mac_b, b"\xff" * 6, cli)
        out = []
        for ask, reply in ((app.DISCOVER, app.OFFER), (app.REQUEST, app.ACK)):
            extra = {} if ask == app.DISCOVER else {"requested_ip": cli.ip, "server_id": server.ip}
            msg = app.dhcp(app.BOOTREQUEST, xid, cli.mac, ask, hostname=cli.name,
                           vendor_class=vendor, param_list=params, **extra)
            out.append(self._udp(unbound, bcast, cli, 68, 67, msg, l2=to_all))
            msg = app.dhcp(app.BOOTREPLY, xid, cli.mac, reply, yiaddr=cli.ip, siaddr=server.ip,
                           server_id=server.ip, lease_time=86400, subnet_mask="255.255.0.0",
                           router=gw_ip, dns_servers=[r.ip for r in self.resolvers],
                           domain="corp.example")
            out.append(self._udp(server, cli, cli, 67, 68, msg, l2=to_client))
        self.sessions.append(("dhcp", out))

    def arp(self, cli: _Host) -> None:
        f = self.f
        gw_ip = cli.ip.rsplit(".", 2)[0] + ".0.1"
        vlans = () if cli.vlan is None else (cli.vlan,)
        ask = f.ethernet(cli.mac, f.BROADCAST_MAC, f.ETH_ARP,
                         f.arp(f.ARP_REQUEST, cli.mac, cli.ip, "00:00:00:00:00:00", gw_ip), vlans, pad=True)
        ans = f.ethernet(cli.gw, cli.mac, f.ETH_ARP,
                         f.arp(f.ARP_REPLY, cli.gw, gw_ip, cli.mac, cli.ip), vlans, pad=True)
        self.sessions.append(("arp", [(len(ask), ask, None), (len(ans), ans, None)]))

    def announce(self, cli: _Host) -> None:
        """mDNS host announcement (Apple, Android) or NBNS registration (Windows, Linux)."""
        rng, app = self.rng, self.app
        if cli.os in ("mac", "android"):
            msg = app.mdns_announcement(app.mdns_host_records(cli.name, cli.ip))
            dst, mac, port = "224.0.0.251", "01:00:5e:00:00:fb", 5353
        else:
            msg = app.nbns_registration(rng.getrandbits(16), cli.name[:15], cli.ip)
            dst, mac, port = cli.ip.rsplit(".", 2)[0] + ".255.255", "ff:ff:ff:ff:ff:ff", 137
        to = _Host(dst, None, mac, None, None, "linux", 64, "", True)
        l2 = self._l2_raw(cli.mac_b, to.mac_b, cli)
        self.sessions.append(("announce", [self._udp(cli, to, cli, port, port, msg, l2=l2)]))

    def build(self) -> None:
        rng = self.rng
        for cli in self.clients:
            if rng.random() < 0.3:
                self.arp(cli)
            if rng.random() < 0.25:
                self.dhcp_lease(cli)
            if rng.random() < 0.3:
                self.announce(cli)
            for _ in range(rng.randrange(2, 6)):
                self.dns_lookup(cli)
            for _ in range(rng.choice((0, 1, 1, 1, 2, 2, 3))):
                r = rng.random()
                if r < 0.74:
                    self.tls_session(cli)
                elif r < 0.90:
                    self.http_session(cli)
                elif r < 0.96:
                    self.ssh_session(cli)
                else:
                    self.bulk_session(cli)


def generate(path: Path, target_bytes: int, seed: int = 20240601, clients: int = 3000) -> dict:
    """Write the capture (to a temporary name, renamed when complete); return its stats."""
    import random
    t0 = time.perf_counter()
    rng = random.Random(seed)
    built = _Templates(rng, clients)
    built.build()
    templates = built.sessions
    t_built = time.perf_counter() - t0
    kinds = [k for k, _ in templates]
    frames = [fr for _, fr in templates]
    replays = [0] * len(frames)
    record = struct.Struct("<IIII").pack
    slots_n = 64  # sessions in progress at once, interleaved frame by frame
    picks = [rng.randrange(slots_n) for _ in range(1 << 16)]
    gaps = [int(rng.expovariate(1 / 600)) + 1 for _ in range(1 << 16)]  # microseconds
    order = list(range(len(frames)))  # every template once per pass, in a new order each pass
    state = {"next": len(order)}

    def new_slot() -> list:
        if state["next"] == len(order):
            rng.shuffle(order)
            state["next"] = 0
        t = order[state["next"]]
        state["next"] += 1
        n = replays[t]
        replays[t] = n + 1
        port = 32768 + (t * 97 + n * 13) % 28000
        return [frames[t], port.to_bytes(2, "big"), 0]

    slots = [new_slot() for _ in range(slots_n)]
    tmp = path.with_name(path.name + ".partial")
    written, packets, j, t_us = 24, 0, 0, START_US
    with open(tmp, "wb", buffering=0) as out:
        # libpcap file header: magic (microseconds), version 2.4, zone, sigfigs, snaplen,
        # LINKTYPE_ETHERNET; then one 16-byte record header per frame, as PcapWriter writes.
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        parts: list[bytes] = []
        while written < target_bytes:
            j += 1
            k = picks[j & 0xFFFF]
            slot = slots[k]
            fr, portb, i = slot
            n, head, tail = fr[i]
            t_us += gaps[j & 0xFFFF]
            parts.append(record(t_us // 1_000_000, t_us % 1_000_000, n, n))
            parts.append(head)
            if tail is not None:
                parts.append(portb)
                parts.append(tail)
            written += 16 + n
            packets += 1
            i += 1
            if i == len(fr):
                slots[k] = new_slot()
            else:
                slot[2] = i
            if len(parts) > 40_000:
                out.write(b"".join(parts))
                parts.clear()
        out.write(b"".join(parts))
    os.replace(tmp, path)
    # Mix, from the templates and how often each was replayed (sessions cut at the end of
    # the file count whole: a rounding error of 64 sessions).
    mix = {"vlan": 0, "ipv6": 0, "tcp": 0, "udp": 0, "other": 0}
    sizes = {"60-127": 0, "128-511": 0, "512-1023": 0, "1024-1513": 0, "1514-1518": 0}
    by_kind: dict[str, int] = {}
    for t, count in enumerate(replays):
        if not count:
            continue
        by_kind[kinds[t]] = by_kind.get(kinds[t], 0) + count
        for n, head, _tail in frames[t]:
            vlan = head[12:14] == b"\x81\x00"
            et = head[16:18] if vlan else head[12:14]
            mix["vlan"] += count * vlan
            if et == b"\x86\xdd":
                mix["ipv6"] += count
                proto = head[(18 if vlan else 14) + 6]
            elif et == b"\x08\x00":
                proto = head[(18 if vlan else 14) + 9]
            else:
                proto = 0
            mix["tcp" if proto == 6 else "udp" if proto == 17 else "other"] += count
            bucket = ("60-127" if n < 128 else "128-511" if n < 512 else "512-1023" if n < 1024
                      else "1024-1513" if n < 1514 else "1514-1518")
            sizes[bucket] += count
    total = sum(sizes.values()) or 1
    hosts = [*built.clients, *built.internet, *built.resolvers, built.dhcp_server, *built.web,
             *built.files, *built.ssh]
    addresses = {h.ip for h in hosts} | {h.ip6 for h in hosts if h.ip6}
    return {"version": GEN_VERSION, "bytes": path.stat().st_size, "packets": packets,
            "target_bytes": target_bytes, "templates": len(frames),
            "template_frames": sum(len(fr) for fr in frames), "sessions": sum(replays),
            "sessions_by_kind": by_kind, "clients": len(built.clients),
            "addresses": len(addresses),
            "mix_pct": {k: round(100 * v / total, 1) for k, v in mix.items()},
            "frame_sizes_pct": {k: round(100 * v / total, 1) for k, v in sizes.items()},
            "mean_frame": round((path.stat().st_size - 24) / packets - 16, 1),
            "build_s": round(t_built, 1), "generate_s": round(time.perf_counter() - t0, 1)}


# =========================================================================================
# Workers: each measured row runs one of these in a fresh interpreter
# =========================================================================================

def _rss_mib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def worker_extract(path: str, max_flows: str | None = None) -> dict:
    from tracepcap.extract.pipeline import extract
    from tracepcap.limits import Limits
    limits = Limits() if max_flows is None else Limits(max_flows=int(max_flows))
    trace: list[tuple[int, int]] = []  # (percent of the file read, RSS MiB), every 1/8

    def progress(done: int, total: int) -> None:
        if done * 8 >= len(trace) * total and len(trace) <= 8:
            trace.append((round(100 * done / total), _rss_mib()))

    t0, c0 = time.perf_counter(), time.process_time()
    res = extract(Path(path), "bench", limits=limits, on_progress=progress)
    walk, walk_cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"packets": res.packets, "walk_s": walk, "walk_cpu_s": walk_cpu, "compiled": _compiled(),
            "hosts": len(res.hosts), "rss_trace": trace,
            "rss_end": _rss_mib(),
            "facts": len(res.observations), "conversations": res.conversations,
            "manifest": [[r.extractor, r.status, r.facts, r.error] for r in res.manifest],
            "extra": res.extra}


def worker_analyze(path: str, workers: str = "") -> dict:
    """The whole `tracepcap analyze FILE --json [--workers N] > /dev/null`, in this process,
    through the CLI's own `main`, on a fresh SQLite store in a temporary data directory; the
    stage functions it calls are wrapped with timers (wall and CPU seconds each): ingest (the
    file copied into the store), extract (the walk: `extract` in this process, or
    `run_extract` sharding it over spawned processes, whose own CPU is counted apart as
    "shards", from getrusage(RUSAGE_CHILDREN) around the walk), store (extract's database
    writes: everything `extract_capture` does beyond the walk), scan, adjudicate, swap (the
    staging swap and its manifest rows: `_swap_in` beyond adjudicate) and report (the JSON
    document). With no `workers` the CLI's default plan decides (sharded over the machine's
    cores above TRACEPCAP_PARALLEL_MIN_BYTES)."""
    import contextlib
    import functools
    import resource
    data_dir = tempfile.mkdtemp(prefix="analyze-bench-")
    os.environ["TRACEPCAP_DATA_DIR"] = data_dir
    import tracepcap.analysis as analysis
    import tracepcap.extract.persist as persist
    import tracepcap.present.cli as cli
    import tracepcap.present.commands.analyze as analyze_command
    stages: dict[str, list[float]] = {}
    plan: list[int] = []

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def timed(module, name: str, label: str, shards: bool = False) -> None:
        inner = getattr(module, name)

        @functools.wraps(inner)
        def wrapper(*args, **kwargs):
            wall, cpu, child = time.perf_counter(), time.process_time(), children_cpu()
            if shards:
                plan.append(kwargs.get("workers", 1))
            try:
                return inner(*args, **kwargs)
            finally:
                got = stages.setdefault(label, [0.0, 0.0])
                got[0] += time.perf_counter() - wall
                got[1] += time.process_time() - cpu
                if shards:  # the shard processes are reaped when their pool closes, inside
                    stages.setdefault("shards", [0.0, 0.0])[1] += children_cpu() - child
        setattr(module, name, wrapper)

    timed(analyze_command, "store_file", "ingest")
    timed(persist, "extract", "extract")  # the one-process walk (extract_capture calls it)
    timed(persist, "run_extract", "extract", shards=True)  # the sharded walk and its merge
    timed(analysis, "extract_capture", "extract+store")
    timed(analysis, "_scan", "scan")
    timed(analysis, "_adjudicate", "adjudicate")
    timed(analysis, "_swap_in", "swap+adjudicate")
    timed(analyze_command, "write_capture", "report")
    argv = ["analyze", path, "--json"] + (["--workers", workers] if workers else [])
    wall, cpu, child = time.perf_counter(), time.process_time(), children_cpu()
    try:
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            code = cli.main(argv)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    total = [time.perf_counter() - wall, time.process_time() - cpu]
    shard_cpu = stages.pop("shards", [0.0, 0.0])[1]
    sub = lambda a, b: [x - y for x, y in zip(stages.pop(a, [0, 0]), stages.get(b, [0, 0]))]  # noqa: E731
    stages["store"] = sub("extract+store", "extract")
    stages["swap"] = sub("swap+adjudicate", "adjudicate")
    stages["other"] = [t - sum(v[i] for v in stages.values()) for i, t in enumerate(total)]
    return {"packets": None, "exit": code, "stages": stages, "analyze_s": total,
            "shard_cpu_s": shard_cpu, "children_cpu_s": children_cpu() - child,
            "walk_processes": plan[0] if plan else 1}


def worker_hotpath(path: str) -> dict:
    from tracepcap.extract.decoders import DecodeError
    from tracepcap.extract.packet import decode_frame
    from tracepcap.extract.reader import CaptureReader
    t0, c0 = time.perf_counter(), time.process_time()
    frame = bad = 0
    with CaptureReader(Path(path)) as reader:
        for linktype, ts, wire_len, data in reader.records():
            frame += 1
            try:
                decode_frame(linktype, data, frame, ts, wire_len)
            except DecodeError:
                bad += 1
    return {"packets": frame, "walk_s": time.perf_counter() - t0,
            "walk_cpu_s": time.process_time() - c0, "undecodable": bad, "compiled": _compiled()}


# setup.py's HOT list, as module names under tracepcap.extract
COMPILED_MODULES = ("reader", "packet", "flows", "streams", "decoders.ethernet", "decoders.ipv4", "decoders.ipv6",
                    "decoders.tcp", "decoders.udp", "pipeline", "extractor", "segments", "extractors.dns",
                    "extractors.dns_answers", "extractors.http", "extractors.tls", "extractors.services",
                    "extractors.ttl", "extractors.link_paths", "decoders.dns", "decoders.http", "decoders.tls")


def _compiled() -> list[str]:
    """The hot path's modules this process runs compiled (setup.py; none with TRACEPCAP_PURE=1)."""
    import importlib
    from tracepcap import _pure
    names = COMPILED_MODULES
    return [n for n in names if _pure.is_compiled(importlib.import_module(f"tracepcap.extract.{n}"))]


def worker_dpkt(path: str) -> dict:
    import dpkt
    ip_types, l4_types = (dpkt.ip.IP, dpkt.ip6.IP6), (dpkt.tcp.TCP, dpkt.udp.UDP)
    t0, c0 = time.perf_counter(), time.process_time()
    n = ip = ports = bad = 0
    with open(path, "rb") as f:
        for _ts, buf in dpkt.pcap.Reader(f):
            n += 1
            try:
                eth = dpkt.ethernet.Ethernet(buf)
            except dpkt.UnpackError:
                bad += 1
                continue
            net = eth.data
            if isinstance(net, ip_types):
                _src, _dst = net.src, net.dst
                ip += 1
                l4 = net.data
                if isinstance(l4, l4_types):
                    _sport, _dport = l4.sport, l4.dport
                    ports += 1
    return {"packets": n, "walk_s": time.perf_counter() - t0, "walk_cpu_s": time.process_time() - c0,
            "ip": ip, "with_ports": ports, "undecodable": bad}


def worker_imports(path: str) -> dict:
    """The fixed cost inside rows a and b: interpreter, imports, extractor discovery."""
    from tracepcap.extract.pipeline import discover
    return {"packets": None, "extractors": [cls.NAME for cls in discover()]}


def worker_generate(path: str, target_bytes: int) -> dict:
    return generate(Path(path), target_bytes)


WORKERS = {"extract": worker_extract, "hotpath": worker_hotpath, "dpkt": worker_dpkt,
           "imports": worker_imports, "analyze": worker_analyze}


# =========================================================================================
# Measuring
# =========================================================================================

def measure(argv: list[str], workdir: Path, env: dict[str, str] | None = None) -> dict:
    """Run argv to completion; wall, CPU and peak RSS of that process.

    Under GNU time when present: its %M is the peak RSS of a process it forked itself, so
    nothing of ours is counted. `os.wait4` on a child of ours would not do: Linux carries
    the parent's RSS high-water mark into a child across fork/vfork + exec, so ru_maxrss
    would include this script's own peak (measured: a child of a 400 MiB parent running
    /bin/true reported 410 MiB). The fallback keeps that caveat.
    """
    stats = workdir / "time.txt"
    out, err = workdir / "stdout.txt", workdir / "stderr.txt"
    timed = os.access(GNU_TIME, os.X_OK)
    cmd = ([GNU_TIME, "-o", str(stats), "-f", "%e %M %U %S %x"] if timed else []) + argv
    t0 = time.perf_counter()
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen(cmd, stdout=o, stderr=e, env=env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    result = {"wall_s": wall, "rc": proc.returncode, "stdout": out.read_text(errors="replace"),
              "stderr": err.read_text(errors="replace")}
    if timed:
        fields = stats.read_text().split()[-5:]  # "Command exited with non-zero status" first
        result.update(rss_mib=int(fields[1]) / 1024, cpu_s=float(fields[2]) + float(fields[3]),
                      rc=int(fields[4]))
    else:
        result.update(rss_mib=usage.ru_maxrss / 1024, cpu_s=usage.ru_utime + usage.ru_stime)
    return result


def run_worker(kind: str, capture: Path, workdir: Path, pure: bool = False) -> dict:
    """Run one row's worker; `pure`: with TRACEPCAP_PURE=1, the hot path as Python source even
    where it is installed compiled (src/tracepcap/_pure.py)."""
    env = {k: v for k, v in os.environ.items() if k != "TRACEPCAP_PURE"}
    if pure:
        env["TRACEPCAP_PURE"] = "1"
    res = measure([sys.executable, str(Path(__file__).resolve()), "--worker", kind, str(capture)],
                  workdir, env)
    if res["rc"] != 0:
        raise SystemExit(f"{kind} worker failed (exit {res['rc']}):\n{res['stderr'][-4000:]}")
    res.update(json.loads(res["stdout"].strip().splitlines()[-1]))
    return res


def run_tshark(capture: Path, workdir: Path) -> dict | None:
    if not os.access(TSHARK, os.X_OK):
        return None
    argv = [TSHARK, "-n", "-r", str(capture), "-T", "fields"]
    for field in TSHARK_FIELDS:
        argv += ["-e", field]
    # stdout goes to a file in `measure`; to match "> /dev/null" exactly, send it there.
    res = measure(["/bin/sh", "-c", 'exec "$@" > /dev/null', "sh", *argv], workdir)
    if res["rc"] != 0:
        print(f"tshark failed (exit {res['rc']}): {res['stderr'][-2000:]}", file=sys.stderr)
        return None
    res["command"] = " ".join(argv) + " > /dev/null"
    return res


def warm(capture: Path) -> float:
    """Read the file once so every row starts with it in the page cache."""
    t0 = time.perf_counter()
    with open(capture, "rb", buffering=0) as f:
        buf = bytearray(8 * MIB)
        while f.readinto(buf):
            pass
    return time.perf_counter() - t0


def code_fingerprint() -> str:
    """Which extract code was measured: git HEAD (read only), whether the tree differs from
    it, and a hash of the extract package's sources as they are on disk."""
    import hashlib
    import importlib.util
    spec = importlib.util.find_spec("tracepcap")
    root = Path(next(iter(spec.submodule_search_locations))) / "extract"
    digest = hashlib.sha256()
    for source in sorted(root.rglob("*.py")):
        digest.update(str(source.relative_to(root)).encode() + b"\0" + source.read_bytes())
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "."], cwd=root, text=True,
                               capture_output=True, check=True).stdout.strip()
        head += " + uncommitted changes under extract/" if dirty else " (clean)"
    except (OSError, subprocess.CalledProcessError):
        head = "no git"
    return f"git {head}; extract/*.py sha256 {digest.hexdigest()[:12]}"


def compiled_vs_pure(rows: list[tuple[str, dict]], packets: int) -> None:
    """Issue 29: the walk per CPU second of its own (imports and start-up left out; tshark's
    whole process), compiled and pure side by side with dpkt and tshark."""
    cells = []
    for label, r in rows:
        if label[:3] not in ("a. ", "ap.", "b. ", "bp.", "c. ", "d. "):
            continue
        cpu = r.get("walk_cpu_s") or r["cpu_s"]
        mode = ""
        if "compiled" in r:
            mode = f" [{len(r['compiled'])}/{len(COMPILED_MODULES)} modules compiled]" if r["compiled"] else " [pure]"
        cells.append((label.split(" ", 1)[1] + mode, packets / cpu / 1000))
    if not cells:
        return
    print("per core walk kpkt/s per CPU second of the walk (goal: >= 300 compiled):")
    for name, rate in cells:
        print(f"         {name:<58}{rate:8.0f}")
    by = {label[:3]: r for label, r in rows}
    for row, pure in (("a. ", "ap."), ("b. ", "bp.")):
        if row in by and pure in by and by[row].get("compiled"):
            gain = by[pure]["walk_cpu_s"] / by[row]["walk_cpu_s"]
            print(f"         compiled {row.strip()} is {gain:.2f}x pure {pure} by the walk's CPU time")


def report(capture: Path, info: dict, rows: list[tuple[str, dict]], base: dict | None) -> None:
    size = capture.stat().st_size
    packets = info["packets"]
    print()
    print(f"capture  {capture}  {size:,} bytes ({size / MIB:,.1f} MiB), {packets:,} packets, "
          f"mean frame {info['mean_frame']} bytes")
    print(f"machine  {platform.node()}  {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}, load average before the rows "
          f"{info.get('load_before', float('nan')):.2f}")
    print(f"code     {code_fingerprint()}")
    print()
    head = f"{'row':<34}{'wall s':>9}{'CPU s':>9}{'kpkt/s':>9}{'MiB/s':>8}{'peak RSS MB':>13}"
    print(head)
    print("-" * len(head))
    for label, r in rows:
        wall = r["wall_s"]
        print(f"{label:<34}{wall:>9.1f}{r['cpu_s']:>9.1f}{packets / wall / 1000:>9.0f}"
              f"{size / MIB / wall:>8.1f}{r['rss_mib']:>13.0f}")
    print()
    by = dict(rows)
    ex = next((r for k, r in rows if k.startswith("a.")), None)
    hp = next((r for k, r in rows if k.startswith("b.")), None)
    if ex:
        print(f"sanity   extract: {ex['packets']:,} packets, {ex['hosts']:,} hosts, "
              f"{ex['facts']:,} facts, {ex['conversations']:,} conversations; "
              f"in-process walk {ex['walk_s']:.1f} s")
        print("         manifest: " + ", ".join(
            f"{name} {status} ({facts:,})" for name, status, facts, _err in ex["manifest"]))
        for name, status, _facts, error in ex["manifest"]:
            if error:
                print(f"         {name}: {error}")
        if ex["extra"]:
            print(f"         evicted early: {ex['extra']}")
        print("rss      extract's RSS as the walk goes (percent read: MB): " + ", ".join(
            f"{pct}%: {mib}" for pct, mib in ex["rss_trace"]) + f"; after finish(): {ex['rss_end']}")
    if base:
        print(f"fixed    interpreter + `import tracepcap.extract.pipeline` + discover(): "
              f"{base['wall_s']:.2f} s, {base['rss_mib']:.0f} MB peak RSS (inside rows a and b)")
    if hp:
        print(f"sanity   hot path: {hp['packets']:,} packets, {hp['undecodable']:,} undecodable; "
              f"in-process walk {hp['walk_s']:.1f} s")
    for label, r in rows:
        if r.get("packets") not in (None, packets):
            print(f"WARNING  {label} saw {r['packets']:,} packets, the generator wrote {packets:,}")

    def times(a: float, b: float) -> str:
        """a relative to b as "2.7x" or, below 1, as "1/2.7"."""
        return f"{a / b:.2f}x" if a >= b else f"1/{b / a:.2f}"

    def speed(ours: dict, theirs: dict) -> str:
        x = theirs["wall_s"] / ours["wall_s"]
        return f"{x:.2f}x faster" if x >= 1 else f"{1 / x:.2f}x slower"

    def short(label: str) -> str:
        return label[3:].split(" ")[0]

    print()
    peers = [(k, r) for k, r in rows if k[:2] in ("c.", "d.")]
    if ex and hp:
        cost = ex["wall_s"] - hp["wall_s"]
        print(f"ratios   extract takes {ex['wall_s'] / hp['wall_s']:.2f}x the hot path's wall time "
              f"(flows, stream heads and extractors add {cost:.1f} s, "
              f"{cost / packets * 1e6:.1f} us/packet)")
    no_evict = next((r for k, r in rows if k.startswith("a2.")), None)
    if ex and no_evict:
        evicted = ex["extra"].get("flows", 0)
        extra = ex["wall_s"] - no_evict["wall_s"]
        cpu = ex["cpu_s"] - no_evict["cpu_s"]
        print(f"flows    the default max_flows costs {extra:.1f} s wall, {cpu:.1f} s CPU over a "
              f"table that never evicts ({evicted:,} evictions, {cpu / max(evicted, 1) * 1e6:.0f} "
              f"us CPU each); peak RSS {ex['rss_mib']:.0f} MB with eviction, "
              f"{no_evict['rss_mib']:.0f} MB without")
    for ours_label, ours in (("hot path", hp), ("extract", ex)):
        if ours and peers:
            print(f"         {ours_label} is " + ", ".join(
                f"{speed(ours, r)} than {short(k)}" for k, r in peers)
                + f"; its peak RSS ({ours['rss_mib']:.0f} MB) is " + ", ".join(
                f"{times(ours['rss_mib'], r['rss_mib'])} {short(k)}'s" for k, r in peers))
    ts_row = by.get("d. tshark -T fields")
    analyses = [(k, r) for k, r in rows if k[:2] == "e." or k[:3] == "e1."]
    for label, an in analyses:
        st = an["stages"]
        total = an["analyze_s"]
        walkers = an.get("walk_processes", 1)
        print(f"analyze  {label[:3].strip()} whole `tracepcap analyze FILE --json{' --workers 1' if label.startswith('e1.') else ''} > /dev/null` "
              f"(exit {an['exit']}, walk in {walkers} process{'es' if walkers > 1 else ''}): "
              f"{an['wall_s']:.1f} s wall, {an['cpu_s']:.1f} s CPU, peak RSS {an['rss_mib']:.0f} MB; "
              f"in-process {total[0]:.1f} s wall, {total[1]:.1f} s CPU, by stage (wall s / CPU s / share of wall):")
        for name in ("ingest", "extract", "store", "scan", "adjudicate", "swap", "report", "other"):
            w, c = st.get(name, [0.0, 0.0])
            print(f"         {name:<11}{w:8.2f} {c:8.2f} {100 * w / total[0]:6.1f} %")
        shard_cpu = an.get("shard_cpu_s", 0.0)
        if walkers > 1:
            print(f"         shards     {'':8} {shard_cpu:8.2f}   (CPU of the {walkers} spawned walk "
                  f"processes, beside extract's own: merge, progress and pool start in this process)")
        rest = sum(st.get(n, [0, 0])[0] for n in ("store", "scan", "adjudicate", "swap"))
        rest_cpu = sum(st.get(n, [0, 0])[1] for n in ("store", "scan", "adjudicate", "swap"))
        print(f"         store + scan + adjudicate + swap: {100 * rest / total[0]:.1f} % of the analysis's "
              f"wall time, {100 * rest_cpu / (total[1] + shard_cpu):.1f} % of its CPU (goal: <= 20 %)")
        ew, ec = st["extract"]
        print(f"per core extract walk inside analyze: {packets / (ec + shard_cpu) / 1000:.0f} kpkt/s per "
              f"CPU second ({packets / ew / 1000:.0f} kpkt/s wall)")
        if ts_row:
            print(f"vs tshark whole analyze is {speed(an, ts_row)} than tshark -T fields ({len(TSHARK_FIELDS)} "
                  f"fields) by wall time, {ts_row['cpu_s'] / an['cpu_s']:.2f}x by CPU time "
                  f"(goal: >= 10x); peak RSS {times(an['rss_mib'], ts_row['rss_mib'])} tshark's")
    if ex:
        print(f"per core extract (row a) {packets / ex['cpu_s'] / 1000:.0f} kpkt/s per CPU second of the "
              f"whole process, {packets / ex['walk_s'] / 1000:.0f} kpkt/s by the wall time of its walk "
              f"(goal: >= 400 per core)")
    compiled_vs_pure(rows, packets)
    if peers and "d. tshark -T fields" in by:
        print(f"tshark   {by['d. tshark -T fields']['command']}")
    print(f"command  {' '.join([Path(sys.executable).name, *sys.argv])}")


# =========================================================================================
# Main
# =========================================================================================

def ensure_capture(out_dir: Path, size_gb: float, workdir: Path) -> tuple[Path, dict]:
    target = int(size_gb * GIB)
    capture = out_dir / f"synth-{size_gb:g}GiB.pcap"
    meta = capture.with_suffix(".json")
    if capture.exists() and meta.exists():
        info = json.loads(meta.read_text())
        if info.get("version") == GEN_VERSION and info.get("bytes") == capture.stat().st_size:
            print(f"reusing {capture} ({info['bytes']:,} bytes, {info['packets']:,} packets)")
            return capture, info
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"generating {capture} (>= {target:,} bytes) ...", flush=True)
    # In its own process: the templates take a few hundred MB, and this process must stay
    # small (see `measure`).
    res = measure([sys.executable, str(Path(__file__).resolve()), "--worker", "generate",
                   str(capture), "--target-bytes", str(target)], workdir)
    if res["rc"] != 0:
        raise SystemExit(f"generation failed:\n{res['stderr'][-4000:]}")
    info = json.loads(res["stdout"].strip().splitlines()[-1])
    meta.write_text(json.dumps(info, indent=1))
    print(f"generated in {res['wall_s']:.1f} s (templates {info['build_s']} s; generator peak "
          f"RSS {res['rss_mib']:.0f} MB): {info['packets']:,} packets, {info['templates']:,} "
          f"templates replayed as {info['sessions']:,} sessions, {info['addresses']:,} "
          f"host addresses ({info['clients']:,} clients)")
    print(f"mix      {info['mix_pct']}  frame sizes {info['frame_sizes_pct']}")
    print(f"sessions {info['sessions_by_kind']}")
    return capture, info


STRESS = {
    # 1,000,000 two-packet UDP conversations between 1,000 clients and one resolver: ten
    # times the default Limits.max_flows, so the flow table evicts 900,000 times.
    "flows": dict(conversations=1_000_000, clients=1_000),
    # 200,000 clients, one two-packet conversation each: the fact table's size follows the
    # number of hosts, not the capture's length (this file is about 40 MB).
    "hosts": dict(conversations=200_000, clients=200_000),
}


def ensure_stress(out_dir: Path, kind: str) -> tuple[Path, dict]:
    """A small capture of minimal DNS-sized UDP exchanges, shaped to stress one table."""
    spec = STRESS[kind]
    capture = out_dir / f"stress-{kind}.pcap"
    n, clients = spec["conversations"], spec["clients"]
    frames = 2 * n
    if not capture.exists():
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"generating {capture} ({n:,} conversations, {clients:,} clients) ...", flush=True)
        router = bytes.fromhex("00000c9ff001")
        payload = bytes(40)
        record, ip4, udp = struct.Struct("<IIII").pack, struct.Struct("!BBHHHBBH4s4s").pack, \
            struct.Struct("!HHHH").pack
        server = bytes([10, 0, 0, 53])
        tmp = capture.with_name(capture.name + ".partial")
        with open(tmp, "wb") as out:
            out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
            parts, t_us = [], START_US
            for i in range(n):
                c = i % clients
                client = bytes([10, 1 + (c >> 16), (c >> 8) & 0xFF, c & 0xFF])
                mac = bytes.fromhex("001422") + c.to_bytes(3, "big")
                port = 20000 + (i // clients) % 40000  # clear of well-known and 1900 (SSDP)
                for src, dst, sport, dport, l2 in (
                        (client, server, port, 53, router + mac + b"\x08\x00"),
                        (server, client, 53, port, mac + router + b"\x08\x00")):
                    l4 = udp(sport, dport, 8 + len(payload), 0) + payload
                    frame = l2 + ip4(0x45, 0, 20 + len(l4), 0, 0x4000, 64, 17, 0, src, dst) + l4
                    t_us += 50
                    parts.append(record(t_us // 1_000_000, t_us % 1_000_000, len(frame), len(frame)))
                    parts.append(frame)
                if len(parts) > 100_000:
                    out.write(b"".join(parts))
                    parts.clear()
            out.write(b"".join(parts))
        os.replace(tmp, capture)
    size = capture.stat().st_size
    return capture, {"packets": frames, "mean_frame": round((size - 24) / frames - 16, 1)}


def profile(capture: Path, top: int = 30) -> None:
    import cProfile
    import pstats
    from tracepcap.extract.pipeline import extract
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.runcall(extract, capture, "bench")
    print(f"extract under cProfile: {time.perf_counter() - t0:.1f} s")
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        kind, path = sys.argv[2], sys.argv[3]
        if kind == "generate":
            result = worker_generate(path, int(sys.argv[5]))
        else:
            name, _, arg = kind.partition(":")  # "extract:2000000": max_flows override
            result = WORKERS[name](path, *([arg] if arg else []))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-gb", type=float, default=1.0,
                        help="capture size in GiB (at least; default 1.0)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/tracepcap-bench"),
                        help="where the capture is generated and cached")
    parser.add_argument("--keep", action="store_true", help="keep the capture for the next run")
    parser.add_argument("--skip-peers", action="store_true",
                        help="TracePcap's rows only (no dpkt, no tshark)")
    parser.add_argument("--skip-analyze", action="store_true",
                        help="no row e (the whole `tracepcap analyze` with its stages)")
    parser.add_argument("--analyze-only", action="store_true",
                        help="rows e and e1 only (the whole analysis, default plan and --workers 1)")
    parser.add_argument("--profile", action="store_true",
                        help="run extract under cProfile in this process instead of the table")
    parser.add_argument("--stress", choices=sorted(STRESS),
                        help="instead of the LAN capture, a small one that stresses the flow "
                             "table (flows) or the fact table (hosts); TracePcap rows only")
    args = parser.parse_args()
    try:
        import tracepcap  # noqa: F401
    except ImportError:
        raise SystemExit("tracepcap is not importable: run with the project venv, "
                         ".venv/bin/python benchmarks/extract_bench.py")
    workdir = Path(tempfile.mkdtemp(prefix="extract-bench-"))
    capture = None
    try:
        if args.stress:
            capture, info = ensure_stress(args.out, args.stress)
        else:
            capture, info = ensure_capture(args.out, args.size_gb, workdir)
        if args.profile:
            profile(capture)
            return
        print(f"page cache warmed in {warm(capture):.1f} s; rows run one after another")
        info["load_before"] = os.getloadavg()[0]
        rows = []
        plan = [("a. tracepcap extract (all)", "extract"), ("b. tracepcap hot path", "hotpath"),
                ("c. dpkt header walk", "dpkt")]
        if not args.stress and not args.skip_analyze:
            plan.append(("e. tracepcap analyze (default)", "analyze"))
            plan.append(("e1. tracepcap analyze --workers 1", "analyze:1"))
        if args.stress == "flows":
            plan.insert(1, ("a2. extract, max_flows=2,000,000", "extract:2000000"))
        if args.analyze_only:
            plan = [p for p in plan if p[1].startswith("analyze")]
        if not args.analyze_only:  # the same walks with the hot path as Python source (issue 29)
            plan[2:2] = [("ap. extract (all), pure Python", "extract", True),
                         ("bp. hot path, pure Python", "hotpath", True)]
        for label, kind, *pure in plan:
            if kind == "dpkt" and (args.skip_peers or args.stress):
                continue
            print(f"  {label} ...", flush=True)
            rows.append((label, run_worker(kind, capture, workdir, pure=bool(pure))))
        if not (args.skip_peers or args.stress or args.analyze_only):
            print("  d. tshark -T fields ...", flush=True)
            res = run_tshark(capture, workdir)
            if res is None:
                print("  tshark not available or failed; row skipped")
            else:
                rows.append(("d. tshark -T fields", res))
        base = run_worker("imports", capture, workdir)
        report(capture, info, rows, base)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if capture is not None and not args.keep and capture.exists():
            capture.unlink(missing_ok=True)
            capture.with_suffix(".json").unlink(missing_ok=True)
            print(f"deleted {capture} (use --keep to keep it)")


if __name__ == "__main__":
    main()
