"""QUIC client Initial packets (RFC 9000 17.2.2; v2 RFC 9369; draft-29), protected as a
client protects them (RFC 9001 5): AES-128-GCM under the Initial keys of the Destination
Connection ID, then header protection. The inverse of what a passive observer undoes.

    hello = tls.tls_client_hello("example.com", version=tls.TLS12)[5:]  # no record layer
    datagram = client_initial(dcid, crypto_frame(0, hello), packet_number=0)
"""

from __future__ import annotations

import hashlib
import hmac
import struct

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

V1, V2, DRAFT_29 = 0x00000001, 0x6B3343CF, 0xFF00001D
# version -> (initial_salt, label prefix, long packet type of an Initial)
INITIAL = {
    V1: (bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a"), b"quic ", 0),
    V2: (bytes.fromhex("0dede3def700a6db819381be6e269dcbf9bd2ed9"), b"quicv2 ", 1),
    DRAFT_29: (bytes.fromhex("afbfec289993d24c9e9786f19c6111e04390a899"), b"quic ", 0),
}
HANDSHAKE_TYPE = {V1: 2, V2: 3, DRAFT_29: 2}  # a Handshake packet's long packet type
CRYPTO, PADDING = 0x06, 0x00
MIN_DATAGRAM = 1200  # RFC 9000 14.1: a client pads the datagrams carrying its Initials


def varint(value: int) -> bytes:
    """The shortest variable-length integer encoding (RFC 9000 16)."""
    for size, prefix in ((1, 0), (2, 0x40), (4, 0x80), (8, 0xC0)):
        if value < 1 << (8 * size - 2):
            raw = value.to_bytes(size, "big")
            return bytes((raw[0] | prefix,)) + raw[1:]
    raise ValueError(f"{value} does not fit a QUIC varint")


def crypto_frame(offset: int, data: bytes) -> bytes:
    return bytes((CRYPTO,)) + varint(offset) + varint(len(data)) + data


def _expand_label(secret: bytes, label: bytes, length: int) -> bytes:
    full = b"tls13 " + label
    info = struct.pack("!HB", length, len(full)) + full + b"\x00"
    return hmac.new(secret, info + b"\x01", hashlib.sha256).digest()[:length]


def client_keys(dcid: bytes, version: int = V1) -> tuple[bytes, bytes, bytes]:
    """(key, iv, hp) protecting a client's Initials to `dcid` (RFC 9001 5.2)."""
    salt, label, _type = INITIAL[version]
    secret = _expand_label(hmac.new(salt, dcid, hashlib.sha256).digest(), b"client in", 32)
    return (_expand_label(secret, label + b"key", 16), _expand_label(secret, label + b"iv", 12),
            _expand_label(secret, label + b"hp", 16))


def client_initial(dcid: bytes, frames: bytes, *, packet_number: int = 0, scid: bytes = b"",
                   version: int = V1, token: bytes = b"", pn_len: int = 4,
                   pad_to: int | None = MIN_DATAGRAM) -> bytes:
    """One protected client Initial holding `frames`, with PADDING frames added so the
    packet is `pad_to` bytes long (None: no padding)."""
    _salt, _label, initial_type = INITIAL[version]
    first = 0xC0 | initial_type << 4 | (pn_len - 1)
    head = (bytes((first,)) + version.to_bytes(4, "big") + bytes((len(dcid),)) + dcid
            + bytes((len(scid),)) + scid + varint(len(token)) + token)
    if pad_to is not None:
        frames += bytes(max(0, pad_to - len(head) - 2 - pn_len - len(frames) - 16))
    length = pn_len + len(frames) + 16
    head += struct.pack("!H", 0x4000 | length)  # always 2 bytes, as the RFC's example
    pn = packet_number.to_bytes(pn_len, "big")
    key, iv, hp = client_keys(dcid, version)
    nonce = (int.from_bytes(iv, "big") ^ packet_number).to_bytes(12, "big")
    sealed = AESGCM(key).encrypt(nonce, frames, head + pn)
    sample = sealed[4 - pn_len:4 - pn_len + 16]
    mask = Cipher(algorithms.AES(hp), modes.ECB()).encryptor().update(sample)
    protected_first = bytes((first ^ (mask[0] & 0x0F),))
    protected_pn = bytes(b ^ m for b, m in zip(pn, mask[1:], strict=False))
    return protected_first + head[1:] + protected_pn + sealed


def other_long_packet(version: int, packet_type: int, dcid: bytes, body: bytes) -> bytes:
    """A long-header packet that is not an Initial (a Handshake, a 0-RTT), unprotected
    filler: what a datagram may coalesce after an Initial."""
    first = 0xC0 | packet_type << 4
    return (bytes((first,)) + version.to_bytes(4, "big") + bytes((len(dcid),)) + dcid + b"\x00"
            + struct.pack("!H", 0x4000 | len(body)) + body)
