"""TLS handshake in the clear (RFC 5246; TLS 1.3 RFC 8446): records, handshake messages,
the ClientHello's offer (version, cipher suites, extensions; its server_name extension,
RFC 6066 3) and the Certificate message's chain.

A handshake message may span several records and a record several segments; the caller
hands in the first bytes of one direction in order. `handshake_messages` joins the leading
handshake records and returns the complete messages, plus the incomplete last one if the
bytes end inside it (a head cut short is normal, not an error). Names in an X.509
certificate are read with `cryptography` in `certificate_names` only.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from . import Malformed, Truncated, need

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
                names.append(name.decode("utf-8", "surrogateescape").rstrip("."))
            pos = pos2
    return names


class ClientHello(NamedTuple):
    """What a ClientHello offers, in wire order (RFC 8446 4.1.2), GREASE values included."""

    version: int  # legacy_version
    ciphers: tuple[int, ...]
    extensions: tuple[tuple[int, bytes], ...]  # (type, data)

    def extension(self, ext_type: int) -> bytes | None:
        return next((data for t, data in self.extensions if t == ext_type), None)


def client_hello(body: bytes) -> ClientHello:
    """The version, cipher suites and extensions of a complete ClientHello body. (Read with
    inline length checks rather than `_vector`: every TLS client's hello passes here.)"""
    n = len(body)
    at = 2 + RANDOM
    need("tls-client-hello", body, 0, at + 1)
    version = body[0] << 8 | body[1]
    at += 1 + body[at]  # legacy_session_id
    need("tls-client-hello", body, at, 2)
    size = body[at] << 8 | body[at + 1]
    at += 2
    need("tls-client-hello", body, at, size)
    if size % 2:
        raise Malformed("tls-client-hello", f"cipher suites of {size} bytes")
    ciphers = struct.unpack_from(f"!{size // 2}H", body, at)
    at += size
    need("tls-client-hello", body, at, 1)
    at += 1 + body[at]  # legacy_compression_methods
    need("tls-client-hello", body, at, 0)
    extensions = []
    if at < n:
        need("tls-extensions", body, at, 2)
        end = at + 2 + (body[at] << 8 | body[at + 1])
        need("tls-extensions", body, at + 2, end - at - 2)
        at += 2
        while at < end:
            if end - at < 4:
                raise Truncated("tls-extension", need=4, have=end - at)
            size = body[at + 2] << 8 | body[at + 3]
            if end - at - 4 < size:
                raise Truncated("tls-extension", need=size, have=end - at - 4)
            extensions.append((body[at] << 8 | body[at + 1], body[at + 4:at + 4 + size]))
            at += 4 + size
    return ClientHello(version, ciphers, tuple(extensions))


def u16_list(data: bytes, width: int) -> list[int]:
    """A vector (length of `width` bytes) of 16-bit values: supported groups, signature
    algorithms, supported versions."""
    values, _ = _vector(data, 0, width, "tls-extension-list")
    if len(values) % 2:
        raise Malformed("tls-extension-list", f"{len(values)} bytes of 16-bit values")
    return list(struct.unpack(f"!{len(values) // 2}H", values))


def byte_list(data: bytes) -> list[int]:
    """A vector of single bytes with a 1-byte length (EC point formats)."""
    values, _ = _vector(data, 0, 1, "tls-extension-list")
    return list(values)


def alpn_protocols(data: bytes) -> list[bytes]:
    """The protocol names of an ALPN extension (RFC 7301 3.1)."""
    names, _ = _vector(data, 0, 2, "tls-alpn")
    out, at = [], 0
    while at < len(names):
        name, at = _vector(names, at, 1, "tls-alpn")
        out.append(bytes(name))
    return out


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
    """(subject common names, DNS subject alternative names) of one DER certificate.
    A server sends the same certificate on every connection: the names of the last
    `CERT_CACHE` certificates are kept by their bytes (parsing one costs ~0.2-0.4 ms); a
    full cache is emptied (one `clear`, safe when several walks share the process)."""
    der = bytes(der)
    names = _CERT_NAMES.get(der)
    if names is None:
        names = _certificate_names(der)
        if len(_CERT_NAMES) >= CERT_CACHE:
            _CERT_NAMES.clear()
        _CERT_NAMES[der] = names
    return list(names[0]), list(names[1])


CERT_CACHE = 1024
_CERT_NAMES: dict[bytes, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _certificate_names(der: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from cryptography import x509  # loaded on the first certificate, not at every start
    from cryptography.x509.oid import NameOID
    try:
        cert = x509.load_der_x509_certificate(der)
        cns = [str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
        try:
            sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except x509.ExtensionNotFound:
            return tuple(cns), ()
    except (ValueError, x509.DuplicateExtension) as err:
        raise Malformed("x509", f"{type(err).__name__}: {err}") from err
    return tuple(cns), tuple(sans.value.get_values_for_type(x509.DNSName))
