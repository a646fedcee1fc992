"""Entity keys and the order of addresses, on the ground floor: Extract writes them, the store
resolves them, Scan, Adjudicate and Present read them.

A MAC-level fact lands on the MAC's own key when no address can hold it (a DHCP DISCOVER from
0.0.0.0 never acknowledged): `mac-aa-bb-cc-dd-ee-ff` (URL-safe). Scan makes it a device
(scan/entities.py). Addresses sort IPv4 before IPv6, then numerically.

The facts a claimant's MAC left on another device's address (a spoofer sending as the
gateway's address) land on the address at extraction; Scan moves them to the claim's holder,
`192.168.1.1@00:80:8f:9a:ae:bd`, a member of the claimant's device, so that the victim's
device never holds them (scan/context.py `claims`)."""

from __future__ import annotations

import ipaddress

MAC_PREFIX = "mac-"


def mac_key(mac: str) -> str:
    """"8c:fe:57:00:00:01" -> "mac-8c-fe-57-00-00-01"."""
    return MAC_PREFIX + mac.lower().replace(":", "-")


#: between the claimed address and the claimant's MAC in a claim holder
CLAIM_MARK = "@"


def claim_holder(ip: str, mac: str) -> str:
    """The holder of the facts `mac` left on `ip` while claiming it."""
    return f"{ip}{CLAIM_MARK}{mac.lower()}"


def claim_of(holder: str) -> tuple[str, str] | None:
    """(the claimed address, the claimant's MAC) of a claim holder, None for any other holder."""
    ip, mark, mac = holder.partition(CLAIM_MARK)
    return (ip, mac) if mark and ip and len(mac) == 17 and mac.count(":") == 5 else None


def ip_sort_key(ip: str) -> tuple[int, int]:
    """An address's place in the order: (IP version, integer value)."""
    addr = ipaddress.ip_address(ip)
    return addr.version, int(addr)
