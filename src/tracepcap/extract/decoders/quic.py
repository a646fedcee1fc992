"""QUIC Initial packets from the client (RFC 9000 17.2.2; v2 RFC 9369; draft-29): header
protection removed and the payload decrypted with the Initial keys (RFC 9001 5.2, 5.4),
which anyone can derive from the Destination Connection ID, then the CRYPTO frames read.

The CRYPTO frames carry the TLS ClientHello as bare handshake messages (no record layer);
the caller joins them per connection, by offset, possibly across several Initials.
A datagram may hold several coalesced long-header packets (RFC 9000 12.2): each Initial in
it is read, others (0-RTT, Handshake) are skipped by their Length field.
A packet whose AEAD tag does not verify under the client keys of its DCID is not a client
Initial we can read (a server's, or a client's sent after the server chose its connection
ID): it is left out, not an error; so is one too short to hold a header protection sample.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import NamedTuple

from . import Malformed, need

LONG_HEADER = 0xC0  # header form and fixed bit (RFC 9000 17.2)
VERSION = struct.Struct("!I")
MAX_CID = 20  # RFC 9000 17.2: a v1 connection ID is at most 20 bytes
SAMPLE = 16  # RFC 9001 5.4.2: header protection samples 16 bytes, 4 past the packet number
TAG = 16  # AES-128-GCM tag
# Frames an Initial may hold (RFC 9000 12.4, table 3)
PADDING, PING, ACK, ACK_ECN, CRYPTO, CONNECTION_CLOSE = 0x00, 0x01, 0x02, 0x03, 0x06, 0x1C


class Version(NamedTuple):
    name: str
    salt: bytes  # initial_salt
    label: bytes  # prefix of the key, iv and hp labels
    initial_type: int  # long packet type of an Initial


VERSIONS = {
    0x00000001: Version("v1", bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a"), b"quic ", 0),
    0x6B3343CF: Version("v2", bytes.fromhex("0dede3def700a6db819381be6e269dcbf9bd2ed9"), b"quicv2 ", 1),
    0xFF00001D: Version("draft-29", bytes.fromhex("afbfec289993d24c9e9786f19c6111e04390a899"), b"quic ", 0),
}


class Keys(NamedTuple):
    """A client's Initial packet protection (RFC 9001 5.1)."""

    key: bytes
    iv: bytes
    hp: bytes


class Initial(NamedTuple):
    """One decrypted client Initial: its version's name, connection IDs, packet number,
    and the CRYPTO frames' (offset, data)."""

    version: str
    dcid: bytes
    scid: bytes
    packet_number: int
    crypto: tuple[tuple[int, bytes], ...]


def _hmac(key: bytes, data: bytes) -> bytes:
    from cryptography.hazmat.primitives.hashes import SHA256  # loaded at the first Initial, not at start
    from cryptography.hazmat.primitives.hmac import HMAC
    mac = HMAC(key, SHA256())
    mac.update(data)
    return mac.finalize()


def _expand_label(secret: bytes, label: bytes, length: int) -> bytes:
    """HKDF-Expand-Label (RFC 8446 7.1) with an empty context; every output here fits
    one SHA-256 block."""
    full = b"tls13 " + label
    info = struct.pack("!HB", length, len(full)) + full + b"\x00"
    return _hmac(secret, info + b"\x01")[:length]


@lru_cache(maxsize=1024)
def client_keys(version: int, dcid: bytes) -> Keys:
    """The client Initial keys of a connection whose client chose `dcid` (RFC 9001 5.2)."""
    spec = VERSIONS[version]
    initial_secret = _hmac(spec.salt, dcid)  # HKDF-Extract
    secret = _expand_label(initial_secret, b"client in", 32)
    return Keys(_expand_label(secret, spec.label + b"key", 16),
                _expand_label(secret, spec.label + b"iv", 12),
                _expand_label(secret, spec.label + b"hp", 16))


