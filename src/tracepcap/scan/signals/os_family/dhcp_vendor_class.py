"""The DHCP vendor class (option 60, or DHCPv6 option 16; REPORTED): the DHCP client names
itself. "MSFT 5.0" is every Windows since 2000; Android's client writes "android-dhcp-<ver>";
dhcpcd writes "dhcpcd-<ver>:<kernel>-<release>:<machine>:<platform>" and so names the kernel
it runs on; BusyBox's udhcpc is the client of embedded Linux firmware.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import DHCP_VENDOR_CLASS
from ...context import HostFacts
from ...vote import Vote

READS = (DHCP_VENDOR_CLASS,)  # it votes only from these: not run for a host with none

WEIGHT = 20
# vendor class prefix -> (family, whose client); first match wins
VENDOR_CLASSES = (
    ("MSFT ", "Windows", "Windows' DHCP client"),
    ("android-dhcp-", "Android", "Android's DHCP client"),
    ("udhcp", "Embedded", "BusyBox's udhcpc, the client of embedded Linux firmware"),
    ("Hewlett-Packard JetDirect", "Embedded", "HP's JetDirect print server firmware"),
    ("ciscopnp", "Network OS", "Cisco Plug and Play, sent by IOS and IOS XE"),
    ("Polycom-", "Embedded", "the DHCP client of Polycom's desk phone firmware"),
    ("yealink", "Embedded", "the DHCP client of Yealink's desk phone firmware"),
    ("Cisco Systems, Inc. IP Phone", "Embedded", "the DHCP client of Cisco's desk phone firmware"),
)
DHCPCD_KERNELS = {"Linux": "Linux", "FreeBSD": "BSD", "NetBSD": "BSD", "OpenBSD": "BSD",
                  "DragonFly": "BSD"}


def family(vendor_class: str) -> tuple[str, str] | None:
    """(family, whose client) for a vendor class, None if it names none."""
    for prefix, label, whose in VENDOR_CLASSES:
        if vendor_class.startswith(prefix):
            return label, whose
    if vendor_class.startswith("dhcpcd-") and vendor_class.count(":") >= 1:
        kernel = vendor_class.split(":")[1].split("-")[0]
        if kernel in DHCPCD_KERNELS:
            return DHCPCD_KERNELS[kernel], f"dhcpcd running on {kernel}"
    return None


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(DHCP_VENDOR_CLASS), key=lambda f: (f.first_frame, f.value)):
        if (found := family(fact.value)) and found[0] not in voted:
            voted.add(found[0])
            yield Vote(found[0], WEIGHT, f"its DHCP vendor class {fact.value}, first in frame "
                       f"{fact.first_frame}, is {found[1]} (+{WEIGHT})", fact.grade, (fact.first_frame,))
