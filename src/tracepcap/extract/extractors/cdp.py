"""What a Cisco device says about itself in CDP: `hostname-claim` (source cdp: its device
id), `lldp-software` (its software version, the line naming the version), `lldp-platform` (its platform,
e.g. "cisco WS-C2960-24TT-L") and `lldp-capabilities` (in LLDP's words: a CDP "Switch" or
"Trans-Bridge" is "bridge", "Host" is "station", "Phone" is "telephone"), the same fact
kinds as LLDP with source "cdp". REPORTED; landed like LLDP's (`attribution`).
"""

from __future__ import annotations

from ..attribution import LinkAttribution
from ..decoders import cdp
from ..extractor import Extractor
from ..kinds import HOSTNAME_CLAIM, LLDP_CAPABILITIES, LLDP_PLATFORM, LLDP_SOFTWARE
from .lldp import one_line

NAME, VERSION = "cdp", "1"
LENGTH_FIELD_MAX = 0x05DC  # an "ethertype" up to 1500 is an 802.3 length (IEEE 802.3 3.2.6)
ETH_P_802_2 = 0x0004  # Linux cooked captures' protocol for LLC frames


def version_line(software: str) -> str:
    """The line of a multi-line software version that names the version (IOS 12.1 puts
    "Cisco Internetwork Operating System Software" first), else the first line."""
    lines = [line for line in software.splitlines() if line.strip()] or [software]
    return next((line for line in lines if "version" in line.lower()), lines[0])


class Cdp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, LLDP_SOFTWARE, LLDP_PLATFORM, LLDP_CAPABILITIES)
    NON_IP = True

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._land = LinkAttribution(emit, limits.max_pending)

    def observe(self, pkt, flow) -> None:
        if self._land.learn(pkt) or pkt.ethertype > LENGTH_FIELD_MAX:
            return
        link = pkt.link if pkt.ethertype == ETH_P_802_2 else pkt.link[:pkt.ethertype]
        if not cdp.is_cdp(link):
            return  # STP, other LLC protocols
        msg = cdp.decode(link)
        claims = []
        if msg.device_id:
            claims.append((HOSTNAME_CLAIM, msg.device_id, "cdp"))
        if msg.software:
            claims.append((LLDP_SOFTWARE, one_line(version_line(msg.software)), "cdp"))
        if msg.platform:
            claims.append((LLDP_PLATFORM, one_line(msg.platform), "cdp"))
        if msg.capabilities:
            claims.append((LLDP_CAPABILITIES, ",".join(msg.capabilities), "cdp"))
        self._land.land(pkt, msg.addresses, (pkt.src_mac,), claims)

    def finish(self) -> None:
        self._land.finish()
        self.evicted = self._land.evicted
        if self._land.on_mac:
            self.note = (f"{self._land.on_mac} senders named no management address and claimed "
                         "none in ARP: their facts landed on their MAC")
