"""Captures whose findings are known: an ARP spoofer posing as the gateway, and a client of
many CDN servers that share certificates (the shape that floods a capture with name
claims). Used by the tests of the findings banner, the host pages and the benchmarks."""

from __future__ import annotations

from pathlib import Path

from . import frames as f
from . import tls
from .scenario import Scenario

GATEWAY = ("10.40.0.1", "10:13:31:f1:39:76")  # a Technicolor home router
VICTIM = ("10.40.0.20", "02:00:00:00:40:20")
SPOOFER = ("10.40.0.66", "b8:27:eb:3d:08:db")  # a Raspberry Pi


def _gratuitous_arp(sc: Scenario, mac: str, ip: str) -> None:
    sc.emit(f.ethernet(mac, f.BROADCAST_MAC, f.ETH_ARP, f.arp(f.ARP_REPLY, mac, ip, f.BROADCAST_MAC, ip),
                       pad=True))


def arp_spoofing(sc: Scenario | None = None) -> Scenario:
    """10.40.0.66 (its own address, its own MAC) announces the gateway's address as its own and
    then answers as the gateway: a high ip-mac-conflict naming the gateway (the victim of the
    lie) and 10.40.0.66 (the spoofer)."""
    sc = sc or Scenario()
    gateway, victim, spoofer = sc.host(*GATEWAY), sc.host(*VICTIM), sc.host(*SPOOFER)
    sc.arp_exchange(victim, gateway)
    sc.arp_exchange(victim, spoofer)
    sc.dns_lookup(victim, gateway, "example.org", ["93.184.216.34"])
    sc.ping(victim, sc.host("93.184.216.34", via=gateway, ttl=50))
    sc.ping(spoofer, victim, count=2)
    for _ in range(2):  # the lie, repeated
        _gratuitous_arp(sc, spoofer.mac, gateway.ip)
    posing = sc.host(gateway.ip, spoofer.mac, ttl=63)  # forwards the gateway's answers, one hop on
    sc.dns_lookup(victim, posing, "example.com", ["93.184.216.35"])
    sc.dns_lookup(victim, posing, "example.net", ["93.184.216.36"])
    return sc


def shared_certificates(sc: Scenario | None = None, *, names: int = 40, servers_per_name: int = 2) -> Scenario:
    """A client fetching `names` names, each from `servers_per_name` remote servers serving the
    same certificate (a CDN): every name is held by certificate by several hosts."""
    sc = sc or Scenario()
    router = sc.host("192.168.7.1", "10:13:31:f1:39:77")
    client = sc.host("192.168.7.10", "02:00:00:00:07:10")
    sc.arp_exchange(client, router)
    port = 40000
    for n in range(names):
        name = f"cdn{n:03d}.example.net"
        for k in range(servers_per_name):
            server = sc.host(f"198.51.{100 + k}.{n + 1}", via=router, ttl=52)
            port += 1
            sc.tcp_session(client, server, port, 443, client=[tls.tls_client_hello(name)],
                           server=[tls.tls_server_flight([tls.self_signed_cert(name)])])
    return sc


def build(path: Path, *, spoof: bool = True, shared_names: int = 0) -> Path:
    """One capture holding the spoofing and (with `shared_names`) the CDN shapes."""
    sc = arp_spoofing() if spoof else Scenario()
    if shared_names:
        shared_certificates(sc, names=shared_names)
    return sc.write_pcap(path)
