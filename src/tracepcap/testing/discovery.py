"""Link-layer announcements and neighbour discovery, as whole Ethernet frames or ICMPv6
messages: LLDP (IEEE 802.1AB, LLDP-MED inventory ANSI/TIA-1057), CDP (in 802.3 LLC/SNAP
frames), IPv6 neighbor and router advertisements (RFC 4861, with their checksums), and
gratuitous ARP (RFC 5227 announcements).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

from tracepcap.testing import frames as f

LLDP_MULTICAST, CDP_MULTICAST = "01:80:c2:00:00:0e", "01:00:0c:cc:cc:cc"
ETH_LLDP = 0x88CC
LLDP_CAPABILITIES = {"other": 0x01, "repeater": 0x02, "bridge": 0x04, "wlan-ap": 0x08,
                     "router": 0x10, "telephone": 0x20, "docsis": 0x40, "station": 0x80}
CDP_CAPABILITIES = {"router": 0x01, "trans-bridge": 0x02, "sr-bridge": 0x04, "switch": 0x08,
                    "host": 0x10, "igmp": 0x20, "repeater": 0x40, "phone": 0x80}
MED_OUI = b"\x00\x12\xbb"
MED_SOFTWARE, MED_MANUFACTURER, MED_MODEL = 7, 9, 10
CDP_DEVICE_ID, CDP_ADDRESSES, CDP_PORT_ID, CDP_CAPS, CDP_VERSION, CDP_PLATFORM = 1, 2, 3, 4, 5, 6
NEIGHBOR_ADVERT, ROUTER_ADVERT, NEIGHBOR_SOLICIT = 136, 134, 135
ALL_NODES = "ff02::1"


def _lldp_tlv(kind: int, value: bytes) -> bytes:
    return struct.pack("!H", kind << 9 | len(value)) + value


def _caps(names: Iterable[str]) -> int:
    return sum(LLDP_CAPABILITIES[name] for name in names)


def lldp_frame(src_mac: str, *, chassis_mac: str | None = None, port: str = "Gi1/0/1",
               system_name: str | None = None, description: str | None = None,
               capabilities: Sequence[str] = (), enabled: Sequence[str] | None = None,
               management: Sequence[str] = (), med: dict[int, str] | None = None,
               ttl: int = 120) -> bytes:
    """An LLDPDU in an Ethernet frame to the nearest-bridge group address: chassis id (a
    MAC), port id (an interface name), TTL, then the optional TLVs given, then End."""
    body = _lldp_tlv(1, b"\x04" + f.mac_bytes(chassis_mac or src_mac))
    body += _lldp_tlv(2, b"\x05" + port.encode()) + _lldp_tlv(3, struct.pack("!H", ttl))
    if system_name is not None:
        body += _lldp_tlv(5, system_name.encode())
    if description is not None:
        body += _lldp_tlv(6, description.encode())
    if capabilities:
        on = capabilities if enabled is None else enabled
        body += _lldp_tlv(7, struct.pack("!HH", _caps(capabilities), _caps(on)))
    for address in management:
        raw = f.ip_bytes(address)
        family = 2 if len(raw) == 16 else 1
        body += _lldp_tlv(8, bytes([len(raw) + 1, family]) + raw + b"\x02" + struct.pack("!I", 1)
                          + b"\x00")
    for subtype, text in (med or {}).items():
        body += _lldp_tlv(127, MED_OUI + bytes([subtype]) + text.encode())
    body += _lldp_tlv(0, b"")
    return f.ethernet(src_mac, LLDP_MULTICAST, ETH_LLDP, body, pad=True)


def _cdp_tlv(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value) + 4) + value


def cdp_frame(src_mac: str, *, device_id: str, port: str = "GigabitEthernet0/1",
              capabilities: Sequence[str] = (), software: str | None = None,
              platform: str | None = None, addresses: Sequence[str] = (), ttl: int = 180,
              version: int = 2) -> bytes:
    """A CDP message in an 802.3 frame (length field, LLC/SNAP 0xaaaa03 00000c 2000) to
    Cisco's multicast address, with an RFC 1071 checksum (Cisco's odd-length quirk is not
    reproduced)."""
    tlvs = _cdp_tlv(CDP_DEVICE_ID, device_id.encode())
    if addresses:
        entries = b""
        for address in addresses:
            raw = f.ip_bytes(address)
            if len(raw) == 4:
                entries += b"\x01\x01\xcc" + struct.pack("!H", 4) + raw
            else:
                entries += b"\x02\x08\xaa\xaa\x03\x00\x00\x00\x86\xdd" + struct.pack("!H", 16) + raw
        tlvs += _cdp_tlv(CDP_ADDRESSES, struct.pack("!I", len(addresses)) + entries)
    tlvs += _cdp_tlv(CDP_PORT_ID, port.encode())
    if capabilities:
        tlvs += _cdp_tlv(CDP_CAPS, struct.pack("!I", sum(CDP_CAPABILITIES[c] for c in capabilities)))
    if software is not None:
        tlvs += _cdp_tlv(CDP_VERSION, software.encode())
    if platform is not None:
        tlvs += _cdp_tlv(CDP_PLATFORM, platform.encode())
    message = bytes([version, ttl]) + b"\x00\x00" + tlvs
    message = message[:2] + struct.pack("!H", f.checksum(message)) + message[4:]
    llc = b"\xaa\xaa\x03\x00\x00\x0c\x20\x00" + message
    return f.ethernet(src_mac, CDP_MULTICAST, len(llc), llc, pad=True)


def _icmpv6(src: str, dst: str, message: bytes) -> bytes:
    total = f.checksum(f.pseudo_header(src, dst, f.PROTO_ICMPV6, len(message)) + message)
    return message[:2] + struct.pack("!H", total) + message[4:]


def neighbor_advert(src: str, dst: str, target: str, target_mac: str | None,
                    solicited: bool = True, router: bool = False,
                    override: bool = True) -> bytes:
    """An ICMPv6 neighbor advertisement (RFC 4861 4.4), with a target link-layer address
    option when `target_mac` is given."""
    flags = (0x80 if router else 0) | (0x40 if solicited else 0) | (0x20 if override else 0)
    message = struct.pack("!BBHB3x", NEIGHBOR_ADVERT, 0, 0, flags) + f.ip_bytes(target)
    if target_mac:
        message += b"\x02\x01" + f.mac_bytes(target_mac)
    return _icmpv6(src, dst, message)


def neighbor_solicit(src: str, dst: str, target: str, source_mac: str | None) -> bytes:
    """An ICMPv6 neighbor solicitation (RFC 4861 4.3) for `target`, with a source link-layer
    address option when `source_mac` is given."""
    message = struct.pack("!BBH4x", NEIGHBOR_SOLICIT, 0, 0) + f.ip_bytes(target)
    if source_mac:
        message += b"\x01\x01" + f.mac_bytes(source_mac)
    return _icmpv6(src, dst, message)


def router_advert(src: str, dst: str, source_mac: str | None, lifetime: int = 1800) -> bytes:
    """An ICMPv6 router advertisement (RFC 4861 4.2) with a source link-layer address option."""
    message = struct.pack("!BBHBBHII", ROUTER_ADVERT, 0, 0, 64, 0, lifetime, 0, 0)
    if source_mac:
        message += b"\x01\x01" + f.mac_bytes(source_mac)
    return _icmpv6(src, dst, message)


def nd_frame(src_mac: str, dst_mac: str, src: str, dst: str, message: bytes,
             hop_limit: int = 255) -> bytes:
    """An ND message in IPv6 (hop limit 255, as RFC 4861 requires) in Ethernet."""
    return f.ethernet(src_mac, dst_mac, f.ETH_IPV6,
                      f.ipv6(src, dst, f.PROTO_ICMPV6, message, hop_limit=hop_limit))


def gratuitous_arp(mac: str, ip: str, reply: bool = False) -> bytes:
    """An ARP announcement: sender and target address both `ip`, broadcast (RFC 5227 2.3);
    as a reply when `reply`, as some stacks send it."""
    op = f.ARP_REPLY if reply else f.ARP_REQUEST
    payload = f.arp(op, mac, ip, "00:00:00:00:00:00" if not reply else mac, ip)
    return f.ethernet(mac, f.BROADCAST_MAC, f.ETH_ARP, payload, pad=True)
