"""IEEE 802.11 data frames (LINKTYPE_IEEE802_11 105): the MAC header's addresses, by the
To DS / From DS bits, and the LLC/SNAP header (RFC 1042; 802.1H bridge tunnel) that gives
the ethertype. Management and control frames, frames without a body (Null data), frames
whose body is encrypted (the Protected flag) and A-MSDUs carry nothing we read: they come
back with ethertype 0, not as errors. IEEE Std 802.11-2020 9.2 and 9.3.2."""

from __future__ import annotations

import struct

from . import need

FRAME_CONTROL = struct.Struct("<BB")  # type/subtype/version, flags
ADDRS = struct.Struct("!6s6s6s")  # address 1, 2, 3 after frame control and duration
HEADER = 24  # frame control, duration, three addresses, sequence control
ADDR4, QOS_CONTROL, HT_CONTROL = 6, 2, 4
TYPE_DATA = 2
SUBTYPE_QOS, SUBTYPE_NO_BODY = 0x8, 0x4  # subtype bits: QoS fields present; Null (no data)
TO_DS, FROM_DS, PROTECTED, ORDER = 0x01, 0x02, 0x40, 0x80
AMSDU_PRESENT = 0x80  # QoS control, first byte
SNAP = struct.Struct("!6sH")  # DSAP, SSAP, control, OUI; ethertype
SNAP_PREFIXES = (b"\xaa\xaa\x03\x00\x00\x00", b"\xaa\xaa\x03\x00\x00\xf8")  # RFC 1042, 802.1H


def decode(buf, at: int = 0) -> tuple[bytes | None, bytes | None, int, int]:
    """Return (source MAC, destination MAC, ethertype or 0, offset of what follows)."""
    need("802.11", buf, at, FRAME_CONTROL.size)
    control, flags = FRAME_CONTROL.unpack_from(buf, at)
    frame_type, subtype = (control >> 2) & 0x3, control >> 4
    if frame_type != TYPE_DATA or control & 0x3:
        return None, None, 0, len(buf)  # management, control, or a version we do not know
    need("802.11", buf, at, HEADER)
    addr1, addr2, addr3 = ADDRS.unpack_from(buf, at + 4)
    ds = flags & (TO_DS | FROM_DS)
    header = HEADER
    if ds == TO_DS | FROM_DS:
        header += ADDR4
        need("802.11", buf, at, header)
        src, dst = bytes(buf[at + HEADER:at + header]), addr3
    else:
        src = addr3 if ds == FROM_DS else addr2
        dst = addr3 if ds == TO_DS else addr1
    amsdu = False
    if subtype & SUBTYPE_QOS:
        need("802.11-qos", buf, at + header, QOS_CONTROL)
        amsdu = bool(buf[at + header] & AMSDU_PRESENT)
        header += QOS_CONTROL + (HT_CONTROL if flags & ORDER else 0)
    at += header
    if subtype & SUBTYPE_NO_BODY or flags & PROTECTED or amsdu:
        return bytes(src), bytes(dst), 0, at
    need("802.11-llc", buf, at, SNAP.size)
    prefix, ethertype = SNAP.unpack_from(buf, at)
    if prefix not in SNAP_PREFIXES:
        return bytes(src), bytes(dst), 0, at  # plain LLC (STP, ...): no ethertype
    return bytes(src), bytes(dst), ethertype, at + SNAP.size
