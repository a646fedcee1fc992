"""What the host's own DHCP client says about the device: its vendor class. REPORTED (a host
can say anything), so weaker than what was measured. (User-Agents: user_agent_device.py.)"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import DHCP_VENDOR_CLASS
from ...context import HostFacts
from ...vote import Vote

READS = (DHCP_VENDOR_CLASS,)  # it votes only from these: not run for a host with none

WEIGHT = 20
DHCP_VENDOR_CLASSES = (("android-dhcp", "Mobile"), ("MSFT", "Workstation"))


def vote(host: HostFacts) -> Iterator[Vote]:
    said: set[str] = set()
    for fact in host.facts(DHCP_VENDOR_CLASS):
        label = next((kind for prefix, kind in DHCP_VENDOR_CLASSES if fact.value.startswith(prefix)), None)
        if label and label not in said:
            said.add(label)
            yield Vote(label, WEIGHT, f"its DHCP vendor class is {fact.value}, frame "
                       f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
