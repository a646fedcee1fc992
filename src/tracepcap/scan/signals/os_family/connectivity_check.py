"""The captive-portal / connectivity probe a host looks up (`dns-query`): each OS's network
stack checks, as soon as it joins a network, that it reaches the internet, by fetching a
fixed URL at a host name of its maker's: Windows' Network Connectivity Status Indicator
(www.msftconnecttest.com, www.msftncsi.com), Android's captive-portal check
(connectivitycheck.gstatic.com, connectivitycheck.android.com), Apple's (captive.apple.com,
macOS and iOS alike), NetworkManager's on Ubuntu, GNOME and Fedora desktops. These are
documented defaults, so the name says which OS asked; but any program can look any name up,
so the vote is a hint (INFERRED), weaker than what the host says of itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import DNS_QUERY
from ...context import HostFacts
from ...vote import Vote

READS = (DNS_QUERY,)  # it votes only from these: not run for a host with none

WEIGHT = 20
PROBES = {
    "www.msftconnecttest.com": ("Windows", "Windows' connectivity indicator (NCSI) probe"),
    "ipv6.msftconnecttest.com": ("Windows", "Windows' connectivity indicator (NCSI) probe"),
    "www.msftncsi.com": ("Windows", "Windows' connectivity indicator (NCSI) probe"),
    "connectivitycheck.gstatic.com": ("Android", "Android's captive-portal check"),
    "connectivitycheck.android.com": ("Android", "Android's captive-portal check"),
    "captive.apple.com": ("Apple", "Apple's captive-portal check (macOS and iOS)"),
    "connectivity-check.ubuntu.com": ("Linux", "NetworkManager's connectivity check on Ubuntu"),
    "nmcheck.gnome.org": ("Linux", "NetworkManager's connectivity check on GNOME desktops"),
}


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(DNS_QUERY), key=lambda f: (f.first_frame, f.value)):
        found = PROBES.get(fact.value)
        if found is None or found[0] in voted:
            continue
        label, probe = found
        voted.add(label)
        yield Vote(label, WEIGHT, f"it looked up {fact.value}, frame {fact.first_frame}: {probe} "
                   f"(+{WEIGHT})", Grade.INFERRED, (fact.first_frame,))
