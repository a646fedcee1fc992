"""A minimal reader of ASN.1 BER/DER (ITU-T X.690) for the protocols that speak it here
(SNMP, Kerberos): tag, definite length, content, read in place. Indefinite lengths and
tag numbers above 30 are not used by either and are Malformed.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import Malformed, need

SEQUENCE, INTEGER, OCTET_STRING, NULL, OID = 0x30, 0x02, 0x04, 0x05, 0x06
GENERAL_STRING = 0x1B
MAX_LENGTH_BYTES = 4


def context(n: int, constructed: bool = True) -> int:
    """The tag byte of a context-specific [n]."""
    return 0x80 | (0x20 if constructed else 0) | n


def application(n: int) -> int:
    """The tag byte of a constructed [APPLICATION n]."""
    return 0x60 | n


def read(buf, at: int, end: int | None = None) -> tuple[int, int, int]:
    """(tag byte, content start, content end) of the element at `at`; it must end by
    `end` (default: the buffer's end)."""
    end = len(buf) if end is None else end
    need("ber", buf, at, 2)
    tag, first = buf[at], buf[at + 1]
    if tag & 0x1F == 0x1F:
        raise Malformed("ber", f"multi-byte tag {tag:#04x}")
    at += 2
    if first & 0x80:
        count = first & 0x7F
        if not count or count > MAX_LENGTH_BYTES:
            raise Malformed("ber", f"length of {count} bytes")
        need("ber", buf, at, count)
        length = int.from_bytes(buf[at:at + count], "big")
        at += count
    else:
        length = first
    if at + length > end:
        need("ber", buf, at, length)
        raise Malformed("ber", f"element of {length} bytes overruns its parent")
    return tag, at, at + length


def children(buf, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """The elements inside a constructed element's content."""
    at = start
    while at < end:
        tag, s, e = read(buf, at, end)
        yield tag, s, e
        at = e


def expect(buf, at: int, tag: int, end: int | None = None) -> tuple[int, int]:
    """Content (start, end) of the element at `at`, which must carry `tag`."""
    found, s, e = read(buf, at, end)
    if found != tag:
        raise Malformed("ber", f"tag {found:#04x} where {tag:#04x} belongs")
    return s, e


def integer(buf, start: int, end: int) -> int:
    if start >= end:
        raise Malformed("ber", "empty integer")
    return int.from_bytes(buf[start:end], "big", signed=True)


def text(buf, start: int, end: int) -> str:
    return bytes(buf[start:end]).decode("utf-8", "surrogateescape")


def oid(buf, start: int, end: int) -> str:
    """Dotted text of an OBJECT IDENTIFIER's content (X.690 8.19)."""
    if start >= end:
        raise Malformed("ber", "empty object identifier")
    arcs, value = [], 0
    for byte in bytes(buf[start:end]):
        value = value << 7 | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    if buf[end - 1] & 0x80:
        raise Malformed("ber", "object identifier ends inside an arc")
    first = arcs[0]
    head = [0, first] if first < 40 else [1, first - 40] if first < 80 else [2, first - 80]
    return ".".join(map(str, head + arcs[1:]))
