"""CDP, Cisco Discovery Protocol (version 2 as Cisco documents it, and Wireshark's
packet-cdp.c describes): 802.3 frames to 01:00:0c:cc:cc:cc with an LLC/SNAP header (OUI
00000c, protocol 0x2000), then version, TTL, checksum and type-length-value fields:
device id, addresses, port id, capabilities, software version, platform.
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import Malformed, need

LLC_SNAP_CDP = b"\xaa\xaa\x03\x00\x00\x0c\x20\x00"  # DSAP, SSAP, UI, Cisco OUI, CDP
HEADER = struct.Struct("!BBH")  # version, TTL, checksum
TLV = struct.Struct("!HH")  # type, length (including these 4 bytes)
U32 = struct.Struct("!I")
DEVICE_ID, ADDRESSES, PORT_ID, CAPABILITIES, SOFTWARE_VERSION, PLATFORM = 1, 2, 3, 4, 5, 6
MANAGEMENT_ADDRESSES = 0x16
NLPID, IEEE_802_2 = 1, 2  # protocol types of an address entry
NLPID_IP = b"\xcc"
SNAP_IPV6 = b"\xaa\xaa\x03\x00\x00\x00\x86\xdd"
# capability bits -> the names LLDP facts use (a CDP "Switch" is an LLDP bridge), in the
# order LLDP lists them, so both protocols write "bridge,router" for one device
CAPABILITIES_BITS = ((0x40, "repeater"), (0x02, "bridge"), (0x04, "bridge"), (0x08, "bridge"),
                     (0x01, "router"), (0x80, "telephone"), (0x10, "station"), (0x20, "igmp"),
                     (0x100, "remotely-managed"), (0x200, "cvta"), (0x400, "tpmr"))
MAX_TLVS = 256
MAX_ADDRESSES = 64


class Cdp(NamedTuple):
    version: int
    device_id: str | None
    port_id: str | None
    capabilities: tuple[str, ...]
    software: str | None
    platform: str | None
    addresses: tuple[str, ...]  # from the Addresses and Management Addresses fields


def is_cdp(link) -> bool:
    """Does an 802.3 frame's payload (LLC onwards) carry CDP?"""
    return bytes(link[:len(LLC_SNAP_CDP)]) == LLC_SNAP_CDP


def text(raw) -> str:
    return bytes(raw).decode("utf-8", "surrogateescape").strip("\x00 \t\r\n")


def capability_names(bits: int) -> tuple[str, ...]:
    names: list[str] = []
    for bit, name in CAPABILITIES_BITS:
        if bits & bit and name not in names:
            names.append(name)
    return tuple(names)


def _addresses(value) -> list[str]:
    need("cdp-addresses", value, 0, U32.size)
    count, at, out = U32.unpack_from(value, 0)[0], U32.size, []
    for _ in range(min(count, MAX_ADDRESSES)):
        need("cdp-address", value, at, 2)
        ptype, plen = value[at], value[at + 1]
        need("cdp-address", value, at + 2, plen + 2)
        protocol = bytes(value[at + 2:at + 2 + plen])
        at += 2 + plen
        alen = (value[at] << 8) | value[at + 1]
        need("cdp-address", value, at + 2, alen)
        raw = bytes(value[at + 2:at + 2 + alen])
        at += 2 + alen
        if ptype == NLPID and protocol == NLPID_IP and alen == 4:
            out.append(socket.inet_ntoa(raw))
        elif ptype == IEEE_802_2 and protocol == SNAP_IPV6 and alen == 16:
            out.append(socket.inet_ntop(socket.AF_INET6, raw))
    return out


def decode(link) -> Cdp:
    """The CDP message in an 802.3 frame's payload (`link`, from the LLC header on)."""
    if not is_cdp(link):
        raise Malformed("cdp", "no LLC/SNAP header for Cisco protocol 0x2000")
    at = len(LLC_SNAP_CDP)
    need("cdp", link, at, HEADER.size)
    version = link[at]
    if version not in (1, 2):
        raise Malformed("cdp", f"version {version}")
    at += HEADER.size
    device = port = software = platform = None
    caps: tuple[str, ...] = ()
    addresses: list[str] = []
    for _ in range(MAX_TLVS):
        if at >= len(link):
            break
        need("cdp-tlv", link, at, TLV.size)
        kind, length = TLV.unpack_from(link, at)
        if length < TLV.size:
            raise Malformed("cdp-tlv", f"type {kind:#06x} of length {length}")
        need("cdp-tlv", link, at, length)
        value = link[at + TLV.size:at + length]
        at += length
        if kind == DEVICE_ID:
            device = text(value)
        elif kind == PORT_ID:
            port = text(value)
        elif kind == CAPABILITIES:
            need("cdp-capabilities", value, 0, U32.size)
            caps = capability_names(U32.unpack_from(value, 0)[0])
        elif kind == SOFTWARE_VERSION:
            software = text(value)
        elif kind == PLATFORM:
            platform = text(value)
        elif kind in (ADDRESSES, MANAGEMENT_ADDRESSES):
            addresses += [a for a in _addresses(value) if a not in addresses]
    return Cdp(version, device, port, caps, software, platform, tuple(addresses))
