"""What a device says about itself in LLDP: `hostname-claim` (source lldp: its system
name), `lldp-software` (its system description, which 802.1AB defines as hardware type,
operating system and networking software with their versions, or the LLDP-MED software
revision), `lldp-platform` (LLDP-MED manufacturer and model) and `lldp-capabilities` (the
capabilities it has enabled, in 802.1AB's order: "bridge,router", "bridge,telephone",
"wlan-ap"; the ones it only could have when none are enabled).

All REPORTED, and the strongest evidence a switch, router, phone or access point gives.
They land on the management addresses the frame lists, else on the IPv4 address the
sending MAC (or the chassis id, when it is a MAC) claimed in ARP (`attribution`).
"""

from __future__ import annotations

from ..attribution import LinkAttribution
from ..decoders import lldp
from ..extractor import Extractor
from ..kinds import HOSTNAME_CLAIM, LLDP_CAPABILITIES, LLDP_PLATFORM, LLDP_SOFTWARE

NAME, VERSION = "lldp", "1"
MAX_TEXT = 256  # a system description is free text; a longer one is cut, not refused


def one_line(value: str) -> str:
    """Free text as one line of at most MAX_TEXT characters (whitespace runs collapsed)."""
    return " ".join(value.split())[:MAX_TEXT]


class Lldp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, LLDP_SOFTWARE, LLDP_PLATFORM, LLDP_CAPABILITIES)
    NON_IP = True

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._land = LinkAttribution(emit, limits.max_pending)

    def observe(self, pkt, flow) -> None:
        if self._land.learn(pkt) or pkt.ethertype != lldp.ETHERTYPE_LLDP:
            return
        msg = lldp.decode(pkt.link)
        claims = []
        if msg.system_name:
            claims.append((HOSTNAME_CLAIM, msg.system_name, "lldp"))
        software = msg.med.get(lldp.MED_SOFTWARE) or msg.system_description
        if software:
            claims.append((LLDP_SOFTWARE, one_line(software), "lldp"))
        platform = " ".join(p for p in (msg.med.get(lldp.MED_MANUFACTURER),
                                        msg.med.get(lldp.MED_MODEL)) if p)
        if platform:
            claims.append((LLDP_PLATFORM, one_line(platform), "lldp"))
        if capabilities := msg.enabled or msg.capabilities:
            claims.append((LLDP_CAPABILITIES, ",".join(capabilities), "lldp"))
        self._land.land(pkt, msg.management, (pkt.src_mac, msg.chassis_mac), claims)

    def finish(self) -> None:
        self._land.finish()
        self.evicted = self._land.evicted
        if self._land.on_mac:
            self.note = (f"{self._land.on_mac} senders named no management address and claimed "
                         "none in ARP: their facts landed on their MAC")
