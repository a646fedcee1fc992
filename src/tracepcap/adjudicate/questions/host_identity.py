"""host-identity: what kind of device is this host?

Precedence: a host-identity override, then a human-confirmed node-role (mapped below), then
the machine vote.
Signals: scan/signals/host_identity/ (the device knowledge base, OUI vendor of single-class makers, TTL class, services
answered, client traffic pattern, router, service announcements, name cues, announced device
models, Windows Browser roles, mobile-core protocols, LLDP/CDP, SNMP, client software).
"""

from ..contract import Adjudicator, Deference, Tier

# A human-confirmed node-role decides the device type (after a host-identity override).
ROLE_DEVICE_TYPES = {
    "Domain Controller": "Directory Server", "DHCP Server": "DHCP Server", "DNS Resolver": "DNS Server",
    "Default Gateway": "Router", "File Server": "File Server", "Mail Server": "Mail Server",
    "Database Server": "Database Server", "Print Server": "Printer", "Web Server": "Web Server",
    "Jump Host": "Server", "NTP Server": "Server", "Historian": "Server",
    "Engineering Workstation": "Workstation", "UPF": "Server", "SMF": "Server", "AMF": "Server",
}

# the things people own: a smart hub is a home-automation gateway or bridge (lock bridges too),
# a smart appliance a kitchen appliance or a scale, a media device a TV, streaming stick or
# smart speaker; "IoT Device" is the answer when the evidence says no more
IOT_CLASSES = ("IP Camera", "Smart Plug", "Smart Hub", "Sensor", "Smart Lock", "Smart Appliance",
               "Media Device")

# Kinds of device the evidence may not tell apart: a host serving both DNS and web pages is a
# Server whichever service the vote ranks first; a router and a firewall both forward.
DEVICE_CLASSES = {
    **dict.fromkeys(("DNS Server", "DHCP Server", "Web Server", "Mail Server", "File Server",
                     "Database Server", "Directory Server"), "Server"),
    **dict.fromkeys(("Router", "Firewall", "Switch", "Access Point"), "Network device"),
    **dict.fromkeys(("Workstation", "Mobile"), "Client device"),
    **dict.fromkeys(IOT_CLASSES, "IoT Device"),
}

ADJUDICATOR = Adjudicator(
    question="host-identity",
    title="Device type",
    tier=Tier.DETERMINISTIC,
    labels=("Router", "Firewall", "Switch", "Access Point", "DNS Server", "DHCP Server", "Web Server",
            "Mail Server", "File Server", "Database Server", "Directory Server", "Printer",
            "IP Camera", "Smart Plug", "Smart Hub", "Sensor", "Smart Lock", "Smart Appliance",
            "Media Device", "VoIP Phone", "IoT Device", "Workstation", "Mobile", "Server", "Unknown"),
    contest_below=35,
    margin_for_full=60,
    position=10,
    defers=Deference("node-role", ROLE_DEVICE_TYPES),
    parents=DEVICE_CLASSES,
)
