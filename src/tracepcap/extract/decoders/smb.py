"""SMB1 ([MS-CIFS] 2.2) over NetBIOS session service framing (RFC 1002 4.3, also on
tcp/445 per [MS-SMB2] 2.1): the SESSION_SETUP_ANDX request and response, whose trailing
strings name the sender's native operating system and LAN manager ("Windows 5.1",
"Windows 2000 LAN Manager", "Unix", "Samba 4.15.13"). SMB2 carries no such strings.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from . import Malformed, need

NBSS = struct.Struct("!B3s")  # message type, length (17 bits; the top 7 are flags)
HEADER = struct.Struct("<4sBIBHH8sHHHHH")  # protocol, command, status, flags, flags2, pid high,
#                                            security features, reserved, tid, pid, uid, mid
SMB1 = b"\xffSMB"
SESSION_MESSAGE = 0x00
SESSION_SETUP_ANDX = 0x73
FLAGS_REPLY = 0x80
FLAGS2_UNICODE = 0x8000
MAX_MESSAGES = 32
# word counts of SESSION_SETUP_ANDX forms ([MS-CIFS] 2.2.4.53, [MS-SMB] 2.2.4.6):
# request 10 (LM), 12 (extended security), 13 (NT LM); response 3, 4 (extended security)
REQUEST_BLOB_WORD = {12: 7}  # word index of SecurityBlobLength
REQUEST_PASSWORD_WORDS = {10: (7,), 13: (7, 8)}  # word indexes of password lengths
RESPONSE_BLOB_WORD = {4: 3}


class SessionSetup(NamedTuple):
    reply: bool
    native_os: str | None
    native_lanman: str | None


def messages(data) -> list[bytes]:
    """The SMB1 messages in the NBSS session messages at the start of a stream head."""
    out, at = [], 0
    for _ in range(MAX_MESSAGES):
        if len(data) - at < NBSS.size:
            break
        kind, raw = NBSS.unpack_from(data, at)
        length = int.from_bytes(raw, "big") & 0x1FFFF
        if kind != SESSION_MESSAGE:
            at += NBSS.size + length  # keep-alives and session requests carry no SMB
            continue
        body = bytes(data[at + NBSS.size:at + NBSS.size + length])
        if len(body) < length:
            break  # the head ends inside this message
        if body[:4] == SMB1:
            out.append(body)
        at += NBSS.size + length
    return out


def _strings(buf, at: int, end: int, unicode: bool, count: int) -> list[str]:
    """`count` NUL-terminated strings from `at`; Unicode ones start on an even offset."""
    out = []
    for _ in range(count):
        if unicode:
            at += at & 1
            stop = at
            while stop + 1 < end and (buf[stop] or buf[stop + 1]):
                stop += 2
            out.append(bytes(buf[at:stop]).decode("utf-16-le", "backslashreplace"))
            at = stop + 2
        else:
            stop = at
            while stop < end and buf[stop]:
                stop += 1
            out.append(bytes(buf[at:stop]).decode("latin-1"))
            at = stop + 1
        if at > end:
            break
    return out


def session_setup(buf) -> SessionSetup | None:
    """The native OS and LAN manager strings of an SMB1 SESSION_SETUP_ANDX message, None
    for other commands and forms."""
    need("smb", buf, 0, HEADER.size + 1)
    protocol, command, _status, flags, flags2, *_ = HEADER.unpack_from(buf, 0)
    if protocol != SMB1:
        raise Malformed("smb", "not an SMB1 header")
    if command != SESSION_SETUP_ANDX:
        return None
    words_at = HEADER.size + 1
    count = buf[HEADER.size]
    need("smb", buf, words_at, count * 2 + 2)
    words = struct.unpack_from(f"<{count}H", buf, words_at)
    byte_count = struct.unpack_from("<H", buf, words_at + count * 2)[0]
    at = words_at + count * 2 + 2
    end = min(len(buf), at + byte_count)
    reply = bool(flags & FLAGS_REPLY)
    if reply and count in RESPONSE_BLOB_WORD:
        at += words[RESPONSE_BLOB_WORD[count]]
    elif not reply and count in REQUEST_BLOB_WORD:
        at += words[REQUEST_BLOB_WORD[count]]
    elif not reply and count in REQUEST_PASSWORD_WORDS:
        at += sum(words[i] for i in REQUEST_PASSWORD_WORDS[count])
    elif not (reply and count == 3):
        return None  # an error response (word count 0) or a form without the strings
    if at > end:
        raise Malformed("smb", "security blob or passwords overrun the data")
    unicode = bool(flags2 & FLAGS2_UNICODE)
    # a request without extended security names its account and domain first
    skip = 2 if not reply and count in REQUEST_PASSWORD_WORDS else 0
    found = _strings(buf, at, end, unicode, skip + 2)[skip:]
    native_os = found[0] if found and found[0] else None
    lanman = found[1] if len(found) > 1 and found[1] else None
    return SessionSetup(reply, native_os, lanman)
