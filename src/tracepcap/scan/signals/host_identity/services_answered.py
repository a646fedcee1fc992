"""Ports the host answered on (measured: SYN-ACKs, replies) name the services it runs.

A web port answered for one or two clients by a host with an appliance's marks (a device
knowledge-base match: its vendor's cloud, an IoT service type, an embedded DHCP client) is its
own setup page, HNAP or SOAP API: what cameras, plugs and hubs serve to the app that sets them
up. It does not vote Web Server, which needs many clients or a general-purpose server that
says so in its Server header (Apache, nginx, IIS); the appliance's class is the knowledge
base's to name.

mDNS (udp/5353) is deliberately absent: every phone and laptop answers mDNS, and that does
not make it a DNS server (the system we replace made every iPad a "DNS Server").
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import HTTP_SERVER, SERVED
from ...context import LOCALITY_KINDS, HostFacts
from ...knowledge import MATCHED_KINDS, appliance
from ...vote import Vote

READS = (SERVED,)  # it votes only from these: not run for a host with none
CONSULTS = (HTTP_SERVER, *MATCHED_KINDS, *LOCALITY_KINDS)  # read only beside a kind of READS

# service port -> (service name, device type)
SERVICES = {
    "udp/53": ("DNS", "DNS Server"), "tcp/53": ("DNS", "DNS Server"),
    "udp/67": ("DHCP", "DHCP Server"),  # on the site only: see LAN_ONLY
    "tcp/80": ("HTTP", "Web Server"), "tcp/443": ("HTTPS", "Web Server"),
    "tcp/8080": ("HTTP", "Web Server"), "tcp/8443": ("HTTPS", "Web Server"),
    "tcp/25": ("SMTP", "Mail Server"), "tcp/465": ("SMTPS", "Mail Server"),
    "tcp/587": ("SMTP submission", "Mail Server"), "tcp/143": ("IMAP", "Mail Server"),
    "tcp/993": ("IMAPS", "Mail Server"), "tcp/110": ("POP3", "Mail Server"),
    "tcp/995": ("POP3S", "Mail Server"),
    "tcp/445": ("SMB", "File Server"), "tcp/139": ("NetBIOS session", "File Server"),
    "tcp/2049": ("NFS", "File Server"), "tcp/548": ("AFP", "File Server"),
    "tcp/21": ("FTP", "File Server"),
    "tcp/389": ("LDAP", "Directory Server"), "tcp/636": ("LDAPS", "Directory Server"),
    "tcp/88": ("Kerberos", "Directory Server"), "udp/88": ("Kerberos", "Directory Server"),
    "tcp/3268": ("Global Catalog", "Directory Server"),
    "tcp/1433": ("SQL Server", "Database Server"), "tcp/3306": ("MySQL", "Database Server"),
    "tcp/5432": ("PostgreSQL", "Database Server"), "tcp/1521": ("Oracle", "Database Server"),
    "tcp/27017": ("MongoDB", "Database Server"), "tcp/6379": ("Redis", "Database Server"),
    "tcp/631": ("IPP", "Printer"), "tcp/9100": ("raw printing", "Printer"), "tcp/515": ("LPD", "Printer"),
    "tcp/554": ("RTSP", "IP Camera"), "udp/554": ("RTSP", "IP Camera"),
    "udp/5060": ("SIP", "VoIP Phone"), "tcp/5060": ("SIP", "VoIP Phone"), "tcp/5061": ("SIP-TLS", "VoIP Phone"),
}
LAN_ONLY = frozenset(("udp/67",))  # a remote host answering DHCP serves no client of this LAN
BASE = 50
PER_EXTRA_CLIENT = 5
MAX_WEIGHT = 80
WEB_PORTS = frozenset(("tcp/80", "tcp/443", "tcp/8080", "tcp/8443"))
FEW_CLIENTS = 2  # an app setting the appliance up, and perhaps the phone's second address
GENERAL_SERVERS = ("apache", "nginx", "microsoft-iis", "iis/", "caddy", "openresty", "litespeed",
                   "gunicorn", "tomcat", "jetty", "cloudflare", "gws")


def _general_server(host: HostFacts) -> bool:
    return any(s in value.lower() for value in host.values(HTTP_SERVER) for s in GENERAL_SERVERS)


def vote(host: HostFacts) -> Iterator[Vote]:
    clients_by_port = host.traffic.clients
    setup_page = None  # None: not yet asked whether the host is an appliance
    for fact in host.served().values():
        if fact.value not in SERVICES or (fact.value in LAN_ONLY and host.locality == "remote"):
            continue
        service, label = SERVICES[fact.value]
        clients = len(clients_by_port.get(fact.value, ()))
        if fact.value in WEB_PORTS and clients <= FEW_CLIENTS:
            if setup_page is None:
                setup_page = bool(appliance(host)) and not _general_server(host)
            if setup_page:
                continue  # an appliance's setup page or API, not a web server
        weight = min(MAX_WEIGHT, BASE + PER_EXTRA_CLIENT * max(clients - 1, 0))
        who = f"for {clients} client{'s' if clients != 1 else ''}" if clients else f"{fact.count} times"
        yield Vote(label, weight, f"answered {service} on {fact.value} {who}, first in frame "
                   f"{fact.first_frame} (+{weight})", fact.grade, (fact.first_frame,))
