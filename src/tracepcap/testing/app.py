"""Application payloads, one import away: HTTP and SSH here; DHCP, name services and TLS
from their own modules (`dhcp`, `names`, `tls`), re-exported so callers write
`from tracepcap.testing.app import dhcp, dns_query, tls_client_hello, http_request`."""

from __future__ import annotations

from collections.abc import Iterable

from tracepcap.testing.dhcp import (
    ACK,
    BOOTREPLY,
    BOOTREQUEST,
    DHCP6_ADVERTISE,
    DHCP6_REPLY,
    DHCP6_REQUEST,
    DHCP6_SOLICIT,
    DISCOVER,
    OFFER,
    REQUEST,
    dhcp,
    dhcpv6,
    duid_ll,
)
from tracepcap.testing.names import (
    dns_message,
    dns_query,
    dns_response,
    llmnr_query,
    llmnr_response,
    mdns_announcement,
    mdns_host_records,
    mdns_query,
    mdns_service_records,
    nbns_query,
    nbns_query_response,
    nbns_registration,
    netbios_name,
    reverse_name,
)
from tracepcap.testing.tls import (
    TLS10,
    TLS11,
    TLS12,
    TLS13,
    ca_cert,
    certificate,
    self_signed_cert,
    tls_application_data,
    tls_certificate,
    tls_client_hello,
    tls_server_flight,
    tls_server_hello,
    tls_server_hello_done,
)

__all__ = [
    "ACK", "BOOTREPLY", "BOOTREQUEST", "DHCP6_ADVERTISE", "DHCP6_REPLY", "DHCP6_REQUEST",
    "DHCP6_SOLICIT", "DISCOVER", "OFFER", "REQUEST", "TLS10", "TLS11", "TLS12", "TLS13",
    "ca_cert", "certificate", "dhcp", "dhcpv6", "dns_message", "dns_query", "dns_response",
    "duid_ll", "http_request", "http_response", "llmnr_query", "llmnr_response",
    "mdns_announcement", "mdns_host_records", "mdns_query", "mdns_service_records",
    "nbns_query", "nbns_query_response", "nbns_registration", "netbios_name",
    "reverse_name", "self_signed_cert", "ssh_banner", "tls_application_data",
    "tls_certificate", "tls_client_hello", "tls_server_flight", "tls_server_hello",
    "tls_server_hello_done",
]

CRLF = "\r\n"  # RFC 9112 2.1: HTTP/1.1 lines end in CRLF, as does the SSH banner


def _head(first_line: str, headers: Iterable[tuple[str, str]]) -> bytes:
    lines = [first_line, *(f"{name}: {value}" for name, value in headers)]
    return (CRLF.join(lines) + CRLF + CRLF).encode("latin-1")


def http_request(method: str, path: str, host: str, user_agent: str | None = None,
                 headers: Iterable[tuple[str, str]] = (), body: bytes = b"") -> bytes:
    """An HTTP/1.1 request: Host first, then User-Agent, the extra headers, and a
    Content-Length whenever there is a body."""
    fields = [("Host", host)]
    if user_agent:
        fields.append(("User-Agent", user_agent))
    fields.extend(headers)
    if body:
        fields.append(("Content-Length", str(len(body))))
    return _head(f"{method} {path} HTTP/1.1", fields) + body


def http_response(status: int = 200, reason: str = "OK", server: str | None = None,
                  body: bytes = b"", content_type: str = "text/html",
                  headers: Iterable[tuple[str, str]] = ()) -> bytes:
    """An HTTP/1.1 response with Server (when given), Content-Type and Content-Length."""
    fields = [("Server", server)] if server else []
    fields += [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers]
    return _head(f"HTTP/1.1 {status} {reason}", fields) + body


def ssh_banner(software: str = "OpenSSH_9.6p1", comment: str | None = None) -> bytes:
    """The SSH identification line (RFC 4253 4.2): SSH-2.0-software[ SP comments] CR LF."""
    line = f"SSH-2.0-{software}" + (f" {comment}" if comment else "")
    return (line + CRLF).encode("ascii")
