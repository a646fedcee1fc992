"""Windows Browser announcements ([MS-BRWS] 2.2): an SMB1 TRANSACTION request to the
mailslot `\\MAILSLOT\\BROWSE`, inside a NetBIOS datagram (RFC 1002 4.4.1) on udp/138.

`decode` walks the three layers and returns the announcement a host makes about itself:
its NetBIOS name, the OS version it reports and the server-type bits (workstation,
server, domain controller, ...). Other datagrams and other mailslot messages give None.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from . import Malformed, need

DATAGRAM = struct.Struct("!BBH4sHHH")  # type, flags, id, source ip, source port, length, offset
DIRECT_UNIQUE, DIRECT_GROUP, BROADCAST = 0x10, 0x11, 0x12  # datagram types that carry user data
SMB_HEADER_SIZE = 32
SMB1 = b"\xffSMB"
TRANSACTION = 0x25
TRANS_WORDS = 14  # word count of a TRANSACTION request before its setup words
DATA_COUNT_WORD, DATA_OFFSET_WORD = 11, 12
MAILSLOT = b"\\MAILSLOT\\BROWSE"
# [MS-BRWS] 2.2.1: opcode, update count, periodicity (ms), server name (16 bytes, NUL padded),
# OS major, OS minor, server type, browser major, browser minor, signature
ANNOUNCEMENT = struct.Struct("<BBI16sBBIBBH")
HOST_ANNOUNCEMENT, LOCAL_MASTER_ANNOUNCEMENT = 0x01, 0x0F
# [MS-RAP] 2.5.5.2.1 server type bits, the ones that say what kind of device it is
SERVER_TYPES = ((0x00000001, "workstation"), (0x00000002, "server"), (0x00000004, "sql-server"),
                (0x00000008, "domain-controller"), (0x00000010, "backup-domain-controller"),
                (0x00000020, "time-source"), (0x00000040, "apple"), (0x00000080, "novell"),
                (0x00000100, "domain-member"), (0x00000200, "print-server"),
                (0x00000400, "dial-in-server"), (0x00000800, "xenix"),
                (0x00001000, "nt-workstation"), (0x00002000, "wfw"),
                (0x00008000, "nt-server"), (0x00010000, "potential-browser"),
                (0x00020000, "backup-browser"), (0x00040000, "master-browser"),
                (0x00080000, "domain-master-browser"), (0x00400000, "windows-95+"),
                (0x00800000, "dfs"), (0x02000000, "terminal-server"))


class Announcement(NamedTuple):
    opcode: int
    name: str
    os_major: int
    os_minor: int
    server_type: int
    comment: str

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(label for bit, label in SERVER_TYPES if self.server_type & bit)


def _skip_name(buf, at: int) -> int:
    """The offset past an encoded NetBIOS name and its scope labels (RFC 1002 4.1)."""
    while True:
        need("netbios-dgm", buf, at, 1)
        length = buf[at]
        if length == 0:
            return at + 1
        if length > 63:
            raise Malformed("netbios-dgm", f"name label of {length} bytes")
        at += 1 + length


def _cstring(buf, at: int, end: int) -> str:
    stop = at
    while stop < end and buf[stop]:
        stop += 1
    return bytes(buf[at:stop]).decode("latin-1")


def decode(buf) -> Announcement | None:
    need("netbios-dgm", buf, 0, DATAGRAM.size)
    kind = buf[0]
    if kind not in (DIRECT_UNIQUE, DIRECT_GROUP, BROADCAST):
        return None  # an error or a query datagram: no user data
    smb = _skip_name(buf, _skip_name(buf, DATAGRAM.size))
    need("smb", buf, smb, SMB_HEADER_SIZE + 1)
    if bytes(buf[smb:smb + 4]) != SMB1:
        raise Malformed("smb", "datagram user data is not an SMB1 message")
    if buf[smb + 4] != TRANSACTION:
        return None
    words_at = smb + SMB_HEADER_SIZE + 1
    count = buf[smb + SMB_HEADER_SIZE]
    if count < TRANS_WORDS:
        raise Malformed("smb", f"TRANSACTION request of {count} words")
    need("smb", buf, words_at, count * 2 + 2)
    words = struct.unpack_from(f"<{count}H", buf, words_at)
    name_at = words_at + count * 2 + 2
    if _cstring(buf, name_at, len(buf)).encode("latin-1").upper() != MAILSLOT:
        return None
    data_at, data_count = smb + words[DATA_OFFSET_WORD], words[DATA_COUNT_WORD]
    need("browser", buf, data_at, 1)
    if buf[data_at] not in (HOST_ANNOUNCEMENT, LOCAL_MASTER_ANNOUNCEMENT):
        return None
    need("browser", buf, data_at, ANNOUNCEMENT.size)
    opcode, _updates, _period, raw_name, major, minor, server_type, *_ = \
        ANNOUNCEMENT.unpack_from(buf, data_at)
    end = min(len(buf), data_at + data_count)
    comment = _cstring(buf, data_at + ANNOUNCEMENT.size, end)
    name = raw_name.split(b"\x00", 1)[0].decode("latin-1").strip()
    return Announcement(opcode, name, major, minor, server_type, comment)
