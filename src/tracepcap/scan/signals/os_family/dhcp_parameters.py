"""The DHCP parameter-request list (option 55, REPORTED): the options a DHCP client asks
for, in its order, are fixed in the client's code, so the list fingerprints the client and
with it the OS (the knowledge fingerbank.org collects; the lists below are the stock clients'
own, written down here from their defaults). A hand-configured client can send anything.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import DHCP_PARAMETER_LIST
from ...context import HostFacts
from ...vote import Vote

READS = (DHCP_PARAMETER_LIST,)  # it votes only from these: not run for a host with none

WEIGHT = 20
# option 55 as sent, codes in order -> (families, whose DHCP client)
PARAMETER_LISTS = {
    "1,3,6,15,31,33,43,44,46,47,119,121,249,252": (("Windows",), "Windows 8 to 11"),
    "1,15,3,6,44,46,47,31,33,121,249,43": (("Windows",), "Windows Vista and 7"),
    "1,15,3,6,44,46,47,31,33,249,43": (("Windows",), "Windows XP"),
    "1,121,3,6,15,108,114,119,252,95,44,46": (("macOS",), "macOS 13 and later"),
    "1,121,3,6,15,119,252,95,44,46": (("macOS",), "macOS before 13"),
    "1,121,3,6,15,108,114,119,252": (("iOS",), "iOS 16 and later"),
    "1,121,3,6,15,119,252": (("iOS",), "iOS before 16"),
    "1,3,6,15,26,28,51,58,59,43,114": (("Android",), "Android 11 and later"),
    "1,3,6,15,26,28,51,58,59,43": (("Android",), "Android before 11"),
    "1,28,2,3,15,6,119,12,44,47,26,121,42": (("Linux",), "ISC dhclient as Debian and Ubuntu ship it"),
}
APPLE_HEAD = "1,121,3,6,15,"  # Apple's clients alone ask for classless routes second
APPLE = (("macOS", "iOS"), "Apple's, which macOS and iOS share")


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(DHCP_PARAMETER_LIST), key=lambda f: (f.first_frame, f.value)):
        families, whose = PARAMETER_LISTS.get(fact.value) or (
            APPLE if fact.value.startswith(APPLE_HEAD) else ((), ""))
        for label in families:
            if label not in voted:
                voted.add(label)
                yield Vote(label, WEIGHT, f"its DHCP parameter request list {fact.value}, first in "
                           f"frame {fact.first_frame}, is {whose} (+{WEIGHT})", fact.grade,
                           (fact.first_frame,))
