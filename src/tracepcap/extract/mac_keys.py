"""The entity a MAC-level fact lands on when no address can hold it (a DHCP DISCOVER from
0.0.0.0 never acknowledged): the MAC's key, `mac-aa-bb-cc-dd-ee-ff` (URL-safe). Scan makes it
a device (scan/entities.py)."""

from __future__ import annotations

MAC_PREFIX = "mac-"


def mac_key(mac: str) -> str:
    """"8c:fe:57:00:00:01" -> "mac-8c-fe-57-00-00-01"."""
    return MAC_PREFIX + mac.lower().replace(":", "-")
