"""A small ASN.1 DER encoder (ITU-T X.690) for the synthetic SNMP and Kerberos messages:
each function returns one element's bytes (tag, definite length, content)."""

from __future__ import annotations

SEQUENCE, INTEGER, OCTET_STRING, NULL, OID, GENERAL_STRING = 0x30, 0x02, 0x04, 0x05, 0x06, 0x1B
GENERALIZED_TIME, BIT_STRING, IP_ADDRESS, TIMETICKS = 0x18, 0x03, 0x40, 0x43


def tlv(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        return bytes([tag, n]) + content
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + content


def integer(value: int) -> bytes:
    return tlv(INTEGER, value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big", signed=True))


def octets(value: bytes | str) -> bytes:
    return tlv(OCTET_STRING, value.encode() if isinstance(value, str) else value)


def general_string(value: str) -> bytes:
    return tlv(GENERAL_STRING, value.encode())


def oid(dotted: str) -> bytes:
    """X.690 8.19: the first two arcs make one subidentifier; each is base-128, high bit
    set on all but its last byte."""
    arcs = [int(a) for a in dotted.split(".")]
    out = bytearray()
    for arc in [arcs[0] * 40 + arcs[1], *arcs[2:]]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        out += bytes(reversed(chunk))
    return tlv(OID, bytes(out))


def null() -> bytes:
    return tlv(NULL, b"")


def sequence(*elements: bytes) -> bytes:
    return tlv(SEQUENCE, b"".join(elements))


def context(n: int, *elements: bytes) -> bytes:
    """A constructed context-specific [n] holding `elements`."""
    return tlv(0xA0 | n, b"".join(elements))


def application(n: int, *elements: bytes) -> bytes:
    """A constructed [APPLICATION n] holding `elements`."""
    return tlv(0x60 | n, b"".join(elements))
