"""DHCPv6 (RFC 8415): client/server and relay messages and their options; the client
FQDN option (RFC 4704) and the vendor class option (RFC 8415 21.16)."""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import need
from .dhcp import wire_name

HEADER = struct.Struct("!I")  # msg-type (8 bits), transaction-id (24 bits)
RELAY = struct.Struct("!BB16s16s")  # msg-type, hop-count, link-address, peer-address
OPTION = struct.Struct("!HH")  # option-code, option-len
SOLICIT, ADVERTISE, REQUEST, CONFIRM, RENEW, REBIND, REPLY = 1, 2, 3, 4, 5, 6, 7
RELEASE, DECLINE, RECONFIGURE, INFORMATION_REQUEST, RELAY_FORW, RELAY_REPL = 8, 9, 10, 11, 12, 13
CLIENT_MESSAGES = frozenset((SOLICIT, REQUEST, CONFIRM, RENEW, REBIND, RELEASE, DECLINE,
                             INFORMATION_REQUEST))
OPT_CLIENTID, OPT_RELAY_MSG, OPT_VENDOR_CLASS, OPT_CLIENT_FQDN = 1, 9, 16, 39
OPT_IA_NA, OPT_IAADDR = 3, 5
IA_NA = struct.Struct("!III")  # IAID, T1, T2, then IA_NA-options (RFC 8415 21.4)
IAADDR = struct.Struct("!16sII")  # address, preferred lifetime, valid lifetime (21.6)
VENDOR = struct.Struct("!I")  # enterprise-number, then vendor-class-data items
ITEM = struct.Struct("!H")  # vendor-class-len


class Dhcpv6(NamedTuple):
    msg_type: int
    txid: int  # 0 for relay messages
    peer: str | None  # relay messages: the client's (peer) address
    options: tuple[tuple[int, bytes], ...]  # in wire order; codes may repeat

    def option(self, code: int) -> bytes | None:
        return next((data for c, data in self.options if c == code), None)


def _options(buf, at: int, proto: str) -> list[tuple[int, bytes]]:
    options = []
    while at < len(buf):
        need(proto, buf, at, OPTION.size)
        code, length = OPTION.unpack_from(buf, at)
        need(proto, buf, at + OPTION.size, length)
        options.append((code, bytes(buf[at + OPTION.size:at + OPTION.size + length])))
        at += OPTION.size + length
    return options


def decode(buf) -> Dhcpv6:
    need("dhcpv6", buf, 0, HEADER.size)
    msg_type = buf[0]
    peer = None
    if msg_type in (RELAY_FORW, RELAY_REPL):
        need("dhcpv6-relay", buf, 0, RELAY.size)
        _type, _hops, _link, peer_raw = RELAY.unpack_from(buf, 0)
        peer, txid, at = socket.inet_ntop(socket.AF_INET6, peer_raw), 0, RELAY.size
    else:
        txid, at = HEADER.unpack_from(buf, 0)[0] & 0xFFFFFF, HEADER.size
    return Dhcpv6(msg_type, txid, peer, tuple(_options(buf, at, "dhcpv6-option")))


def client_fqdn(data: bytes) -> str:
    """Option 39: a flags byte, then the name in wire format, perhaps partial (RFC 4704 4)."""
    need("dhcpv6-fqdn", data, 0, 1)
    return wire_name(data[1:])


def vendor_class(data: bytes) -> tuple[int, tuple[str, ...]]:
    """Option 16: (enterprise number, the vendor-class-data items as text)."""
    need("dhcpv6-vendor-class", data, 0, VENDOR.size)
    enterprise, at, items = VENDOR.unpack_from(data, 0)[0], VENDOR.size, []
    while at < len(data):
        need("dhcpv6-vendor-class", data, at, ITEM.size)
        length = ITEM.unpack_from(data, at)[0]
        need("dhcpv6-vendor-class", data, at + ITEM.size, length)
        items.append(data[at + ITEM.size:at + ITEM.size + length].decode("utf-8", "surrogateescape"))
        at += ITEM.size + length
    return enterprise, tuple(items)


def ia_na_addresses(data: bytes) -> tuple[str, ...]:
    """Option 3: the addresses of its IA Address options whose valid lifetime is not 0
    (a lifetime of 0 gives the address back, RFC 8415 18.3.4)."""
    need("dhcpv6-ia-na", data, 0, IA_NA.size)
    out = []
    for code, inner in _options(data, IA_NA.size, "dhcpv6-ia-na"):
        if code == OPT_IAADDR:
            need("dhcpv6-iaaddr", inner, 0, IAADDR.size)
            raw, _preferred, valid = IAADDR.unpack_from(inner, 0)
            if valid:
                out.append(socket.inet_ntop(socket.AF_INET6, raw))
    return tuple(out)
