"""QUIC client Initials: keys, header protection and decryption against the RFC 9001
Appendix A and RFC 9369 Appendix A test vectors, CRYPTO frames, coalesced packets."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, quic, tls
from tracepcap.testing import quic as q

DCID = bytes.fromhex("8394c8f03e515708")  # RFC 9001 A.1
# RFC 9001 A.2: the client's CRYPTO frame, a ClientHello for example.com (PADDING follows)
RFC_CRYPTO = bytes.fromhex(
    "060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
    "04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
    "616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
    "04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
    "baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
    "0d0010000e0403050306030203080408050806002d00020101001c0002400100"
    "3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
    "75300901100f088394c8f03e51570806048000ffff")
# RFC 9001 A.2: the first 48 bytes of the protected 1200-byte packet
RFC_PROTECTED_HEAD = bytes.fromhex(
    "c000000001088394c8f03e5157080000449e7b9aec34d1b1c98dd7689fb8ec11"
    "d242b123dc9bd8bab936b47d92ec356c")


def test_client_keys_of_the_rfc_vectors():
    assert quic.client_keys(0x00000001, DCID) == quic.Keys(  # RFC 9001 A.1
        bytes.fromhex("1f369613dd76d5467730efcbe3b1a22d"), bytes.fromhex("fa044b2f42a3fd3b46fb255c"),
        bytes.fromhex("9f50449e04a0e810283a1e9933adedd2"))
    assert quic.client_keys(0x6B3343CF, DCID) == quic.Keys(  # RFC 9369 A.1
        bytes.fromhex("8b1a0bc121284290a29e0971b5cd045d"), bytes.fromhex("91f73e2351d8fa91660e909f"),
        bytes.fromhex("45b95e15235d6f45a6b19cbcb0294ba9"))


def test_the_rfc_client_initial():
    packet = q.client_initial(DCID, RFC_CRYPTO, packet_number=2)
    assert len(packet) == 1200 and packet[:48] == RFC_PROTECTED_HEAD
    [initial] = quic.client_initials(packet)
    assert (initial.version, initial.dcid, initial.scid, initial.packet_number) == ("v1", DCID, b"", 2)
    [(offset, data)] = initial.crypto
    assert offset == 0 and data == RFC_CRYPTO[4:]
    hello = quic.client_hello(data)
    assert tls.server_names(hello) == ["example.com"]
    assert tls.client_hello(hello).ciphers == (0x1301, 0x1302)


@pytest.mark.parametrize("version, name", [(q.V2, "v2"), (q.DRAFT_29, "draft-29")])
def test_other_versions(version, name):
    packet = q.client_initial(b"\x01\x02\x03\x04", RFC_CRYPTO, version=version, scid=b"\xaa",
                              token=b"tok", pn_len=1, packet_number=7)
    [initial] = quic.client_initials(packet)
    assert (initial.version, initial.scid, initial.packet_number) == (name, b"\xaa", 7)
    assert initial.crypto == ((0, RFC_CRYPTO[4:]),)


def test_a_packet_that_does_not_verify_is_not_a_client_initial():
    packet = bytearray(q.client_initial(DCID, RFC_CRYPTO))
    packet[-1] ^= 1  # as a server's Initial: its keys are not the client's
    assert quic.client_initials(bytes(packet)) == []


def test_an_initial_too_short_to_be_protected_is_left_out():
    # demo_all_rules.pcap frame 1573: a long header of version 1, empty IDs, Length 0
    assert quic.client_initials(bytes.fromhex("c000000001000000000000000000000000000000")) == []


def test_coalesced_packets():
    first = q.client_initial(DCID, q.crypto_frame(0, b"abc"), pad_to=None)
    handshake = q.other_long_packet(q.V1, q.HANDSHAKE_TYPE[q.V1], DCID, b"\x00" * 30)
    second = q.client_initial(DCID, bytes((quic.PING,)) + q.crypto_frame(3, b"def"),
                              packet_number=1, pad_to=None)
    initials = quic.client_initials(first + handshake + second + b"\x00" * 40)  # UDP padding
    assert [i.crypto for i in initials] == [((0, b"abc"),), ((3, b"def"),)]


def test_a_retry_and_an_unknown_version_end_the_walk():
    retry = bytes((0xF0,)) + (1).to_bytes(4, "big") + b"\x00\x00" + b"token" + bytes(16)
    assert quic.client_initials(retry) == []
    negotiation = bytes((0xC0,)) + bytes(4) + b"\x00\x00" + (1).to_bytes(4, "big")
    assert not quic.is_long_header(negotiation) and quic.client_initials(negotiation) == []


def test_frames_an_initial_may_hold():
    ack = bytes((quic.ACK_ECN,)) + q.varint(9) + q.varint(300) + q.varint(1) + q.varint(0) \
        + q.varint(1) + q.varint(2) + q.varint(5) + q.varint(6) + q.varint(70000)
    close = bytes((quic.CONNECTION_CLOSE,)) + q.varint(10) + q.varint(6) + q.varint(3) + b"bye"
    plain = ack + bytes((quic.PING, quic.PADDING)) + close + q.crypto_frame(16384, b"x" * 70)
    assert quic.crypto_frames(plain) == ((16384, b"x" * 70),)
    with pytest.raises(Malformed):
        quic.crypto_frames(bytes((0x08,)) + b"stream")  # a STREAM frame has no place in an Initial


def test_connection_ids_longer_than_twenty_bytes():
    packet = bytearray(q.client_initial(bytes(8), RFC_CRYPTO))
    packet[5] = 21
    with pytest.raises(Malformed):
        quic.client_initials(bytes(packet))


def test_client_hello_waits_for_the_whole_message():
    assert quic.client_hello(RFC_CRYPTO[4:100]) is None
    assert quic.client_hello(RFC_CRYPTO[4:]) == RFC_CRYPTO[8:]
    with pytest.raises(Malformed):
        quic.client_hello(b"\x02\x00\x00\x01x")


def test_cut_short(sweep):
    packet = q.client_initial(DCID, RFC_CRYPTO, token=b"t" * 5, scid=b"s")
    with pytest.raises(Truncated):
        quic.client_initials(packet[:-1])
    sweep(quic.client_initials, packet)
    sweep(quic.crypto_frames, bytes((quic.ACK,)) + bytes(4) + q.crypto_frame(70, b"hello"))
