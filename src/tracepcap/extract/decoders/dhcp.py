"""DHCPv4 (RFC 2131) on BOOTP (RFC 951): the fixed header and its options (RFC 2132),
including option overload into sname/file (RFC 2132 9.3) and long options split into
several instances, which are concatenated (RFC 3396)."""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import DecodeError, Malformed, need

# op, htype, hlen, hops, xid, secs, flags, ciaddr, yiaddr, siaddr, giaddr, chaddr
BOOTP = struct.Struct("!BBBBIHH4s4s4s4s16s")
SNAME_AT, FILE_AT, COOKIE_AT, OPTIONS_AT = 44, 108, 236, 240
MAGIC_COOKIE = b"\x63\x82\x53\x63"
BOOTREQUEST, BOOTREPLY = 1, 2
DISCOVER, OFFER, REQUEST, DECLINE, ACK, NAK, RELEASE, INFORM = range(1, 9)
MESSAGE_TYPES = {DISCOVER: "DISCOVER", OFFER: "OFFER", REQUEST: "REQUEST", DECLINE: "DECLINE", ACK: "ACK",
                 NAK: "NAK", RELEASE: "RELEASE", INFORM: "INFORM"}  # option 53 (RFC 2132 9.6)
OPT_PAD, OPT_END = 0, 255
OPT_HOSTNAME = 12  # client host name (RFC 2132 3.14)
OPT_REQUESTED_IP = 50  # the address a client asks for (RFC 2132 9.1)
OPT_OVERLOAD = 52  # 1: options continue in file, 2: in sname, 3: both
OPT_MSG_TYPE = 53
OPT_PARAM_LIST = 55  # parameter request list (RFC 2132 9.8)
OPT_VENDOR_CLASS = 60  # vendor class identifier (RFC 2132 9.13)
OPT_CLIENT_ID = 61  # client identifier (RFC 2132 9.14; type 255 is RFC 4361's IAID + DUID)
OPT_USER_CLASS = 77  # user class (RFC 3004: length-prefixed items; Windows sends bare text)
OPT_CLIENT_FQDN = 81  # client FQDN (RFC 4702)
CLIENT_ID_TEXT, CLIENT_ID_ETHERNET, CLIENT_ID_RFC4361 = 0, 1, 255
DUID_TYPES = {1: "duid-llt", 2: "duid-en", 3: "duid-ll", 4: "duid-uuid"}  # RFC 8415 11.1
FQDN_E = 0x04  # RFC 4702 2.1: the name is in DNS wire format, not ASCII


class Dhcp(NamedTuple):
    op: int
    xid: int
    ciaddr: str
    yiaddr: str
    giaddr: str
    chaddr: bytes  # the first hlen bytes (at most 16)
    options: dict[int, bytes]  # code -> data, repeated instances concatenated

    @property
    def msg_type(self) -> int | None:
        data = self.options.get(OPT_MSG_TYPE)
        return data[0] if data else None


def _walk(buf, at: int, end: int, options: dict[int, bytes]) -> None:
    while at < end:
        code = buf[at]
        if code == OPT_PAD:
            at += 1
            continue
        if code == OPT_END:
            return
        need("dhcp-option", buf[:end], at, 2)
        length = buf[at + 1]
        need("dhcp-option", buf[:end], at + 2, length)
        options[code] = options.get(code, b"") + bytes(buf[at + 2:at + 2 + length])
        at += 2 + length


def decode(buf) -> Dhcp:
    msg, error = read(buf)
    if error is not None:
        raise error
    return msg


