"""node-role: what role does this host play in its network?

HUMAN_ASSISTED: the machine suggests roles from the services a host answers and its traffic;
a suggestion is only a suggestion until a human accepts it (an override with the suggested
label), writes their own (an override with a free label) or discards it (a dismissal).
A confirmed role goes stale when the facts beneath it move on re-analysis. A mobile core's
network functions (UPF, SMF, AMF) and its base stations (gNB) are roles too.
"""

from ..contract import Adjudicator, Tier

ADJUDICATOR = Adjudicator(
    question="node-role",
    title="Role",
    tier=Tier.HUMAN_ASSISTED,
    labels=("Domain Controller", "DHCP Server", "DNS Resolver", "Default Gateway", "File Server",
            "Mail Server", "Database Server", "Print Server", "NTP Server", "Web Server",
            "Jump Host", "Historian", "Engineering Workstation", "UPF", "SMF", "AMF", "gNB", "Unknown"),
    contest_below=35,
    margin_for_full=50,
    position=40,
)
