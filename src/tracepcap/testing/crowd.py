"""A crowd: a small capture with many distinct source addresses and a few packets each, for
measuring and testing that the analysis stays linear in the number of hosts.

70 % of the hosts are on the segment (own MAC, a TCP SYN to a web server and its SYN-ACK;
every tenth also renews its DHCP lease naming itself, another tenth announces an mDNS name,
and every 5,000th claims a neighbour's name); 30 % are beyond a router (its MAC, TTL 52).
Three servers serve TLS certificates naming hosts that also announce those names by DHCP, so
every hostname signal and finding has work to do. Streamed to the file, never all in memory.
Addresses: 10.0.0.0/8 on the segment, 198.18.0.0/15 (RFC 2544) beyond the router.
"""

from __future__ import annotations

from pathlib import Path

from tracepcap.testing import dhcp as dhcp_msg
from tracepcap.testing import frames as f
from tracepcap.testing import names, tls
from tracepcap.testing.writers import PcapWriter

START = 1_700_000_000.0
ROUTER_MAC, SERVER_MAC, DHCP_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:00:03"
WEB_SERVER, DHCP_SERVER, ROUTER_IP = "10.255.0.10", "10.255.0.2", "10.255.0.1"
TLS_SERVERS = ("10.255.0.20", "10.255.0.21", "10.255.0.22")
NAME_CLASH_EVERY = 5000


def on_segment(i: int) -> bool:
    return i % 10 < 7


def address(i: int) -> str:
    """On-segment hosts in 10.0.0.0/9, the others in 198.18.0.0/15 (RFC 2544, not local)."""
    n = i + 256  # never x.x.0.0
    return f"{10 if on_segment(i) else 198}.{(0 if on_segment(i) else 18) + (n >> 16)}.{n >> 8 & 255}.{n & 255}"


def mac(i: int) -> str:
    return "0a:" + ":".join(f"{b:02x}" for b in (i + 1).to_bytes(5, "big"))


def build_crowd(path: Path, hosts: int) -> Path:
    """Write the capture with the synthetic frame writers; streamed, never all in memory."""
    tmp = path.with_suffix(".part")
    clock = [START]
    with open(tmp, "wb") as out:
        writer = PcapWriter(out)

        def emit(src_mac: str, dst_mac: str, src: str, dst: str, proto: int, l4: bytes, ttl: int) -> None:
            writer.write(clock[0], f.ethernet(src_mac, dst_mac, f.ETH_IPV4, f.ipv4(src, dst, proto, l4, ttl=ttl)))
            clock[0] += 0.0002

        def syn_exchange(src_mac: str, ip: str, ttl: int, sport: int, server: str, reply_mac: str) -> None:
            emit(src_mac, SERVER_MAC, ip, server, f.PROTO_TCP,
                 f.tcp(ip, server, sport, 443, 1000, 0, "S", options=f.tcp_options(mss=1460)), ttl)
            emit(SERVER_MAC, reply_mac, server, ip, f.PROTO_TCP,
                 f.tcp(server, ip, 443, sport, 5000, 1001, "SA", options=f.tcp_options(mss=1460)), 64)

        # TLS servers whose certificates name hosts that also announce those names by DHCP
        client_mac, client = mac(hosts + 1), "10.254.0.1"
        for n, server in enumerate(TLS_SERVERS):
            claimed = f"ws-{n * 10 + 10:06d}"
            hello = tls.tls_client_hello(f"{claimed}.corp.example")
            flight = tls.tls_server_flight([tls.self_signed_cert(f"{claimed}.corp.example")])
            syn_exchange(client_mac, client, 64, 40000 + n, server, client_mac)
            emit(client_mac, SERVER_MAC, client, server, f.PROTO_TCP,
                 f.tcp(client, server, 40000 + n, 443, 1001, 5001, "PA", hello), 64)
            emit(SERVER_MAC, client_mac, server, client, f.PROTO_TCP,
                 f.tcp(server, client, 443, 40000 + n, 5001, 1001 + len(hello), "PA", flight), 64)
        for i in range(hosts):
            ip = address(i)
            if on_segment(i):
                host_mac, ttl = mac(i), (128 if i % 2 else 64)
                if i % 10 == 0:
                    name = f"ws-{i - 10:06d}" if i and i % NAME_CLASH_EVERY == 0 else f"ws-{i:06d}"
                    ask = dhcp_msg.dhcp(dhcp_msg.BOOTREQUEST, i, host_mac, dhcp_msg.REQUEST, ciaddr=ip,
                                        hostname=name, param_list=(1, 3, 6, 15, 31, 33, 43, 44, 46, 47))
                    emit(host_mac, DHCP_MAC, ip, DHCP_SERVER, f.PROTO_UDP, f.udp(ip, DHCP_SERVER, 68, 67, ask), ttl)
                elif i % 10 == 1:
                    announce = names.mdns_announcement(names.mdns_host_records(f"mac-{i:06d}", ip))
                    emit(host_mac, f.multicast_mac("224.0.0.251"), ip, "224.0.0.251", f.PROTO_UDP,
                         f.udp(ip, "224.0.0.251", 5353, 5353, announce), 255)
                syn_exchange(host_mac, ip, ttl, 49152 + i % 16000, WEB_SERVER, host_mac)
            else:
                syn_exchange(ROUTER_MAC, ip, 52, 49152 + i % 16000, WEB_SERVER, ROUTER_MAC)
        # the router's own address, zero hops away, so it owns its MAC
        emit(ROUTER_MAC, SERVER_MAC, ROUTER_IP, WEB_SERVER, f.PROTO_TCP,
             f.tcp(ROUTER_IP, WEB_SERVER, 40100, 443, 1, 0, "S"), 255)
    tmp.replace(path)
    return path
