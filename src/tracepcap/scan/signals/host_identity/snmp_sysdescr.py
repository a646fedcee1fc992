"""What an SNMP agent's system description says the device is: printers, cameras, access
points, firewalls, switches and routers describe themselves in sysDescr.0 in recognisable
words. REPORTED and free text, so a hint below what LLDP/CDP capabilities say."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import SNMP_SYSDESCR
from ....patterns import compile_lazily
from ...context import HostFacts
from ...vote import Vote

READS = (SNMP_SYSDESCR,)  # it votes only from these: not run for a host with none

WEIGHT = 45
# (pattern on the lower-cased sysDescr, device type); the first match wins, so the more
# specific kinds come before the switch and router families their vendors also make
SYSDESCR_PATTERNS = tuple((compile_lazily(pattern), label) for pattern, label in (
    (r"jetdirect|laserjet|officejet|printer|ethernet multi-environment|lexmark|xerox|ricoh|kyocera", "Printer"),
    (r"network camera|ip camera|axis \d|hikvision|dahua", "IP Camera"),
    (r"access point|aironet|unifi ap|wireless ap", "Access Point"),
    (r"adaptive security appliance|fortigate|pan-os|palo alto|sonicwall|pfsense|firewall", "Firewall"),
    (r"catalyst|c2960|c3560|c3650|c3750|c3850|c9200|c9300|nexus|procurve|switch", "Switch"),
    (r"routeros|mikrotik|ios xr|isr\d|c1900|c2900|c3900|edgeos|vyos|router", "Router"),
))


def vote(host: HostFacts) -> Iterator[Vote]:
    for fact in host.facts(SNMP_SYSDESCR):
        text = fact.value.lower()
        label = next((kind for pattern, kind in SYSDESCR_PATTERNS if pattern.search(text)), None)
        if label:
            shown = fact.value if len(fact.value) <= 80 else fact.value[:77] + "..."
            yield Vote(label, WEIGHT, f"its SNMP sysDescr reads \"{shown}\", frame "
                       f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
            return
