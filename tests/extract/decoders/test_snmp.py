"""BER elements and the SNMP messages built of them: versions 1, 2c and 3."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, ber, snmp
from tracepcap.testing import asn1
from tracepcap.testing import snmp as s

RESPONSE = s.get_response(77, [(s.SYS_DESCR, "HP ETHERNET MULTI-ENVIRONMENT"), (s.SYS_NAME, "NPI2A3B4C"),
                               (s.SYS_OBJECT_ID, ("oid", "1.3.6.1.4.1.11.2.3.9.1")), (s.SYS_UPTIME, ("timeticks", 99))])


@pytest.mark.parametrize("dotted", ["1.3.6.1.2.1.1.5.0", "1.3.6.1.4.1.311.2.2.10", "2.999.3", "0.9.2342"])
def test_oid_round_trip(dotted):
    data = asn1.oid(dotted)
    assert ber.oid(data, 2, len(data)) == dotted


def test_long_lengths():
    data = asn1.octets(b"x" * 300)
    assert ber.read(data, 0) == (ber.OCTET_STRING, 4, 304)


@pytest.mark.parametrize("data, error", [
    (b"\x04\x80", Malformed),  # indefinite length
    (b"\x1f\x01\x00", Malformed),  # a multi-byte tag
    (b"\x04\x85\x01\x02\x03\x04\x05", Malformed),  # a 5-byte length
    (b"\x04\x05abc", Truncated),
])
def test_ber_refusals(data, error):
    with pytest.raises(error):
        ber.read(data, 0)


def test_child_overrunning_its_parent_is_malformed():
    with pytest.raises(Malformed, match="overruns"):
        list(ber.children(b"\x30\x03\x04\x05abcde", 2, 5))


def test_response():
    msg = snmp.decode(RESPONSE)
    assert (msg.version, msg.pdu_type) == (snmp.V2C, snmp.RESPONSE)
    assert [(oid, tag) for oid, tag, _ in msg.bindings] == [
        (snmp.SYS_DESCR, 0x04), (snmp.SYS_NAME, 0x04), (snmp.SYS_OBJECT_ID, 0x06), (s.SYS_UPTIME, 0x43)]
    assert msg.bindings[1][2] == b"NPI2A3B4C"


def test_trap_and_v1():
    trap = snmp.decode(s.trap_v2(5, "1.3.6.1.6.3.1.1.5.3", [(s.SYS_NAME, "sw1")]))
    assert trap.pdu_type == snmp.TRAP_V2 and trap.bindings[-1][:2] == (snmp.SYS_NAME, 0x04)
    v1 = snmp.decode(s.get_response(1, [(s.SYS_NAME, "old")], version=s.V1))
    assert (v1.version, v1.bindings[0][2]) == (snmp.V1, b"old")


def test_v3_plaintext_and_encrypted():
    plain = snmp.decode(s.v3_message(s.pdu(s.RESPONSE, 1, [(s.SYS_NAME, "v3")])))
    assert (plain.version, plain.pdu_type, plain.bindings[0][2]) == (3, snmp.RESPONSE, b"v3")
    assert snmp.decode(s.v3_message(None)) == snmp.Snmp(3, None, ())


def test_malformed():
    with pytest.raises(Malformed, match="version 2"):
        snmp.decode(asn1.sequence(asn1.integer(2), asn1.octets("c"), asn1.null()))
    with pytest.raises(Malformed, match="PDU type 0x05"):
        snmp.decode(asn1.sequence(asn1.integer(1), asn1.octets("c"), asn1.null()))


def test_sweep(sweep):
    sweep(snmp.decode, RESPONSE)
    sweep(snmp.decode, s.v3_message(s.pdu(s.RESPONSE, 1, [(s.SYS_NAME, "v3")])))
