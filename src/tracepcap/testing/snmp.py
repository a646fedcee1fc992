"""SNMP messages (RFC 1157, RFC 3416; v3 RFC 3412 with a plaintext scoped PDU), BER
encoded, as UDP payloads for port 161 (requests and responses) and 162 (traps).

Bindings are (OID, value): a str value is an OCTET STRING, an int an INTEGER, None a NULL
(as requests carry), a ("oid", "1.3.6...") pair an OBJECT IDENTIFIER, a ("timeticks", n)
pair TimeTicks.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracepcap.testing import asn1

GET, RESPONSE, TRAP_V2 = 0xA0, 0xA2, 0xA7
SYS_DESCR, SYS_OBJECT_ID, SYS_UPTIME, SYS_NAME = ("1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.1.2.0",
                                                  "1.3.6.1.2.1.1.3.0", "1.3.6.1.2.1.1.5.0")
SNMP_TRAP_OID = "1.3.6.1.6.3.1.1.4.1.0"
V1, V2C, V3 = 0, 1, 3


def _value(value) -> bytes:
    if value is None:
        return asn1.null()
    if isinstance(value, int):
        return asn1.integer(value)
    if isinstance(value, tuple) and value[0] == "oid":
        return asn1.oid(value[1])
    if isinstance(value, tuple) and value[0] == "timeticks":
        return asn1.tlv(asn1.TIMETICKS, asn1.integer(value[1])[2:])
    return asn1.octets(value)


def pdu(pdu_type: int, request_id: int, bindings: Sequence[tuple[str, object]],
        error_status: int = 0) -> bytes:
    varbinds = asn1.sequence(*(asn1.sequence(asn1.oid(name), _value(value))
                               for name, value in bindings))
    return asn1.tlv(pdu_type, asn1.integer(request_id) + asn1.integer(error_status)
                    + asn1.integer(0) + varbinds)


def message(pdu_bytes: bytes, community: str = "public", version: int = V2C) -> bytes:
    """A v1/v2c message around a PDU."""
    return asn1.sequence(asn1.integer(version), asn1.octets(community), pdu_bytes)


def v3_message(pdu_bytes: bytes | None, engine: bytes = b"\x80\x00\x1f\x88\x04test") -> bytes:
    """An SNMPv3 message, noAuthNoPriv with the scoped PDU in the clear; `pdu_bytes` None
    gives an encrypted-looking one (an OCTET STRING in its place)."""
    header = asn1.sequence(asn1.integer(1), asn1.integer(65507), asn1.octets(b"\x00"),
                           asn1.integer(3))
    usm = asn1.octets(asn1.sequence(asn1.octets(engine), asn1.integer(0), asn1.integer(0),
                                    asn1.octets("user"), asn1.octets(b""), asn1.octets(b"")))
    data = (asn1.sequence(asn1.octets(engine), asn1.octets(b""), pdu_bytes) if pdu_bytes
            else asn1.octets(b"\x04\x10" + bytes(16)))
    return asn1.sequence(asn1.integer(V3), header, usm, data)


def get_request(request_id: int, oids: Sequence[str], community: str = "public") -> bytes:
    return message(pdu(GET, request_id, [(o, None) for o in oids]), community)


def get_response(request_id: int, bindings: Sequence[tuple[str, object]],
                 community: str = "public", version: int = V2C) -> bytes:
    return message(pdu(RESPONSE, request_id, bindings), community, version)


def trap_v2(request_id: int, trap_oid: str, bindings: Sequence[tuple[str, object]] = (),
            community: str = "public") -> bytes:
    """An SNMPv2-Trap: sysUpTime.0 and snmpTrapOID.0 first (RFC 3416 4.2.6), then `bindings`."""
    head = [(SYS_UPTIME, ("timeticks", 4200)), (SNMP_TRAP_OID, ("oid", trap_oid))]
    return message(pdu(TRAP_V2, request_id, [*head, *bindings]), community)
