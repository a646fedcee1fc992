"""SNMP messages (v1 RFC 1157, v2c RFC 1901/3416, v3 RFC 3412 with a plaintext scoped
PDU): the PDU type and its variable bindings, each (OID text, value tag, value bytes).
An encrypted v3 PDU comes back with no type and no bindings.
"""

from __future__ import annotations

from typing import NamedTuple

from . import Malformed, ber

GET, GET_NEXT, RESPONSE, SET, TRAP_V1, GET_BULK, INFORM, TRAP_V2, REPORT = range(0xA0, 0xA9)
V1, V2C, V3 = 0, 1, 3
SYS_DESCR, SYS_OBJECT_ID, SYS_NAME = "1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.1.2.0", "1.3.6.1.2.1.1.5.0"


class Snmp(NamedTuple):
    version: int
    pdu_type: int | None
    bindings: tuple[tuple[str, int, bytes], ...]


def _bindings(buf, start: int, end: int, pdu_type: int) -> tuple[tuple[str, int, bytes], ...]:
    parts = list(ber.children(buf, start, end))
    skip = 5 if pdu_type == TRAP_V1 else 3  # enterprise, agent, generic, specific, time
    if len(parts) != skip + 1 or parts[-1][0] != ber.SEQUENCE:
        raise Malformed("snmp", f"PDU of {len(parts)} fields")
    out = []
    for tag, s, e in ber.children(buf, parts[-1][1], parts[-1][2]):
        if tag != ber.SEQUENCE:
            raise Malformed("snmp", f"variable binding tagged {tag:#04x}")
        (oid_s, oid_e) = ber.expect(buf, s, ber.OID, e)
        value_tag, vs, ve = ber.read(buf, oid_e, e)
        out.append((ber.oid(buf, oid_s, oid_e), value_tag, bytes(buf[vs:ve])))
    return tuple(out)


def _pdu(buf, element: tuple[int, int, int]) -> tuple[int, tuple]:
    tag, s, e = element
    if not GET <= tag <= REPORT:
        raise Malformed("snmp", f"PDU type {tag:#04x}")
    return tag, _bindings(buf, s, e, tag)


def decode(buf) -> Snmp:
    start, end = ber.expect(buf, 0, ber.SEQUENCE)
    parts = list(ber.children(buf, start, end))
    if not parts or parts[0][0] != ber.INTEGER:
        raise Malformed("snmp", "no version")
    version = ber.integer(buf, parts[0][1], parts[0][2])
    if version in (V1, V2C):
        if len(parts) != 3 or parts[1][0] != ber.OCTET_STRING:
            raise Malformed("snmp", "no community and PDU")
        pdu_type, bindings = _pdu(buf, parts[2])
        return Snmp(version, pdu_type, bindings)
    if version == V3:
        if len(parts) != 4:
            raise Malformed("snmp", "v3 message of the wrong shape")
        tag, s, e = parts[3]
        if tag != ber.SEQUENCE:  # encryptedPDU: an OCTET STRING nobody outside may read
            return Snmp(version, None, ())
        scoped = list(ber.children(buf, s, e))
        if len(scoped) != 3:
            raise Malformed("snmp", "scoped PDU of the wrong shape")
        pdu_type, bindings = _pdu(buf, scoped[2])
        return Snmp(version, pdu_type, bindings)
    raise Malformed("snmp", f"version {version}")
