"""NBNS decoding: first-level encoded names, NB records of registrations and answers.

The shared captures hold NBNS queries only; registrations and positive answers come from
the synthetic builder (`tracepcap.testing.names`, written from RFC 1002 separately)."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, nbns
from tracepcap.testing import names


def sweep(data: bytes) -> None:
    for n in range(len(data) + 1):
        try:
            nbns.decode(memoryview(data)[:n])
        except (Truncated, Malformed):
            pass


def test_real_query(payload):
    # demo_all_rules.pcap frame 613: 192.168.1.77 asks the broadcast for WORKGROUP<1d>
    msg = nbns.decode(memoryview(payload("demo_all_rules.pcap", 613)))
    assert (msg.response, msg.opcode, msg.rcode) == (False, nbns.QUERY, 0)
    assert msg.question == ("WORKGROUP", 0x1D)
    assert msg.answers == msg.additional == ()


def test_registration_carries_its_record_in_additional():
    msg = nbns.decode(names.nbns_registration(0x1234, "DESKTOP-7", "10.0.0.5"))
    assert (msg.response, msg.opcode, msg.question) == (False, nbns.REGISTRATION, ("DESKTOP-7", 0))
    assert msg.additional == (nbns.NbEntry("DESKTOP-7", 0x00, False, "10.0.0.5"),)


def test_group_registration():
    msg = nbns.decode(names.nbns_registration(1, "WORKGROUP", "10.0.0.5", group=True))
    assert msg.additional == (nbns.NbEntry("WORKGROUP", 0x00, True, "10.0.0.5"),)


def test_positive_query_response():
    msg = nbns.decode(names.nbns_query_response(7, "FILESRV", "10.0.0.6", suffix=0x20))
    assert (msg.response, msg.opcode, msg.rcode) == (True, nbns.QUERY, 0)
    assert msg.answers == (nbns.NbEntry("FILESRV", 0x20, False, "10.0.0.6"),)


def test_netbios_name_decoding():
    assert nbns.netbios_name("FHEPFCELEHFCEPFFFACACACACACACAAA") == ("WORKGROUP", 0x00)
    assert nbns.netbios_name("CKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.scope.example") == ("*", 0x00)
    with pytest.raises(Malformed):
        nbns.netbios_name("EXAMPLE")  # a DNS name on udp/137 is not NBNS
    with pytest.raises(Malformed):
        nbns.netbios_name("Z" * 32)


def test_nb_rdata_not_a_multiple_of_six_is_malformed():
    data = bytearray(names.nbns_query_response(7, "FILESRV", "10.0.0.6"))
    data[-8:-6] = (5).to_bytes(2, "big")  # rdlength 5
    with pytest.raises(Malformed, match="NB rdata of 5 bytes"):
        nbns.decode(bytes(data[:-1]))


@pytest.mark.parametrize("data", [
    names.nbns_registration(0x1234, "DESKTOP-7", "10.0.0.5"),
    names.nbns_query_response(7, "FILESRV", "10.0.0.6", suffix=0x20),
])
def test_truncation_sweep(data):
    sweep(data)


def test_truncation_sweep_real_query(payload):
    sweep(payload("demo_all_rules.pcap", 613))