def read(buf) -> tuple[Dhcp, DecodeError | None]:
    """The message with the options that decoded, and the error that stopped the options
    (None: all of them). The fixed header must decode (Truncated or Malformed otherwise)."""
    need("dhcp", buf, 0, OPTIONS_AT)
    op, _htype, hlen, _hops, xid, _secs, _flags, ciaddr, yiaddr, _siaddr, giaddr, chaddr = \
        BOOTP.unpack_from(buf, 0)
    if op not in (BOOTREQUEST, BOOTREPLY):
        raise Malformed("dhcp", f"op {op}")
    options: dict[int, bytes] = {}
    error = None
    if bytes(buf[COOKIE_AT:OPTIONS_AT]) == MAGIC_COOKIE:  # else plain BOOTP: no options
        try:  # `_walk` fills `options` in place: an option that fails keeps those before it
            _walk(buf, OPTIONS_AT, len(buf), options)
            overload = (options.get(OPT_OVERLOAD) or b"\x00")[0]
            if overload & 1:
                _walk(buf, FILE_AT, COOKIE_AT, options)
            if overload & 2:
                _walk(buf, SNAME_AT, FILE_AT, options)
        except DecodeError as err:
            error = err
    ntoa = socket.inet_ntoa
    return Dhcp(op, xid, ntoa(ciaddr), ntoa(yiaddr), ntoa(giaddr), chaddr[:min(hlen, 16)], options), error


def text(data: bytes) -> str:
    """A string option as text: trailing NULs (some clients send C strings) removed, bytes
    that are not UTF-8 replaced."""
    return data.rstrip(b"\x00").decode("utf-8", "surrogateescape")


def wire_name(data: bytes) -> str:
    """An uncompressed DNS wire-format name that may lack its root label (RFC 4702 2.3.1)."""
    labels, at = [], 0
    while at < len(data) and data[at]:
        length = data[at]
        if length & 0xC0:
            raise Malformed("fqdn", f"label length {length:#x}: compression is not allowed")
        need("fqdn", data, at + 1, length)
        labels.append(data[at + 1:at + 1 + length].decode("utf-8", "surrogateescape"))
        at += 1 + length
    return ".".join(labels)


def client_fqdn(data: bytes) -> str:
    """The name in option 81: flags, two obsolete rcodes, then the name (RFC 4702 2)."""
    need("dhcp-fqdn", data, 0, 3)
    return wire_name(data[3:]) if data[0] & FQDN_E else text(data[3:])


def _mac(data: bytes) -> str:
    return ":".join(f"{b:02x}" for b in data)


def duid(data: bytes) -> str:
    """A DUID as "<type> <identifier>": the link-layer address of DUID-LLT and DUID-LL,
    the enterprise number and hex identifier of DUID-EN, hex otherwise (RFC 8415 11)."""
    need("duid", data, 0, 2)
    kind = int.from_bytes(data[:2], "big")
    name = DUID_TYPES.get(kind, f"duid-type-{kind}")
    if kind == 1 and len(data) >= 8:  # type, hardware type, time, address
        return f"{name} {_mac(data[8:])}"
    if kind == 3 and len(data) >= 4:  # type, hardware type, address
        return f"{name} {_mac(data[4:])}"
    if kind == 2 and len(data) >= 6:
        return f"{name} {int.from_bytes(data[2:6], 'big')} {data[6:].hex()}"
    return f"{name} {data[2:].hex()}"


def client_id(data: bytes) -> str:
    """Option 61 described by its type: "ethernet <mac>", "rfc4361 iaid <hex> <duid>",
    "text <string>", or "type <n> <hex>"."""
    need("dhcp-client-id", data, 0, 1)
    kind, rest = data[0], data[1:]
    if kind == CLIENT_ID_ETHERNET and len(rest) == 6:
        return f"ethernet {_mac(rest)}"
    if kind == CLIENT_ID_RFC4361 and len(rest) >= 6:  # IAID, then at least a DUID type
        return f"rfc4361 iaid {rest[:4].hex()} {duid(rest[4:])}"
    if kind == CLIENT_ID_TEXT:
        return f"text {text(rest)}"
    return f"type {kind} {rest.hex()}"


def user_class(data: bytes) -> str:
    """Option 77's items joined by ","; data that is not RFC 3004's length-prefixed list
    (Windows and iPXE send one bare string) is one item."""
    items, at = [], 0
    while at < len(data):
        length = data[at]
        if length == 0 or at + 1 + length > len(data):
            return text(data)
        items.append(text(data[at + 1:at + 1 + length]))
        at += 1 + length
    return ",".join(items)
