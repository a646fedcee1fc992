"""Entity keys and the order of addresses, on the ground floor: Extract writes them, the store
resolves them, Scan, Adjudicate and Present read them.

A MAC-level fact lands on the MAC's own key when no address can hold it (a DHCP DISCOVER from
0.0.0.0 never acknowledged): `mac-aa-bb-cc-dd-ee-ff` (URL-safe). Scan makes it a device
(scan/entities.py). Addresses sort IPv4 before IPv6, then numerically."""

from __future__ import annotations

import ipaddress

MAC_PREFIX = "mac-"


def mac_key(mac: str) -> str:
    """"8c:fe:57:00:00:01" -> "mac-8c-fe-57-00-00-01"."""
    return MAC_PREFIX + mac.lower().replace(":", "-")


def ip_sort_key(ip: str) -> tuple[int, int]:
    """An address's place in the order: (IP version, integer value)."""
    addr = ipaddress.ip_address(ip)
    return addr.version, int(addr)
