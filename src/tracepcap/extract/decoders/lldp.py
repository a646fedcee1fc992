"""LLDP (IEEE 802.1AB-2016, ethertype 0x88cc): what a switch, router, phone or access
point says about itself to its neighbours, in type-length-value form: chassis and port
ids, system name and description, capabilities, management addresses, and LLDP-MED
inventory (ANSI/TIA-1057 10.2.6: manufacturer, model, software revision).
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import Malformed, need

ETHERTYPE_LLDP = 0x88CC
TLV = struct.Struct("!H")  # type (7 bits), length (9 bits)
CAPS = struct.Struct("!HH")  # system capabilities, enabled capabilities
END, CHASSIS_ID, PORT_ID, TTL, PORT_DESCRIPTION = 0, 1, 2, 3, 4
SYSTEM_NAME, SYSTEM_DESCRIPTION, SYSTEM_CAPABILITIES, MANAGEMENT_ADDRESS = 5, 6, 7, 8
ORGANIZATIONAL = 127
MED_OUI = b"\x00\x12\xbb"  # TIA: LLDP-MED
MED_SOFTWARE, MED_MANUFACTURER, MED_MODEL = 7, 9, 10
ID_MAC = 4  # chassis id subtype 4 and port id subtype 3: a MAC address
PORT_ID_MAC = 3
FAMILY_IPV4, FAMILY_IPV6 = 1, 2  # IANA address family numbers in a management address
# 802.1AB Table 8-4, bit by bit; the names the capability facts use
CAPABILITIES = ((0x0001, "other"), (0x0002, "repeater"), (0x0004, "bridge"), (0x0008, "wlan-ap"),
                (0x0010, "router"), (0x0020, "telephone"), (0x0040, "docsis"), (0x0080, "station"),
                (0x0100, "c-vlan"), (0x0200, "s-vlan"), (0x0400, "tpmr"))
MAX_TLVS = 256


class Lldp(NamedTuple):
    chassis_id: str
    chassis_mac: bytes | None  # when the chassis id is a MAC address
    port_id: str
    system_name: str | None
    system_description: str | None
    capabilities: tuple[str, ...]  # what the system can do
    enabled: tuple[str, ...]  # what it does
    management: tuple[str, ...]  # IPv4/IPv6 management addresses
    med: dict[int, str]  # LLDP-MED inventory subtype -> text


def text(raw) -> str:
    return bytes(raw).decode("utf-8", "surrogateescape").strip("\x00 \t\r\n")


def capability_names(bits: int) -> tuple[str, ...]:
    return tuple(name for bit, name in CAPABILITIES if bits & bit)


def _identifier(value) -> tuple[str, bytes | None]:
    """A chassis or port id as text: a MAC in colon form, else the string it holds."""
    subtype, rest = value[0], bytes(value[1:])
    if subtype in (ID_MAC, PORT_ID_MAC) and len(rest) == 6:
        return rest.hex(":"), rest
    return text(rest), None


def _management(value) -> str | None:
    need("lldp-management", value, 0, 2)
    size, family = value[0], value[1]
    need("lldp-management", value, 1, size)
    raw = bytes(value[2:1 + size])
    if family == FAMILY_IPV4 and len(raw) == 4:
        return socket.inet_ntoa(raw)
    if family == FAMILY_IPV6 and len(raw) == 16:
        return socket.inet_ntop(socket.AF_INET6, raw)
    return None


def decode(buf) -> Lldp:
    """An LLDPDU from the start of `buf` (the frame's payload after the ethertype)."""
    chassis = port = ""
    chassis_mac = name = description = None
    caps = enabled = ()
    management: list[str] = []
    med: dict[int, str] = {}
    at = 0
    for _ in range(MAX_TLVS):
        need("lldp", buf, at, TLV.size)
        header = TLV.unpack_from(buf, at)[0]
        kind, length = header >> 9, header & 0x01FF
        at += TLV.size
        need("lldp", buf, at, length)
        value = buf[at:at + length]
        at += length
        if kind == END:
            break
        if kind in (CHASSIS_ID, PORT_ID):
            if not length:
                raise Malformed("lldp", f"empty TLV {kind}")
            ident, mac = _identifier(value)
            if kind == CHASSIS_ID:
                chassis, chassis_mac = ident, mac
            else:
                port = ident
        elif kind == SYSTEM_NAME:
            name = text(value)
        elif kind == SYSTEM_DESCRIPTION:
            description = text(value)
        elif kind == SYSTEM_CAPABILITIES:
            need("lldp-capabilities", value, 0, CAPS.size)
            system, on = CAPS.unpack_from(value, 0)
            caps, enabled = capability_names(system), capability_names(on)
        elif kind == MANAGEMENT_ADDRESS:
            if (address := _management(value)) is not None:
                management.append(address)
        elif kind == ORGANIZATIONAL and length >= 4 and bytes(value[:3]) == MED_OUI:
            med.setdefault(value[3], text(value[4:]))
    else:
        raise Malformed("lldp", f"no End TLV in {MAX_TLVS} TLVs")
    return Lldp(chassis, chassis_mac, port, name, description, caps, enabled, tuple(management), med)
