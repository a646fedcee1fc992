"""TLS handshake in the clear (RFC 5246; TLS 1.3 RFC 8446): records, handshake messages,
the ClientHello's server_name extension (RFC 6066 3) and the Certificate message's chain.

A handshake message may span several records and a record several segments; the caller
hands in the first bytes of one direction in order. `handshake_messages` joins the leading
handshake records and returns the complete messages, plus the incomplete last one if the
bytes end inside it (a head cut short is normal, not an error). Names in an X.509
certificate are read with `cryptography` in `certificate_names` only.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from cryptography import x509
from cryptography.x509.oid import NameOID

from . import Malformed, need

RECORD = struct.Struct("!BHH")  # content type, legacy version, length
U24 = struct.Struct("!BH")  # a 24-bit length as high byte, low 16 bits
U16 = struct.Struct("!H")
HANDSHAKE = 22  # record content type
CLIENT_HELLO, SERVER_HELLO, CERTIFICATE = 1, 2, 11
EXT_SERVER_NAME, HOST_NAME = 0, 0
MAX_RECORD = 2 ** 14 + 2048  # RFC 5246 6.2.3: TLSCiphertext.length never exceeds this
RANDOM = 32


class Message(NamedTuple):
    msg_type: int
    body: bytes
    complete: bool  # False: the bytes ended inside this message; body is what there was


def is_handshake(data) -> bool:
    """Does `data` start like a TLS handshake record (type 22, version 3.x)?"""
    return len(data) >= 3 and data[0] == HANDSHAKE and data[1] == 3 and data[2] <= 4


def handshake_messages(data) -> list[Message]:
    """The handshake messages of the leading handshake records of `data`; the walk stops
    at the first other record (ChangeCipherSpec, alert, application data)."""
    stream, at = bytearray(), 0
    while len(data) - at >= RECORD.size:
        ctype, version, length = RECORD.unpack_from(data, at)
        if ctype != HANDSHAKE:
            break
        if version >> 8 != 3 or length > MAX_RECORD:
            raise Malformed("tls-record", f"version {version:#06x}, length {length}")
        stream += data[at + RECORD.size:at + RECORD.size + length]
        at += RECORD.size + length
    messages, at = [], 0
    while len(stream) - at >= 4:
        high, low = U24.unpack_from(stream, at + 1)
        length = high << 16 | low
        body = bytes(stream[at + 4:at + 4 + length])
        messages.append(Message(stream[at], body, len(body) == length))
        at += 4 + length
    return messages


def _vector(buf, at: int, width: int, what: str) -> tuple[bytes, int]:
    need(what, buf, at, width)
    length = int.from_bytes(buf[at:at + width], "big")
    need(what, buf, at + width, length)
    return buf[at + width:at + width + length], at + width + length


def server_names(body: bytes) -> list[str]:
    """The host names a ClientHello body asks for (server_name extension, type host_name)."""
    at = 2 + RANDOM  # legacy_version, random
    need("tls-client-hello", body, 0, at)
    _session, at = _vector(body, at, 1, "tls-client-hello")
    _suites, at = _vector(body, at, 2, "tls-client-hello")
    _compression, at = _vector(body, at, 1, "tls-client-hello")
    if at == len(body):
        return []  # no extensions (RFC 5246 7.4.1.2 allows it)
    extensions, _ = _vector(body, at, 2, "tls-extensions")
    names, at = [], 0
    while at < len(extensions):
        need("tls-extension", extensions, at, 2)
        ext_type = U16.unpack_from(extensions, at)[0]
        data, at = _vector(extensions, at + 2, 2, "tls-extension")
        if ext_type != EXT_SERVER_NAME or not data:
            continue
        entries, _ = _vector(data, 0, 2, "tls-server-name")
        pos = 0
        while pos < len(entries):
            need("tls-server-name", entries, pos, 1)
            name, pos2 = _vector(entries, pos + 1, 2, "tls-server-name")
            if entries[pos] == HOST_NAME:
                names.append(name.decode("utf-8", "replace").rstrip("."))
            pos = pos2
    return names


def certificate_chain(body: bytes) -> list[bytes]:
    """The DER certificates of a TLS 1.2-or-earlier Certificate body, leaf first; from a
    partial body, the certificates that are complete."""
    need("tls-certificate", body, 0, 3)
    certs, at, end = [], 3, min(len(body), 3 + int.from_bytes(body[:3], "big"))
    while end - at >= 3:
        length = int.from_bytes(body[at:at + 3], "big")
        if at + 3 + length > end:
            break
        certs.append(body[at + 3:at + 3 + length])
        at += 3 + length
    return certs


def certificate_names(der: bytes) -> tuple[list[str], list[str]]:
    """(subject common names, DNS subject alternative names) of one DER certificate."""
    try:
        cert = x509.load_der_x509_certificate(der)
        cns = [str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
        try:
            sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except x509.ExtensionNotFound:
            return cns, []
    except (ValueError, x509.DuplicateExtension) as err:
        raise Malformed("x509", f"{type(err).__name__}: {err}") from err
    return cns, list(sans.value.get_values_for_type(x509.DNSName))
