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


# --- issue 27: an eight-week office series with planted events, and its scoring -------------
# Week 1 and 2 are the baseline office (20 workstations using SMB on the file server, a printer
# serving IPP and raw printing, a workstation logging into its mail by cleartext IMAP, a laptop
# that comes and goes, a couple of workstations off each week). Behaviour of week 1 comes back
# in later weeks after skipping some (IMAP in weeks 1, 4, 6, 8; the printer's IPP in odd weeks;
# SMB by a shifting set of workstations). Planted: week 3 a personal laptop with a WireGuard VPN,
# telnet into the file server and BitTorrent DHT; week 4 an FTP exfiltration from a workstation
# with the gateway changing; week 5 a shadow device spoofing ARP for a workstation's address;
# week 6 two traffic peaks; week 7 the gateway back; week 8 near baseline.

PRINTER = Device("10.9.0.40", "00:80:77:00:00:40", serves=(631, 9100))
FILE_SERVER = Device("10.9.0.20", "00:11:22:00:00:20", serves=(445,))
ROAMING = Device("10.9.0.50", "02:aa:00:00:00:50", dhcp_name="sales-laptop", client_id=b"sales-laptop-1")
PERSONAL = Device("10.9.0.77", "3c:22:fb:00:00:77", dhcp_name="bobs-macbook", client_id=b"bobs-macbook-1")
WORKSTATIONS = [Device(f"10.9.0.{100 + i}", f"00:11:22:00:01:{i:02x}") for i in range(20)]
MAIL, SWARM, FTP_OUT, WG_SERVER = "198.51.100.25", "192.0.2.66", "203.0.113.50", "198.51.100.200"
SECOND_UPSTREAM = "203.0.113.9"
SHADOW = "66:66:66:00:00:01"
BIG = 12_000_000  # bytes: over the changes' peak floor


def _smb(active):
    def smb(sc, hosts, router, upstream):
        for i, d in enumerate(active):
            sc.tcp_session(hosts[d.ip], hosts[FILE_SERVER.ip], 45000 + i, 445, client=[b"\x00" * 72])
    return smb


def _imap(sc, hosts, router, upstream):
    mail = sc.host(MAIL, via=router)
    sc.tcp_session(hosts[WORKSTATIONS[1].ip], mail, 46000, 143, client=[b"a1 LOGIN clerk s3cret\r\n"],
                   server=[b"* OK IMAP ready\r\n"])


def _personal(sc, hosts, router, upstream):
    """The personal laptop: a WireGuard VPN, telnet into the file server, BitTorrent DHT."""
    from tracepcap.testing import identity
    me = hosts[PERSONAL.ip]
    sc.udp(me, sc.host(WG_SERVER, via=router), 41820, 51820, identity.wireguard_initiation(0x77))
    sc.tcp_session(me, hosts[FILE_SERVER.ip], 47000, 23, client=[b"admin\r\n", b"letmein\r\n"],
                   server=[b"login: ", b"Password: "])
    peer = sc.host(SWARM, via=router)
    sc.udp(me, peer, 51413, 6881, b"d1:ad2:id20:" + bytes(20) + b"e1:q4:ping1:t2:aa1:y1:qe")
    sc.udp(peer, me, 6881, 51413, b"d1:rd2:id20:" + bytes(20) + b"e1:t2:aa1:y1:re")


def _exfil(sc, hosts, router, upstream):
    site = sc.host(FTP_OUT, via=router)
    desk = hosts[WORKSTATIONS[3].ip]
    sc.tcp_session(desk, site, 48000, 21, client=[b"USER backup\r\nPASS hunter2\r\nSTOR dump.tar\r\n"],
                   server=[b"220 ready\r\n"])
    sc.tcp_session(desk, site, 48001, 50000, client=[bytes(BIG)], segment=60000)


def _peaks(sc, hosts, router, upstream):
    for n, d in enumerate((WORKSTATIONS[7], WORKSTATIONS[8])):
        sc.tcp_session(hosts[d.ip], upstream, 48100 + n, 443, client=[bytes(BIG)], segment=60000)


