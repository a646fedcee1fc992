"""What the host's own software says about the device: browser User-Agents and the DHCP
vendor class. REPORTED (a host can say anything), so weaker than what was measured."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import DHCP_VENDOR_CLASS, USER_AGENT
from ...context import HostFacts
from ...vote import Vote

WEIGHT = 20
# User-Agent platform tokens (as browsers write them) -> device type; first match wins
UA_PLATFORMS = (("iPhone", "Mobile"), ("iPad", "Mobile"), ("Android", "Mobile"),
                ("Windows NT", "Workstation"), ("Macintosh", "Workstation"), ("CrOS", "Workstation"),
                ("X11; Linux", "Workstation"), ("X11; Ubuntu", "Workstation"))
DHCP_VENDOR_CLASSES = (("android-dhcp", "Mobile"), ("MSFT", "Workstation"))


def vote(host: HostFacts) -> Iterator[Vote]:
    said: set[str] = set()
    for fact in host.facts(USER_AGENT):
        label = next((kind for token, kind in UA_PLATFORMS if token in fact.value), None)
        if label and label not in said:
            said.add(label)
            yield Vote(label, WEIGHT, f"its User-Agent names a {label.lower()} platform: "
                       f"{fact.value[:80]}, frame {fact.first_frame} (+{WEIGHT})", fact.grade,
                       (fact.first_frame,))
    for fact in host.facts(DHCP_VENDOR_CLASS):
        label = next((kind for prefix, kind in DHCP_VENDOR_CLASSES if fact.value.startswith(prefix)), None)
        if label and label not in said:
            said.add(label)
            yield Vote(label, WEIGHT, f"its DHCP vendor class is {fact.value}, frame "
                       f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
