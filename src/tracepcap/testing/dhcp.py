"""DHCP messages as clients and servers send them: DHCPv4 (RFC 2131, options RFC 2132)
and DHCPv6 (RFC 8415), each returned as a UDP payload."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

from tracepcap.testing.frames import U16, U32, ip_bytes, mac_bytes
from tracepcap.testing.names import encode_name

# op, htype, hlen, hops, xid, secs, flags, ciaddr, yiaddr, siaddr, giaddr, chaddr, sname, file
BOOTP = struct.Struct("!BBBBIHH4s4s4s4s16s64s128s")
MAGIC_COOKIE = b"\x63\x82\x53\x63"  # RFC 2131 3: options follow this cookie
BOOTP_MIN = 300  # RFC 1542 2.1: relays may drop shorter BOOTP messages; clients pad
BOOTREQUEST, BOOTREPLY = 1, 2
BROADCAST_FLAG = 0x8000
DISCOVER, OFFER, REQUEST, DECLINE, ACK, NAK, RELEASE, INFORM = range(1, 9)

OPT_PAD, OPT_SUBNET_MASK, OPT_ROUTER, OPT_DNS = 0, 1, 3, 6
OPT_HOSTNAME = 12  # client hostname (RFC 2132 3.14)
OPT_DOMAIN = 15
OPT_REQUESTED_IP, OPT_LEASE_TIME, OPT_MSG_TYPE, OPT_SERVER_ID = 50, 51, 53, 54
OPT_PARAM_LIST = 55  # parameter request list: its order fingerprints the client's OS
OPT_VENDOR_CLASS = 60  # e.g. "MSFT 5.0", "android-dhcp-13"
OPT_CLIENT_ID = 61
OPT_FQDN = 81  # client FQDN (RFC 4702)
OPT_END = 255
FQDN_S, FQDN_E = 0x01, 0x04  # RFC 4702 2.1: server does the A update; name in wire format

DHCP6_SOLICIT, DHCP6_ADVERTISE, DHCP6_REQUEST, DHCP6_REPLY = 1, 2, 3, 7
DHCP6_INFORMATION_REQUEST = 11
OPT6_CLIENTID, OPT6_SERVERID, OPT6_IA_NA, OPT6_IAADDR, OPT6_ORO = 1, 2, 3, 5, 6
OPT6_ELAPSED_TIME, OPT6_VENDOR_CLASS, OPT6_CLIENT_FQDN = 8, 16, 39
OPT6_DNS_SERVERS, OPT6_DOMAIN_LIST = 23, 24
ENTERPRISE_MICROSOFT = 311  # IANA private enterprise number Windows uses in option 16
DUID_LL, HWTYPE_ETHERNET = 3, 1
OPT6 = struct.Struct("!HH")  # option code, length
IA_NA = struct.Struct("!III")  # IAID, T1, T2
IAADDR_LIFETIMES = struct.Struct("!II")  # preferred, valid


def _option(code: int, data: bytes) -> bytes:
    if len(data) > 255:
        raise ValueError(f"DHCP option {code} must be at most 255 bytes (got {len(data)})")
    return bytes([code, len(data)]) + data


def dhcp(op: int, xid: int, chaddr: str, msg_type: int, *, ciaddr: str = "0.0.0.0",
         yiaddr: str = "0.0.0.0", siaddr: str = "0.0.0.0", giaddr: str = "0.0.0.0",
         broadcast: bool = False, secs: int = 0, hostname: str | None = None,
         fqdn: str | None = None, param_list: Sequence[int] | None = None,
         vendor_class: str | None = None, requested_ip: str | None = None,
         server_id: str | None = None, lease_time: int | None = None,
         subnet_mask: str | None = None, router: str | None = None,
         dns_servers: Sequence[str] = (), domain: str | None = None,
         client_id: bool = True, extra_options: Iterable[tuple[int, bytes]] = ()) -> bytes:
    """A DHCPv4 message: BOOTP fixed part, magic cookie, options, END, padded to 300 bytes.

    Options appear in the order a typical client or server writes them: 53, 61 (requests
    only), 50, 54, 51, 1, 3, 6, 15, 12, 81, 60, 55, then `extra_options`.
    """
    fixed = BOOTP.pack(op, 1, 6, 0, xid, secs, BROADCAST_FLAG if broadcast else 0,
                       ip_bytes(ciaddr), ip_bytes(yiaddr), ip_bytes(siaddr), ip_bytes(giaddr),
                       mac_bytes(chaddr), b"", b"")
    opts = [_option(OPT_MSG_TYPE, bytes([msg_type]))]
    if client_id and op == BOOTREQUEST:  # RFC 2132 9.14: type 1 (Ethernet) + hardware address
        opts.append(_option(OPT_CLIENT_ID, b"\x01" + mac_bytes(chaddr)))
    if requested_ip:
        opts.append(_option(OPT_REQUESTED_IP, ip_bytes(requested_ip)))
    if server_id:
        opts.append(_option(OPT_SERVER_ID, ip_bytes(server_id)))
    if lease_time is not None:
        opts.append(_option(OPT_LEASE_TIME, U32.pack(lease_time)))
    if subnet_mask:
        opts.append(_option(OPT_SUBNET_MASK, ip_bytes(subnet_mask)))
    if router:
        opts.append(_option(OPT_ROUTER, ip_bytes(router)))
    if dns_servers:
        opts.append(_option(OPT_DNS, b"".join(ip_bytes(a) for a in dns_servers)))
    if domain:
        opts.append(_option(OPT_DOMAIN, domain.encode()))
    if hostname:
        opts.append(_option(OPT_HOSTNAME, hostname.encode()))
    if fqdn:  # flags, RCODE1, RCODE2 (both 0 from a client), then the name
        opts.append(_option(OPT_FQDN, bytes([FQDN_S | FQDN_E, 0, 0]) + encode_name(fqdn)))
    if vendor_class:
        opts.append(_option(OPT_VENDOR_CLASS, vendor_class.encode()))
    if param_list:
        opts.append(_option(OPT_PARAM_LIST, bytes(param_list)))
    opts.extend(_option(code, data) for code, data in extra_options)
    message = fixed + MAGIC_COOKIE + b"".join(opts) + bytes([OPT_END])
    return message + bytes(max(0, BOOTP_MIN - len(message)))


def duid_ll(mac: str) -> bytes:
    """A DUID-LL (RFC 8415 11.4): type 3, hardware type 1, the link-layer address."""
    return U16.pack(DUID_LL) + U16.pack(HWTYPE_ETHERNET) + mac_bytes(mac)


def _option6(code: int, data: bytes) -> bytes:
    return OPT6.pack(code, len(data)) + data


def dhcpv6(msg_type: int, txid: int, client_mac: str, *, fqdn: str | None = None,
           vendor_class: str | None = None, enterprise: int = ENTERPRISE_MICROSOFT,
           oro: Sequence[int] = (OPT6_DNS_SERVERS, OPT6_DOMAIN_LIST), elapsed: int = 0,
           iaid: int | None = None, address: str | None = None,
           lifetimes: tuple[int, int] = (3600, 7200),
           server_duid: bytes | None = None) -> bytes:
    """A DHCPv6 message (RFC 8415 8): type, 24-bit transaction id, then options.

    Client ID (DUID-LL), Server ID when given, IA_NA when `iaid` is given (with an IA
    Address when `address` is, valid for `lifetimes` (preferred, valid) seconds), Elapsed Time, Client FQDN (RFC 4704), Vendor Class
    (RFC 8415 21.16: enterprise number, then length-prefixed data), Option Request.
    """
    opts = [_option6(OPT6_CLIENTID, duid_ll(client_mac))]
    if server_duid is not None:
        opts.append(_option6(OPT6_SERVERID, server_duid))
    if iaid is not None:
        inner = b""
        if address:
            inner = _option6(OPT6_IAADDR, ip_bytes(address) + IAADDR_LIFETIMES.pack(*lifetimes))
        opts.append(_option6(OPT6_IA_NA, IA_NA.pack(iaid, 0, 0) + inner))
    opts.append(_option6(OPT6_ELAPSED_TIME, U16.pack(elapsed)))
    if fqdn:
        opts.append(_option6(OPT6_CLIENT_FQDN, bytes([FQDN_S]) + encode_name(fqdn)))
    if vendor_class:
        data = vendor_class.encode()
        opts.append(_option6(OPT6_VENDOR_CLASS, U32.pack(enterprise) + U16.pack(len(data))
                             + data))
    if oro:
        opts.append(_option6(OPT6_ORO, b"".join(U16.pack(code) for code in oro)))
    return U32.pack(msg_type << 24 | (txid & 0xFFFFFF)) + b"".join(opts)
