"""TLS handshake decoding: a real ClientHello and a real server flight whose Certificate
message spans two TCP segments, records split mid-message, and cut-off heads."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import DecodeError, Malformed, Truncated, tls
from tracepcap.testing import app


def names_in(data: bytes) -> tuple[list[str], list[tuple[list[str], list[str]]]]:
    """What the extractor reads: SNI of a complete ClientHello, names of each complete
    certificate (the decoding path every prefix of a head goes through)."""
    snis, certs = [], []
    for msg in tls.handshake_messages(data):
        if msg.msg_type == tls.CLIENT_HELLO and msg.complete:
            snis += tls.server_names(msg.body)
        elif msg.msg_type == tls.CERTIFICATE:
            certs += [tls.certificate_names(der) for der in tls.certificate_chain(msg.body)]
    return snis, certs


def test_client_hello(payload):
    # discord.pcap frame 3: 10.0.2.15 -> 162.159.128.233:443, ClientHello for discord.com
    data = payload("discord.pcap", 3)
    assert tls.is_handshake(data)
    (msg,) = tls.handshake_messages(data)
    assert (msg.msg_type, len(msg.body), msg.complete) == (tls.CLIENT_HELLO, 167, True)
    assert tls.server_names(msg.body) == ["discord.com"]


def test_server_flight_over_two_segments(payload):
    # discord.pcap frames 4 and 5: ServerHello, Certificate (begins in frame 4, ends in
    # frame 5), CertificateStatus, ServerKeyExchange, ServerHelloDone
    data = payload("discord.pcap", 4, 5)
    messages = tls.handshake_messages(data)
    assert [(m.msg_type, m.complete) for m in messages] == [
        (2, True), (11, True), (22, True), (12, True), (14, True)]
    leaf, issuer = tls.certificate_chain(messages[1].body)
    assert tls.certificate_names(leaf) == (
        ["sni.cloudflaressl.com"], ["discord.com", "sni.cloudflaressl.com", "*.discord.com"])
    assert tls.certificate_names(issuer) == (["Cloudflare Inc ECC CA-3"], [])
    # frame 4 alone ends inside the Certificate message, after the whole leaf
    first = tls.handshake_messages(payload("discord.pcap", 4))
    assert [(m.msg_type, m.complete) for m in first] == [(2, True), (11, False)]
    assert names_in(payload("discord.pcap", 4)) == ([], [tls.certificate_names(leaf)])


def test_cut_chain_keeps_the_complete_leaf(payload):
    data = payload("discord.pcap", 4, 5)
    body = tls.handshake_messages(data)[1].body
    assert len(tls.certificate_chain(body[:3 + 3 + 1209 + 10])) == 1
    assert tls.certificate_chain(body[:3 + 3 + 1208]) == []


@pytest.mark.parametrize("frames", [(3,), (4, 5)])
def test_truncation_sweep(payload, frames):
    data = payload("discord.pcap", *frames)
    for n in range(0, len(data) + 1):
        try:
            names_in(data[:n])
        except (Truncated, Malformed):
            pass


def test_handshake_message_split_over_records():
    hello = app.tls_client_hello("split.example.org")
    header, body = hello[:5], hello[5:]
    two_records = (bytes([22, 3, 1]) + (40).to_bytes(2, "big") + body[:40]
                   + bytes([22, 3, 1]) + (len(body) - 40).to_bytes(2, "big") + body[40:])
    assert tls.is_handshake(header)
    assert names_in(two_records) == (["split.example.org"], [])


def test_walk_stops_at_other_records():
    data = (app.tls_server_hello() + bytes([20, 3, 3, 0, 1, 1])
            + app.tls_certificate([app.self_signed_cert("late.example")]))
    assert [m.msg_type for m in tls.handshake_messages(data)] == [tls.SERVER_HELLO]


def test_not_tls():
    assert not tls.is_handshake(b"GET / HTTP/1.1\r\n")
    assert not tls.is_handshake(b"\x16\x02\x00")
    assert not tls.is_handshake(b"\x16\x03")
    assert tls.handshake_messages(b"\x17\x03\x03\x00\x05hello") == []


def test_bad_record_version_is_malformed():
    with pytest.raises(Malformed, match="version 0x0203"):
        tls.handshake_messages(b"\x16\x02\x03\x00\x04\x01\x00\x00\x00")


def test_client_hello_without_extensions_or_sni():
    assert names_in(app.tls_client_hello(None)) == ([], [])
    body = tls.handshake_messages(app.tls_client_hello("x.example"))[0].body
    bare = body[:2 + 32 + 1] + body[35:35 + 2 + int.from_bytes(body[35:37], "big") + 2]
    assert tls.server_names(bare) == []


def test_garbage_certificate_is_malformed():
    with pytest.raises(Malformed, match="x509"):
        tls.certificate_names(b"\x30\x03\x02\x01\x01")


def test_mutated_hello_raises_only_decode_errors(payload):
    data = bytearray(payload("discord.pcap", 3))
    for at in range(len(data)):
        for value in (0x00, 0x01, 0x7F, 0xFF):
            mutated = bytearray(data)
            mutated[at] = value
            try:
                names_in(bytes(mutated))
            except DecodeError:
                pass


def test_client_hello_offer(payload):
    # discord.pcap frame 3, as tshark reads it (ja3_full): version 771, twelve suites, nine
    # extensions in this order, ALPN h2 then http/1.1
    (msg,) = tls.handshake_messages(payload("discord.pcap", 3))
    hello = tls.client_hello(msg.body)
    assert hello.version == 0x0303
    assert hello.ciphers == (49195, 49196, 52393, 49199, 49200, 52392, 49171, 49172, 156, 157, 47, 53)
    assert [t for t, _ in hello.extensions] == [65281, 0, 23, 35, 13, 5, 16, 11, 10]
    assert tls.alpn_protocols(hello.extension(16)) == [b"h2", b"http/1.1"]
    assert tls.u16_list(hello.extension(10), 2) == [29, 23, 24]
    assert tls.byte_list(hello.extension(11)) == [0]
    assert hello.extension(43) is None


def test_client_hello_sweep(payload):
    (msg,) = tls.handshake_messages(payload("discord.pcap", 3))
    for n in range(len(msg.body) + 1):
        try:
            tls.client_hello(msg.body[:n])
        except (Truncated, Malformed):
            pass


def test_odd_cipher_suite_vector_is_malformed():
    body = bytes(34) + b"\x00" + b"\x00\x03\x13\x01\x13" + b"\x01\x00"
    with pytest.raises(Malformed, match="cipher suites of 3 bytes"):
        tls.client_hello(body)
