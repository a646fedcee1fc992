"""Link layers beyond Ethernet, each wrapping a packet as its capture would hold it:
Linux NFLOG (LINKTYPE_NFLOG 239), IEEE 802.11 data frames (105) bare or behind Radiotap
(127) or PPI (192), PPP (9) and HDLC framings (50, 104). See the tcpdump.org LINKTYPE_
pages; 802.11 per IEEE Std 802.11-2020 9.2-9.3.

    frame = ieee80211_data(sta, ap_mac, ap_mac, f.ETH_IPV4, packet, to_ds=True)
    writer = PcapWriter(out, linktype=LINKTYPE_IEEE802_11_RADIOTAP); writer.write(ts, radiotap(frame))
"""

from __future__ import annotations

import struct

from tracepcap.testing.frames import mac_bytes

LINKTYPE_PPP, LINKTYPE_PPP_HDLC, LINKTYPE_C_HDLC, LINKTYPE_IEEE802_11 = 9, 50, 104, 105
LINKTYPE_IEEE802_11_RADIOTAP, LINKTYPE_PPI, LINKTYPE_NFLOG = 127, 192, 239
AF_INET, AF_INET6 = 2, 10
NFULA_PACKET_HDR, NFULA_HWADDR, NFULA_PAYLOAD, NFULA_PREFIX = 1, 8, 9, 10
PPP_IPV4, PPP_IPV6, PPP_LCP = 0x0021, 0x0057, 0xC021
SNAP_RFC1042 = b"\xaa\xaa\x03\x00\x00\x00"


def _tlv(kind: int, value: bytes, order: str) -> bytes:
    raw = struct.pack(order + "HH", 4 + len(value), kind) + value
    return raw + b"\x00" * (-len(raw) % 4)


def nflog(family: int, packet: bytes | None, *, ethertype: int = 0x0800, mac: str | None = None,
          prefix: str = "", big_endian: bool = False, resource_id: int = 5) -> bytes:
    """An NFLOG record as nfnetlink_log writes it: packet header, prefix, hardware address,
    payload (left out when `packet` is None), in the capturing host's byte order."""
    order = ">" if big_endian else "<"
    out = struct.pack("!BBH", family, 0, resource_id)
    out += _tlv(NFULA_PACKET_HDR, struct.pack("!HBB", ethertype, 1, 0), order)
    if prefix:
        out += _tlv(NFULA_PREFIX, prefix.encode() + b"\x00", order)
    if mac:
        out += _tlv(NFULA_HWADDR, struct.pack("!HH8s", 6, 0, mac_bytes(mac)), order)
    if packet is not None:
        out += _tlv(NFULA_PAYLOAD, packet, order)
    return out


def ieee80211_data(src: str, dst: str, bssid: str, ethertype: int, payload: bytes, *,
                   to_ds: bool = False, from_ds: bool = False, qos: bool = False,
                   protected: bool = False, sequence: int = 0) -> bytes:
    """An 802.11 data frame (QoS data with `qos`) with an RFC 1042 SNAP header. The three
    (or four, with both DS bits) addresses are placed as the DS bits say."""
    flags = (0x01 if to_ds else 0) | (0x02 if from_ds else 0) | (0x40 if protected else 0)
    control = 2 << 2 | ((0x8 << 4) if qos else 0)
    if to_ds and from_ds:  # a wireless bridge: receiver, transmitter, DA, SA
        addrs = mac_bytes(bssid) + mac_bytes(bssid) + mac_bytes(dst)
        tail = mac_bytes(src)
    elif to_ds:
        addrs, tail = mac_bytes(bssid) + mac_bytes(src) + mac_bytes(dst), b""
    elif from_ds:
        addrs, tail = mac_bytes(dst) + mac_bytes(bssid) + mac_bytes(src), b""
    else:
        addrs, tail = mac_bytes(dst) + mac_bytes(src) + mac_bytes(bssid), b""
    header = struct.pack("<BBH", control, flags, 44) + addrs + struct.pack("<H", sequence << 4) + tail
    if qos:
        header += b"\x00\x00"
    if protected:  # a CCMP header and ciphertext stand-in: nothing readable follows
        return header + bytes(8) + bytes(len(payload) + 8)
    return header + SNAP_RFC1042 + struct.pack("!H", ethertype) + payload


def ieee80211_beacon(bssid: str, ssid: str) -> bytes:
    """A management frame (beacon): no data frame, nothing for an IP reader."""
    fixed = bytes(8) + struct.pack("<HH", 100, 0x0401)  # timestamp, interval, capabilities
    header = struct.pack("<BBH", 0x80, 0, 0) + mac_bytes("ff:ff:ff:ff:ff:ff") + mac_bytes(bssid) * 2 \
        + b"\x00\x00"
    return header + fixed + bytes((0, len(ssid))) + ssid.encode()


def radiotap(frame: bytes, rate_500kbps: int = 108, mhz: int = 2437) -> bytes:
    """A Radiotap header with the flags, rate and channel fields, then `frame`."""
    present = (1 << 1) | (1 << 2) | (1 << 3)
    fields = struct.pack("<BBHH", 0, rate_500kbps, mhz, 0x00A0)
    return struct.pack("<BBHI", 0, 0, 8 + len(fields), present) + fields + frame


def ppi(linktype: int, frame: bytes) -> bytes:
    """A PPI header with no fields, naming the link type of `frame`."""
    return struct.pack("<BBHI", 0, 0, 8, linktype) + frame


def ppp(protocol: int, payload: bytes, address_control: bool = True) -> bytes:
    """A PPP frame: optional 0xff 0x03 (RFC 1662), protocol, payload."""
    return (b"\xff\x03" if address_control else b"") + struct.pack("!H", protocol) + payload


def cisco_hdlc(ethertype: int, payload: bytes, broadcast: bool = False) -> bytes:
    """A Cisco HDLC frame: address 0x0f (0x8f broadcast), control 0, ethertype."""
    return struct.pack("!BBH", 0x8F if broadcast else 0x0F, 0, ethertype) + payload
