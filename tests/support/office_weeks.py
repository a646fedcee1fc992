"""Synthetic weeks of one small office LAN (10.9.0.0/24 behind router 10.9.0.1) for the
network tests: which devices are on, with which MACs, what each serves, who sends DHCP names,
who spoofs ARP, and which upstream address the clients' traffic leaves through."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tracepcap.testing.scenario import Scenario

ROUTER = ("10.9.0.1", "00:11:22:00:00:01")
ROUTER6 = "fe80::1"  # the router's link-local address, for devices with IPv6
WEEK = 7 * 24 * 3600.0
START = 1_700_000_000.0


@dataclass
class Device:
    ip: str
    mac: str
    serves: tuple[int, ...] = ()
    dhcp_name: str | None = None
    client_id: bytes | None = None  # an opaque DHCP client id (option 61, type 0)
    ip6: str | None = None  # an IPv6 address it also holds (same MAC: one device)


@dataclass
class Week:
    devices: list[Device]
    upstream: str = "198.51.100.7"  # the address the clients' traffic leaves through
    router_mac: str = ROUTER[1]
    spoof: tuple[str, str] | None = None  # (address, MAC) a shadow device claims by ARP
    extra: list = field(default_factory=list)  # callables (scenario, hosts by address, router, upstream)


def write_week(path: Path, n: int, week: Week) -> Path:
    """Week `n` (0-based: its first packet is n weeks after START) as a pcap at `path`."""
    sc = Scenario(start=START + n * WEEK)
    router = sc.host(ROUTER[0], week.router_mac)
    upstream = sc.host(week.upstream, via=router)
    hosts = {d.ip: sc.host(d.ip, d.mac) for d in week.devices}
    for d in week.devices:
        if d.dhcp_name:
            options = {"hostname": d.dhcp_name}
            if d.client_id is not None:
                options |= {"client_id": False, "extra_options": [(61, b"\x00" + d.client_id)]}
            sc.dhcp_exchange(sc.host(d.ip, d.mac), router, d.ip, router=ROUTER[0], **options)
        sc.arp_exchange(hosts[d.ip], router)
        if d.ip6:
            sc.ping(sc.host(d.ip6, d.mac), sc.host(ROUTER6, week.router_mac))
    clients = [d for d in week.devices if not d.serves]
    for i, d in enumerate(clients):
        sc.tcp_session(hosts[d.ip], upstream, 40000 + i, 443)
    for d in week.devices:
        for j, port in enumerate(d.serves):
            for i, c in enumerate(clients[:2]):
                sc.tcp_session(hosts[c.ip], hosts[d.ip], 41000 + 10 * i + j, port)
    if week.spoof:
        ip, mac = week.spoof
        shadow = sc.host(ip, mac)
        victim = hosts[clients[0].ip]
        for _ in range(3):
            sc.arp_exchange(victim, shadow)
    for more in week.extra:
        more(sc, hosts, router, upstream)
    return sc.write_pcap(path)


BASE = [Device("10.9.0.10", "00:11:22:00:00:10"), Device("10.9.0.11", "00:11:22:00:00:11"),
        Device("10.9.0.20", "00:11:22:00:00:20", serves=(445,)),
        Device("10.9.0.30", "02:aa:00:00:00:01", dhcp_name="alice-laptop", client_id=b"alice-laptop-1")]
