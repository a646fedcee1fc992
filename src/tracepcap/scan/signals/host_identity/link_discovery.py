"""What a device tells its neighbours it does, in LLDP or CDP: the capabilities it has
enabled (router, bridge, telephone, WLAN access point). No other evidence is as direct
about switches, routers, phones and access points, so it weighs most; it is still
REPORTED (a host can announce anything), so a human override outranks it."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import LLDP_CAPABILITIES, LLDP_PLATFORM
from ...context import HostFacts
from ...vote import Vote

READS = (LLDP_CAPABILITIES, LLDP_PLATFORM)  # it votes only from these: not run for a host with none

WEIGHT = 70
ALSO_ROUTES_WEIGHT = 35  # a bridge that also routes (a layer-3 switch) is a switch first
# capability (as lldp-capabilities facts name them) -> device type, most specific first:
# a phone bridges its PC port and an access point bridges its radio, so bridge comes last
CAPABILITY_LABELS = (("telephone", "VoIP Phone"), ("wlan-ap", "Access Point"),
                     ("bridge", "Switch"), ("router", "Router"))
# platform fragments naming a device type its capabilities blur (Cisco Aironet access
# points announce only bridge and router in CDP)
PLATFORM_LABELS = (("AIR-", "Access Point"), ("IP Phone", "VoIP Phone"))
PROTOCOLS = {"lldp": "LLDP", "cdp": "CDP"}


def vote(host: HostFacts) -> Iterator[Vote]:
    platforms = {f.source: f for f in host.facts(LLDP_PLATFORM)}
    said: set[str] = set()
    for fact in host.facts(LLDP_CAPABILITIES):
        protocol = PROTOCOLS.get(fact.source, fact.source)
        capabilities = fact.value.split(",")
        platform = platforms.get(fact.source)
        label = next((kind for fragment, kind in PLATFORM_LABELS
                      if platform and fragment in platform.value), None)
        reason = f"its platform is {platform.value}" if label else ""
        if label is None:
            label = next((kind for capability, kind in CAPABILITY_LABELS if capability in capabilities),
                         None)
        if label is None or label in said:
            continue
        said.add(label)
        why = f"announces capabilities {fact.value} over {protocol}" + (f" and {reason}" if reason else "")
        yield Vote(label, WEIGHT, f"{why}, frame {fact.first_frame} (+{WEIGHT})", fact.grade,
                   (fact.first_frame,))
        if label == "Switch" and "router" in capabilities and "Router" not in said:
            said.add("Router")
            yield Vote("Router", ALSO_ROUTES_WEIGHT, f"also routes (router capability over "
                       f"{protocol}), frame {fact.first_frame} (+{ALSO_ROUTES_WEIGHT})", fact.grade,
                       (fact.first_frame,))
