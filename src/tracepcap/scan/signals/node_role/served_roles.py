"""Roles that follow from a service the host answered (measured: SYN-ACKs and replies)."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import SERVED
from ...context import LOCALITY_KINDS, HostFacts
from ...vote import Vote

READS = (SERVED,)  # it votes only from these: not run for a host with none
CONSULTS = LOCALITY_KINDS  # read only beside a kind of READS

WEIGHT = 40
LAN_ONLY = frozenset(("udp/67",))  # a remote host answering DHCP is no DHCP server of this LAN
ROLES = {  # served port -> (service, role)
    "udp/67": ("DHCP", "DHCP Server"), "udp/53": ("DNS", "DNS Resolver"), "tcp/53": ("DNS", "DNS Resolver"),
    "tcp/445": ("SMB", "File Server"), "tcp/2049": ("NFS", "File Server"), "tcp/21": ("FTP", "File Server"),
    "tcp/25": ("SMTP", "Mail Server"), "tcp/143": ("IMAP", "Mail Server"), "tcp/993": ("IMAPS", "Mail Server"),
    "tcp/1433": ("SQL Server", "Database Server"), "tcp/3306": ("MySQL", "Database Server"),
    "tcp/5432": ("PostgreSQL", "Database Server"), "tcp/1521": ("Oracle", "Database Server"),
    "tcp/631": ("IPP", "Print Server"), "tcp/9100": ("raw printing", "Print Server"),
    "tcp/515": ("LPD", "Print Server"), "udp/123": ("NTP", "NTP Server"),
    "tcp/80": ("HTTP", "Web Server"), "tcp/443": ("HTTPS", "Web Server"),
}


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in host.served().values():
        if fact.value in ROLES and not (fact.value in LAN_ONLY and host.locality == "remote"):
            service, role = ROLES[fact.value]
            if role not in voted:
                voted.add(role)
                yield Vote(role, WEIGHT, f"answers {service} on {fact.value}, first in frame "
                           f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
