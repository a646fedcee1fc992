"""The inventory's unit: one entity per device (issue 11 item 3).

An on-link device is one MAC it owns (scan/ownership.py decides who owns which MAC), keyed
`mac-aa-bb-cc-dd-ee-ff`, and holds every address that owns that MAC (IPv4, IPv6 global and
link-local). A MAC with MAC-level facts of its own (facts the extractors could land on no
address: a DHCP DISCOVER from 0.0.0.0 that was never acknowledged) that no address owns is a
MAC-only device. Every other address (remote, routed, or seen without a MAC) is its own
entity keyed by the address. Devices are never merged by name or by anything but an address
they share, so a phone's locally administered (randomised) MACs stay separate devices; an
entity keyed by one is flagged `randomised`.

`resolve` is the one function that turns what a person typed (an address, a MAC in any
common spelling, or a key) into an entity key; Present and Adjudicate use it through
`store`-level lookups of the `entity_member` rows Scan writes from `Entity.members`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ..keys import CLAIM_MARK, MAC_PREFIX, claim_holder, claim_of, mac_key  # noqa: F401 - re-exported for scan
from .ownership import parsed_address

_MAC = re.compile(r"^(?:mac-)?([0-9a-f]{2})[:\-.]?([0-9a-f]{2})[:\-.]?([0-9a-f]{2})[:\-.]?"
                  r"([0-9a-f]{2})[:\-.]?([0-9a-f]{2})[:\-.]?([0-9a-f]{2})$")


def mac_of_key(key: str) -> str | None:
    """The MAC ("aa:bb:..") a key or a typed MAC spells, None if it spells none."""
    m = _MAC.match(key.strip().lower())
    return ":".join(m.groups()) if m else None


def is_randomised(mac: str) -> bool:
    """A locally administered unicast MAC (the U/L bit set): a phone's private address, a VM's."""
    first = int(mac[:2], 16)
    return bool(first & 0x02) and not first & 0x01


def address_rank(ip: str) -> tuple[int, int, int]:
    """Primary-address order: IPv4 first, then IPv6 global, then link-local; numeric within."""
    addr = parsed_address(ip)
    return (0 if addr.version == 4 else 2 if addr.is_link_local else 1, addr.version, int(addr))


@dataclass(frozen=True, slots=True)
class Entity:
    key: str
    addresses: tuple[str, ...]  # primary first (IPv4, IPv6 global, link-local)
    macs: tuple[str, ...]  # the MACs it owns ("aa:bb:..")
    position: int
    randomised: bool = False
    #: every fact holder of the device: its addresses and its MACs' keys (built once: scan
    #: reads it for every fact lookup of every signal)
    members: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", self.addresses + tuple(mac_key(m) for m in self.macs))

    @property
    def ip(self) -> str | None:
        """The primary address, None for a MAC-only device."""
        return self.addresses[0] if self.addresses else None


def build(hosts: list[str], mac_owners: dict[str, tuple[str, ...]], mac_entities: set[str]) -> list[Entity]:
    """The capture's entities in inventory order (by their first address's host position;
    MAC-only devices last, by MAC). `hosts`: the addresses in host order; `mac_owners`: MAC ->
    the addresses owning it; `mac_entities`: MAC keys that hold MAC-level facts."""
    position = {ip: i for i, ip in enumerate(hosts)}
    owned: dict[str, list[str]] = defaultdict(list)  # address -> the MACs it owns
    for mac in sorted(mac_owners):
        for ip in mac_owners[mac]:
            if ip in position:
                owned[ip].append(mac)
    device_of: dict[str, str] = {}  # address -> the MAC whose device it joins
    for ip, macs in owned.items():
        # a universally administered MAC is the device's, when the address owns several
        device_of[ip] = sorted(macs, key=lambda m: (is_randomised(m), m))[0]
    members: dict[str, list[str]] = defaultdict(list)  # device MAC -> addresses
    for ip in hosts:
        if ip in device_of:
            members[device_of[ip]].append(ip)
    macs_of: dict[str, list[str]] = {mac: [mac] for mac in members}
    for mac, owners in sorted(mac_owners.items()):  # an owned MAC whose owners joined other devices
        if mac in members:
            continue
        home = next((device_of[ip] for ip in owners if ip in device_of), None)
        if home is not None:  # an address owning two MACs: the second is its device's too
            macs_of[home].append(mac)
    placed = {m for macs in macs_of.values() for m in macs}
    for key in sorted(mac_entities):
        mac = mac_of_key(key)
        if mac is not None and mac not in placed:
            macs_of[mac] = [mac]
            members[mac] = []
            placed.add(mac)
    out: list[tuple[tuple, Entity]] = []
    for mac, addresses in members.items():
        ordered = tuple(sorted(addresses, key=address_rank))
        rank = (0, min(position[ip] for ip in addresses)) if addresses else (1, 0)
        out.append(((rank, mac), Entity(mac_key(mac), ordered, tuple(macs_of[mac]), 0, is_randomised(mac))))
    for ip in hosts:
        if ip not in device_of:
            out.append((((0, position[ip]), ""), Entity(ip, (ip,), (), 0)))
    out.sort(key=lambda pair: pair[0])
    return [Entity(e.key, e.addresses, e.macs, i, e.randomised) for i, (_, e) in enumerate(out)]
