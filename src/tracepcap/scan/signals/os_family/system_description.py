"""What a host's management agents say it runs (REPORTED): SNMP sysDescr (RFC 3418), LLDP
system description and platform (IEEE 802.1AB), CDP software version and platform (the
`lldp-software` and `lldp-platform` kinds, source "lldp" or "cdp"). Network operating systems
name themselves there ("Cisco IOS Software, C2960 ...", "Juniper Networks ... JUNOS",
"Arista Networks EOS"); net-snmp on a server writes its kernel ("Linux db1 5.15.0 ...");
Windows' SNMP service writes "Software: Windows Version 6.3". Network OS names come first:
several of them run on a Linux kernel and say so further along the same line."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....extract.kinds import LLDP_PLATFORM, LLDP_SOFTWARE, SNMP_SYSDESCR
from ....patterns import compile_lazily
from ...context import HostFacts
from ...vote import Vote

READS = (SNMP_SYSDESCR, LLDP_SOFTWARE, LLDP_PLATFORM)  # it votes only from these: not run for a host with none

WEIGHT = 30  # the device's own agent describing its system: strong, but only a claim
KINDS = (SNMP_SYSDESCR, LLDP_SOFTWARE, LLDP_PLATFORM)
# what a reason calls each (kind, source): LLDP and CDP share the lldp-* kinds
NAMES = {(SNMP_SYSDESCR.name, "snmp"): "SNMP sysDescr",
         (LLDP_SOFTWARE.name, "lldp"): "LLDP system description",
         (LLDP_SOFTWARE.name, "cdp"): "CDP software version",
         (LLDP_PLATFORM.name, "lldp"): "LLDP platform", (LLDP_PLATFORM.name, "cdp"): "CDP platform"}
# pattern (case-insensitive) -> family; first match wins
DESCRIPTIONS = tuple((compile_lazily(pattern, re.I), family) for pattern, family in (
    (r"ip phone|jetdirect|printer|multi-environment", "Embedded"),
    (r"cisco|junos|juniper|arista|routeros|mikrotik|fortigate|fortios|pan-os|procurve|aruba"
     r"|comware|huawei versatile routing|extremexos|nx-os", "Network OS"),
    (r"\bwindows\b", "Windows"), (r"\bdarwin\b|mac ?os", "macOS"), (r"\blinux\b", "Linux"),
    (r"\b(free|net|open)bsd\b", "BSD"),
))


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    facts = [fact for kind in KINDS for fact in host.facts(kind)]
    for fact in sorted(facts, key=lambda f: (f.first_frame, f.kind, f.value)):
        label = next((family for pattern, family in DESCRIPTIONS if pattern.search(fact.value)), None)
        if label and label not in voted:
            voted.add(label)
            shown = fact.value if len(fact.value) <= 80 else fact.value[:77].rsplit(" ", 1)[0] + "..."
            named = NAMES.get((fact.kind, fact.source), fact.kind)
            yield Vote(label, WEIGHT, f"its {named} is {shown}, first in frame {fact.first_frame} "
                       f"(+{WEIGHT})", fact.grade, (fact.first_frame,))
