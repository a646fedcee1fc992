"""host-identity: what kind of device is this host?

Signals: scan/signals/host_identity/ (OUI vendor, TTL class, services answered, traffic
pattern, router, service announcements).
"""

from ..contract import Adjudicator, Tier

ADJUDICATOR = Adjudicator(
    question="host-identity",
    title="Device type",
    tier=Tier.DETERMINISTIC,
    labels=("Router", "Firewall", "Switch", "Access Point", "DNS Server", "DHCP Server", "Web Server",
            "Mail Server", "File Server", "Database Server", "Directory Server", "Printer",
            "IP Camera", "VoIP Phone", "IoT Device", "Workstation", "Mobile", "Server", "Unknown"),
    contest_below=35,
    margin_for_full=60,
    position=10,
)
