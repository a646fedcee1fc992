"""TLS handshake records (RFC 5246, extensions RFC 6066/7301/8446) and deterministic
X.509 certificates for them.

Every function returning a record returns complete TLS records, ready to be a TCP
payload. Randoms default to a hash of the inputs, so the same call gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import struct
from collections.abc import Iterable, Sequence

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import AuthorityInformationAccessOID, ExtendedKeyUsageOID, NameOID

from tracepcap.testing.frames import U16, U32

RECORD = struct.Struct("!BHH")  # content type, legacy version, length
TLS10, TLS11, TLS12, TLS13 = 0x0301, 0x0302, 0x0303, 0x0304
CT_CHANGE_CIPHER_SPEC, CT_ALERT, CT_HANDSHAKE, CT_APPLICATION_DATA = 20, 21, 22, 23
HS_CLIENT_HELLO, HS_SERVER_HELLO, HS_CERTIFICATE, HS_SERVER_HELLO_DONE = 1, 2, 11, 14
MAX_FRAGMENT = 16384  # RFC 5246 6.2.1: a record carries at most 2^14 bytes

EXT_SERVER_NAME, EXT_SUPPORTED_GROUPS, EXT_EC_POINT_FORMATS = 0, 10, 11
EXT_SIGNATURE_ALGORITHMS, EXT_ALPN, EXT_EXTENDED_MASTER_SECRET = 13, 16, 23
EXT_SUPPORTED_VERSIONS, EXT_RENEGOTIATION_INFO = 43, 0xFF01

# A browser-like TLS 1.2 offer: ECDHE-GCM and ChaCha20 first, then legacy RSA suites.
DEFAULT_CIPHERS = (0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8, 0xC013, 0xC014,
                   0x009C, 0x009D, 0x002F, 0x0035)
DEFAULT_GROUPS = (0x001D, 0x0017, 0x0018)  # x25519, secp256r1, secp384r1
DEFAULT_SIGNATURE_ALGORITHMS = (0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806,
                                0x0601)
SERVER_CIPHER = 0xC02B  # ECDHE-ECDSA-AES128-GCM-SHA256: fits the EC certificate below

# Fixed keys and dates make certificates byte-identical across runs; never use elsewhere.
CERT_KEY_SEED = 0x7261636550637054  # the leaf's private scalar
CA_KEY_SEED = 0x4341206F66207472  # a CA's private scalar
ROOT_KEY_SEED = 0x526F6F7443412121  # a root CA's private scalar, above CA_KEY_SEED
NOT_BEFORE = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
NOT_AFTER = dt.datetime(2034, 1, 1, tzinfo=dt.UTC)


def _vec(data: bytes, width: int) -> bytes:
    """A TLS vector: big-endian length of `width` bytes, then the data."""
    return len(data).to_bytes(width, "big") + data


def record(content_type: int, body: bytes, version: int = TLS12) -> bytes:
    """`body` as one or more TLS records of at most 2^14 bytes each."""
    chunks = [body[at:at + MAX_FRAGMENT] for at in range(0, len(body), MAX_FRAGMENT)] or [b""]
    return b"".join(RECORD.pack(content_type, version, len(c)) + c for c in chunks)


def handshake(msg_type: int, body: bytes) -> bytes:
    """A handshake message header (type, 24-bit length) and its body."""
    return U32.pack(msg_type << 24 | len(body)) + body


def extension(ext_type: int, data: bytes) -> bytes:
    return U16.pack(ext_type) + _vec(data, 2)


def _u16_list(values: Iterable[int]) -> bytes:
    return b"".join(U16.pack(v) for v in values)


def _random(*parts: object) -> bytes:
    return hashlib.sha256(repr(parts).encode()).digest()


def tls_client_hello(sni: str | None, *, version: int = TLS12,
                     ciphers: Sequence[int] = DEFAULT_CIPHERS,
                     groups: Sequence[int] = DEFAULT_GROUPS,
                     signature_algorithms: Sequence[int] = DEFAULT_SIGNATURE_ALGORITHMS,
                     alpn: Sequence[str] = (), supported_versions: Sequence[int] = (),
                     extra_extensions: Iterable[tuple[int, bytes]] = (),
                     random: bytes | None = None, session_id: bytes = b"",
                     record_version: int = TLS10) -> bytes:
    """A ClientHello record. The record layer says TLS 1.0, as browsers send for
    compatibility with old middleboxes (RFC 8446 5.1); `version` goes in the hello."""
    exts = []
    if sni:  # RFC 6066 3: a list holding one host_name (type 0)
        exts.append(extension(EXT_SERVER_NAME, _vec(b"\x00" + _vec(sni.encode(), 2), 2)))
    exts.append(extension(EXT_EXTENDED_MASTER_SECRET, b""))
    exts.append(extension(EXT_RENEGOTIATION_INFO, b"\x00"))
    exts.append(extension(EXT_SUPPORTED_GROUPS, _vec(_u16_list(groups), 2)))
    exts.append(extension(EXT_EC_POINT_FORMATS, _vec(b"\x00", 1)))  # uncompressed
    if alpn:
        protocols = b"".join(_vec(p.encode(), 1) for p in alpn)
        exts.append(extension(EXT_ALPN, _vec(protocols, 2)))
    exts.append(extension(EXT_SIGNATURE_ALGORITHMS, _vec(_u16_list(signature_algorithms), 2)))
    if supported_versions:
        exts.append(extension(EXT_SUPPORTED_VERSIONS, _vec(_u16_list(supported_versions), 1)))
    exts.extend(extension(t, d) for t, d in extra_extensions)
    body = (U16.pack(version) + (random or _random("client", sni, version))
            + _vec(session_id, 1) + _vec(_u16_list(ciphers), 2) + _vec(b"\x00", 1)
            + _vec(b"".join(exts), 2))
    return record(CT_HANDSHAKE, handshake(HS_CLIENT_HELLO, body), record_version)


def tls_server_hello(*, version: int = TLS12, cipher: int = SERVER_CIPHER,
                     random: bytes | None = None, session_id: bytes = b"",
                     alpn: str | None = None,
                     extensions: Iterable[tuple[int, bytes]] = ()) -> bytes:
    """A ServerHello record choosing `cipher`, with no compression."""
    exts = [extension(EXT_RENEGOTIATION_INFO, b"\x00"), extension(EXT_EC_POINT_FORMATS,
                                                                  _vec(b"\x00", 1))]
    if alpn:
        exts.append(extension(EXT_ALPN, _vec(_vec(alpn.encode(), 1), 2)))
    exts.extend(extension(t, d) for t, d in extensions)
    body = (U16.pack(version) + (random or _random("server", version, cipher))
            + _vec(session_id, 1) + U16.pack(cipher) + b"\x00" + _vec(b"".join(exts), 2))
    return record(CT_HANDSHAKE, handshake(HS_SERVER_HELLO, body), version)


def tls_certificate(der_list: Sequence[bytes], version: int = TLS12) -> bytes:
    """A Certificate record: the chain, leaf first, each DER certificate length-prefixed."""
    chain = b"".join(_vec(der, 3) for der in der_list)
    return record(CT_HANDSHAKE, handshake(HS_CERTIFICATE, _vec(chain, 3)), version)


def tls_server_hello_done(version: int = TLS12) -> bytes:
    return record(CT_HANDSHAKE, handshake(HS_SERVER_HELLO_DONE, b""), version)


def tls_server_flight(der_list: Sequence[bytes], *, cipher: int = SERVER_CIPHER,
                      alpn: str | None = None) -> bytes:
    """A TLS 1.2 server's first flight: ServerHello, Certificate, ServerHelloDone. In TLS
    1.2 the certificate travels in clear, which is what makes it an observable fact."""
    return (tls_server_hello(cipher=cipher, alpn=alpn) + tls_certificate(der_list)
            + tls_server_hello_done())


def tls_application_data(data: bytes, version: int = TLS12) -> bytes:
    return record(CT_APPLICATION_DATA, data, version)


def certificate(common_name: str, san_dns: Sequence[str] = (), *,
                issuer_cn: str | None = None, organization: str | None = None,
                key_seed: int = CERT_KEY_SEED, issuer_key_seed: int | None = None,
                serial: int = 0x5EED, ca: bool = False, pki_url: str | None = None,
                not_before: dt.datetime = NOT_BEFORE, not_after: dt.datetime = NOT_AFTER) -> bytes:
    """A DER X.509 certificate for `common_name`, signed by the issuer's fixed P-256 key.

    Deterministic: keys derived from fixed scalars, fixed serial and dates, and RFC 6979
    deterministic ECDSA, so two calls with the same arguments give the same bytes.
    `pki_url` adds the CRL and AIA pointers an enterprise CA writes (RFC 5280 4.2.1.13,
    4.2.2.1); with them a leaf is about as large as a real one.
    """
    key = ec.derive_private_key(key_seed, ec.SECP256R1())
    issuer_key = ec.derive_private_key(issuer_key_seed or key_seed, ec.SECP256R1())
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    subject = x509.Name(attrs)
    issuer = subject if issuer_cn is None else x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, issuer_cn)]
        + ([x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization)] if organization
           else []))
    usage = dict.fromkeys(("content_commitment", "key_encipherment", "data_encipherment",
                           "key_agreement", "encipher_only", "decipher_only"), False)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
               .public_key(key.public_key()).serial_number(serial)
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=ca,
                                            crl_sign=ca, **usage), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                              critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                   issuer_key.public_key()), critical=False))
    if not ca:
        builder = builder.add_extension(x509.ExtendedKeyUsage(
            [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    if san_dns:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(n) for n in san_dns]), critical=False)
    if pki_url:
        crl = x509.DistributionPoint([x509.UniformResourceIdentifier(f"{pki_url}/ca.crl")],
                                     None, None, None)
        aia = [x509.AccessDescription(AuthorityInformationAccessOID.CA_ISSUERS,
                                      x509.UniformResourceIdentifier(f"{pki_url}/ca.crt")),
               x509.AccessDescription(AuthorityInformationAccessOID.OCSP,
                                      x509.UniformResourceIdentifier(f"{pki_url}/ocsp"))]
        builder = (builder.add_extension(x509.CRLDistributionPoints([crl]), critical=False)
                   .add_extension(x509.AuthorityInformationAccess(aia), critical=False))
    cert = builder.sign(issuer_key, hashes.SHA256(), ecdsa_deterministic=True)
    return cert.public_bytes(serialization.Encoding.DER)


def self_signed_cert(common_name: str, san_dns: Sequence[str] = (), **kwargs) -> bytes:
    """A self-signed DER certificate (issuer = subject, signed by its own fixed key)."""
    return certificate(common_name, san_dns, **kwargs)


def ca_cert(common_name: str, organization: str | None = None, *, key_seed: int = CA_KEY_SEED,
            issuer_cn: str | None = None, issuer_key_seed: int | None = None,
            pki_url: str | None = None) -> bytes:
    """A CA certificate: self-signed (a root) unless an issuer is named (an intermediate).
    Its key, `key_seed`, signs `certificate(..., issuer_key_seed=key_seed)`."""
    return certificate(common_name, organization=organization, key_seed=key_seed,
                       issuer_cn=issuer_cn, issuer_key_seed=issuer_key_seed,
                       serial=key_seed & 0xFFFF, ca=True, pki_url=pki_url)
