"""Landing what a link-layer announcement (LLDP, CDP) says about its sender on an IP
address: the management addresses the announcement lists, else the address the sender's
MAC claimed in ARP in the same capture. Without either, the sightings wait until the end
of the walk, like DHCP's (`finish`); a sender that never finds an address (a switch that only
speaks LLDP) lands on its MAC, the entity `mac-aa-bb-..` (keys.py), with a `mac`
and an `oui-vendor` fact: Scan makes it a MAC-only device, or joins it to the device owning
that MAC.
"""

from __future__ import annotations

from ..keys import mac_key
from .decoders import DecodeError, arp
from .extractors.link_identity import vendor_of
from .facts import Emitter, FactKind
from .kinds import MAC, OUI_VENDOR
from .packet import Packet

Claim = tuple[FactKind, str, str]  # kind, value, source


def arp_sender(pkt: Packet) -> tuple[bytes, str] | None:
    """(MAC, IPv4 address) an ARP frame's sender claims for itself, None for other frames,
    probes from 0.0.0.0 and group MACs."""
    if pkt.ethertype != arp.ETHERTYPE_ARP or pkt.link is None:
        return None
    try:
        msg = arp.decode(pkt.link)
    except DecodeError:
        return None
    if msg is None or msg.sender_ip == "0.0.0.0" or msg.sender_mac[0] & 0x01:
        return None
    return msg.sender_mac, msg.sender_ip


class LinkAttribution:
    def __init__(self, emit: Emitter, limit: int) -> None:
        self.emit = emit
        self.limit = limit
        self.evicted = 0  #: table entries dropped past `limit`
        self.on_mac = 0  #: senders no address could be found for, landed on their MAC
        self._ips: dict[bytes, str] = {}  # MAC -> the IPv4 address it last claimed in ARP
        # sender MACs -> (kind, value, source) -> [first frame, first time, last frame, last time, count]
        self._pending: dict[tuple[bytes, ...], dict[Claim, list]] = {}

    def learn(self, pkt: Packet) -> bool:
        """Remember an ARP sender's binding; True if `pkt` was ARP (nothing else to read)."""
        found = arp_sender(pkt)
        if found is None:
            return pkt.ethertype == arp.ETHERTYPE_ARP
        mac, ip = found
        if mac not in self._ips and len(self._ips) >= self.limit:
            del self._ips[next(iter(self._ips))]
            self.evicted += 1
        self._ips[mac] = ip
        return True

    def land(self, pkt: Packet, addresses: tuple[str, ...], macs: tuple[bytes, ...],
             claims: list[Claim]) -> None:
        """Emit `claims` on each management address now, or keep them for `finish`."""
        if addresses:
            for address in addresses:
                for kind, value, source in claims:
                    self.emit.fact(address, kind, value, pkt.frame, pkt.ts, source=source)
            return
        macs = tuple(m for m in macs if m)
        if not macs or not claims:
            return
        sightings = self._pending.get(macs)
        if sightings is None:
            if len(self._pending) >= self.limit:
                del self._pending[next(iter(self._pending))]
                self.evicted += 1
            sightings = self._pending[macs] = {}
        for claim in claims:
            seen = sightings.get(claim)
            if seen is None:
                sightings[claim] = [pkt.frame, pkt.ts, pkt.frame, pkt.ts, 1]
            else:
                seen[2], seen[3], seen[4] = pkt.frame, pkt.ts, seen[4] + 1

    def finish(self) -> None:
        for macs, sightings in self._pending.items():
            address = next((self._ips[m] for m in macs if m in self._ips), None)
            if address is None:
                mac = macs[0].hex(":")
                address = mac_key(mac)
                self.on_mac += 1
                (f0, t0, _, _, _) = min(sightings.values())
                sightings = dict(sightings)
                sightings[(MAC, mac, None)] = [f0, t0, f0, t0, 1]
                if vendor := vendor_of(mac):
                    sightings[(OUI_VENDOR, vendor, None)] = [f0, t0, f0, t0, 1]
            for (kind, value, source), (f0, t0, f1, t1, count) in sightings.items():
                self.emit.fact(address, kind, value, f0, t0, source=source)
                for _ in range(count - 1):  # each announcement counts, as if emitted live
                    self.emit.fact(address, kind, value, f1, t1, source=source)
        self._pending.clear()