def header_mask(hp: bytes, sample: bytes) -> bytes:
    """AES-ECB of the sample under the header protection key (RFC 9001 5.4.3)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    return Cipher(algorithms.AES(hp), modes.ECB()).encryptor().update(sample)


def varint(buf, at: int, what: str = "quic-varint") -> tuple[int, int]:
    """A variable-length integer (RFC 9000 16): (value, offset after it)."""
    need(what, buf, at, 1)
    size = 1 << (buf[at] >> 6)
    need(what, buf, at, size)
    value = buf[at] & 0x3F
    for i in range(1, size):
        value = value << 8 | buf[at + i]
    return value, at + size


def is_long_header(buf) -> bool:
    """Does the datagram start like a long-header packet of a version we can read?"""
    return len(buf) >= 5 and buf[0] & LONG_HEADER == LONG_HEADER \
        and VERSION.unpack_from(buf, 1)[0] in VERSIONS


def client_initials(buf) -> list[Initial]:
    """The client Initials of one UDP datagram, in order."""
    out, at = [], 0
    while len(buf) - at >= 5 and buf[at] & LONG_HEADER == LONG_HEADER:
        version = VERSION.unpack_from(buf, at + 1)[0]
        if version not in VERSIONS:
            break  # a version we cannot read, or a Version Negotiation packet (version 0)
        initial, at = _packet(buf, at, version)
        if initial is not None:
            out.append(initial)
    return out


def _packet(buf, start: int, version: int) -> tuple[Initial | None, int]:
    """One long-header packet at `start`: (the Initial if it is a client's, offset of the
    next packet)."""
    spec = VERSIONS[version]
    first = buf[start]
    at = start + 5
    need("quic", buf, at, 1)
    dcid_len = buf[at]
    if dcid_len > MAX_CID:
        raise Malformed("quic", f"destination connection ID of {dcid_len} bytes")
    need("quic", buf, at + 1, dcid_len + 1)
    dcid = bytes(buf[at + 1:at + 1 + dcid_len])
    at += 1 + dcid_len
    scid_len = buf[at]
    if scid_len > MAX_CID:
        raise Malformed("quic", f"source connection ID of {scid_len} bytes")
    need("quic", buf, at + 1, scid_len)
    scid = bytes(buf[at + 1:at + 1 + scid_len])
    at += 1 + scid_len
    is_initial = (first >> 4) & 0x03 == spec.initial_type
    if is_initial:
        token_len, at = varint(buf, at, "quic-token")
        need("quic-token", buf, at, token_len)
        at += token_len
    elif (first >> 4) & 0x03 == (spec.initial_type + 3) % 4:
        return None, len(buf)  # a Retry: no Length field, it fills the datagram
    length, at = varint(buf, at, "quic-length")
    need("quic", buf, at, length)
    end = at + length
    if not is_initial:
        return None, end
    if length < 4 + SAMPLE:
        return None, end  # too short to be protected (RFC 9001 5.4.2): nothing to read
    keys = client_keys(version, dcid)
    mask = header_mask(keys.hp, bytes(buf[at + 4:at + 4 + SAMPLE]))
    first ^= mask[0] & 0x0F
    pn_len = (first & 0x03) + 1
    pn_bytes = bytes(b ^ m for b, m in zip(buf[at:at + pn_len], mask[1:1 + pn_len], strict=False))
    header = bytes((first,)) + bytes(buf[start + 1:at]) + pn_bytes
    packet_number = int.from_bytes(pn_bytes, "big")
    nonce = (int.from_bytes(keys.iv, "big") ^ packet_number).to_bytes(12, "big")
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    try:
        plain = AESGCM(keys.key).decrypt(nonce, bytes(buf[at + pn_len:end]), header)
    except InvalidTag:
        return None, end
    return Initial(spec.name, dcid, scid, packet_number, crypto_frames(plain)), end


def crypto_frames(plain: bytes) -> tuple[tuple[int, bytes], ...]:
    """The (offset, data) of each CRYPTO frame in a decrypted Initial payload."""
    out, at, n = [], 0, len(plain)
    while at < n:
        frame_type = plain[at]
        at += 1
        if frame_type in (PADDING, PING):
            continue
        if frame_type == CRYPTO:
            offset, at = varint(plain, at, "quic-crypto")
            size, at = varint(plain, at, "quic-crypto")
            need("quic-crypto", plain, at, size)
            out.append((offset, plain[at:at + size]))
            at += size
        elif frame_type in (ACK, ACK_ECN):
            _largest, at = varint(plain, at, "quic-ack")
            _delay, at = varint(plain, at, "quic-ack")
            ranges, at = varint(plain, at, "quic-ack")
            _first, at = varint(plain, at, "quic-ack")
            for _ in range(2 * ranges + (3 if frame_type == ACK_ECN else 0)):
                _value, at = varint(plain, at, "quic-ack")
        elif frame_type == CONNECTION_CLOSE:
            _code, at = varint(plain, at, "quic-close")
            _frame, at = varint(plain, at, "quic-close")
            size, at = varint(plain, at, "quic-close")
            need("quic-close", plain, at, size)
            at += size
        else:
            raise Malformed("quic", f"frame type {frame_type:#x} in an Initial")
    return tuple(out)


def client_hello(crypto: bytes) -> bytes | None:
    """The ClientHello body at the start of a client's joined CRYPTO stream, or None while
    the stream does not yet hold all of it. Raises Malformed when it starts otherwise."""
    if len(crypto) < 4:
        return None
    if crypto[0] != 1:
        raise Malformed("quic", f"CRYPTO stream starts with handshake type {crypto[0]}")
    length = int.from_bytes(crypto[1:4], "big")
    if len(crypto) < 4 + length:
        return None
    return bytes(crypto[4:4 + length])