def series_week(n: int) -> Week:
    """Week `n` (0-based) of the eight-week series."""
    present = [d for i, d in enumerate(WORKSTATIONS) if (i + n) % 9 != 0]  # two or three off each week
    printer = PRINTER if n % 2 == 0 else Device(PRINTER.ip, PRINTER.mac, serves=(9100,))
    devices = [FILE_SERVER, printer, *present]
    if n in (0, 2, 3, 5, 7):
        devices.append(ROAMING)
    if n in (2, 6):
        devices.append(PERSONAL)
    smb_users = [d for i, d in enumerate(present) if (i + n) % 3 != 0]
    extra = [_smb(smb_users)]
    if n in (0, 3, 5, 7):
        extra.append(_imap)
    upstream = SECOND_UPSTREAM if n in (3, 4, 5) else "198.51.100.7"
    spoof = None
    if n == 2:
        extra.append(_personal)
    if n == 3:
        extra.append(_exfil)
    if n == 4:
        spoof = (WORKSTATIONS[6].ip, SHADOW)
    if n == 5:
        extra.append(_peaks)
    return Week(devices, upstream=upstream, spoof=spoof, extra=extra)


#: (week, change kind, strings its summary holds): what each week plants
PLANTED = [
    (2, "new-tunnel", (PERSONAL.ip, "wireguard")),
    (2, "new-application", (PERSONAL.ip, "BitTorrent DHT")),
    (2, "new-application", (PERSONAL.ip, "telnet")),
    (2, "new-cleartext-login", (PERSONAL.ip, "telnet")),
    (2, "new-service", (FILE_SERVER.ip, "tcp/23")),
    (3, "new-cleartext-login", (WORKSTATIONS[3].ip, "ftp")),
    (3, "new-application", (WORKSTATIONS[3].ip, "FTP")),
    (3, "traffic-peak", (WORKSTATIONS[3].ip, FTP_OUT)),
    (3, "gateway-changed", (SECOND_UPSTREAM,)),
    (4, "address-moved", (WORKSTATIONS[6].ip, SHADOW)),
    (5, "traffic-peak", (WORKSTATIONS[7].ip,)),
    (5, "traffic-peak", (WORKSTATIONS[8].ip,)),
    (6, "gateway-changed", ("198.51.100.7",)),
]
#: week-1 behaviour, as summary strings: never a "new" event later
WEEK1 = [("new-cleartext-login", "imap"), ("new-service", "tcp/631"), ("new-application", "SMB"),
         ("device-appeared", ROAMING.ip), ("device-appeared", PRINTER.ip)]
TOP = ("high", "medium")


def score(events_by_week: list[list]) -> dict:
    """Per week (a list of read.networks.Change each) the events by severity and the top-level
    count (high and medium), the planted events found at high or medium in their week and those
    missed, and week-1 behaviour reported as new later."""
    weeks = [{s: sum(e.severity == s for e in week) for s in ("high", "medium", "low")}
             for week in events_by_week]
    found, missed = [], []
    for week, kind, texts in PLANTED:
        hit = [e for e in events_by_week[week] if e.kind == kind and e.severity in TOP
               and all(t in e.summary for t in texts)]
        (found if hit else missed).append((week, kind, texts))
    # "new": ranked high or medium, or saying it is new to the network (a device starting what
    # other devices here did before is low: known on this network)
    renewed = [(n, e.kind, e.summary) for n, week in enumerate(events_by_week) if n > 0 for e in week
               for kind, text in WEEK1 if e.kind == kind and text in e.summary
               and (e.severity in TOP or "new to this network" in e.summary)]
    top = [sum(w[s] for s in TOP) for w in weeks[1:]]
    return {"weeks": weeks, "found": found, "missed": missed, "renewed": renewed,
            "average_top": sum(top) / max(len(top), 1)}
