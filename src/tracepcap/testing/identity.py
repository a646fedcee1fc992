"""Payloads that identify a host beyond its name: Windows Browser announcements ([MS-BRWS]
in an SMB1 mailslot transaction in a NetBIOS datagram, RFC 1002 4.4), SSDP searches and
UPnP device descriptions, VPN handshakes (WireGuard, OpenVPN, IKEv2, ESP, L2TP) and
cleartext logins. Each returns a UDP payload or one direction's TCP bytes."""

from __future__ import annotations

import struct

from tracepcap.testing.frames import ip_bytes
from tracepcap.testing.names import netbios_name

# --- Windows Browser ---------------------------------------------------------------------
DGM_DIRECT_GROUP = 0x11
DGM_FIRST_B_NODE = 0x02  # F bit set, node type B
DGM_HEADER = struct.Struct("!BBH4sHHH")  # type, flags, id, source ip, port, length, offset
SMB_HEADER = struct.Struct("<4sBIBHH8sHHHHH")  # as smb.py builders: protocol .. mid
SMB_COM_TRANSACTION = 0x25
MAILSLOT_BROWSE = b"\\MAILSLOT\\BROWSE\x00"
MAILSLOT_WRITE, MAILSLOT_UNRELIABLE = 1, 2  # setup words: opcode, priority, class
BROWSER_HOST = struct.Struct("<BBI16sBBIBBH")  # [MS-BRWS] 2.2.1 HostAnnouncement
HOST_ANNOUNCEMENT = 0x01
SV_WORKSTATION, SV_SERVER, SV_NT = 0x1, 0x2, 0x1000
BROWSER_SIGNATURE = 0xAA55


def browser_announcement(name: str, source_ip: str, *, os_version: tuple[int, int] = (10, 0),
                         server_type: int = SV_WORKSTATION | SV_SERVER | SV_NT,
                         workgroup: str = "WORKGROUP", comment: str = "",
                         datagram_id: int = 0x1234) -> bytes:
    """A HostAnnouncement to WORKGROUP<1d> as Windows broadcasts it every 12 minutes."""
    data = BROWSER_HOST.pack(HOST_ANNOUNCEMENT, 0, 720_000, name.upper().encode()[:15],
                             os_version[0], os_version[1], server_type, 15, 1,
                             BROWSER_SIGNATURE) + comment.encode() + b"\x00"
    setup = struct.pack("<HHH", MAILSLOT_WRITE, 0, MAILSLOT_UNRELIABLE)
    words = 14 + 3
    data_offset = SMB_HEADER.size + 1 + words * 2 + 2 + len(MAILSLOT_BROWSE)
    params = struct.pack("<HHHHBBHIHHHHHBB", 0, len(data), 0, 0, 0, 0, 0, 1000, 0, 0, 0,
                         len(data), data_offset, 3, 0) + setup
    smb = (SMB_HEADER.pack(b"\xffSMB", SMB_COM_TRANSACTION, 0, 0, 0, 0, bytes(8), 0, 0, 0, 0, 0)
           + bytes([words]) + params + struct.pack("<H", len(MAILSLOT_BROWSE) + len(data))
           + MAILSLOT_BROWSE + data)
    names = netbios_name(name, 0x20) + netbios_name(workgroup, 0x1D)
    header = DGM_HEADER.pack(DGM_DIRECT_GROUP, DGM_FIRST_B_NODE, datagram_id,
                             ip_bytes(source_ip), 138, len(names) + len(smb), 0)
    return header + names + smb


# --- SSDP and UPnP -----------------------------------------------------------------------
def ssdp_search(target: str, user_agent: str | None = None) -> bytes:
    """An M-SEARCH to 239.255.255.250:1900 (UDA 2.0 1.3.2)."""
    lines = ["M-SEARCH * HTTP/1.1", "HOST: 239.255.255.250:1900", 'MAN: "ssdp:discover"',
             "MX: 1", f"ST: {target}"]
    if user_agent:
        lines.append(f"USER-AGENT: {user_agent}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def upnp_description(friendly_name: str, manufacturer: str, model_name: str,
                     model_number: str = "", device_type: str = "urn:schemas-upnp-org:"
                     "device:MediaRenderer:1") -> bytes:
    """A root device description document (UDA 2.0 2.3), XML-escaped where needed."""
    def esc(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    number = f"<modelNumber>{esc(model_number)}</modelNumber>" if model_number else ""
    return ('<?xml version="1.0"?>\n<root xmlns="urn:schemas-upnp-org:device-1-0">'
            "<specVersion><major>1</major><minor>0</minor></specVersion><device>"
            f"<deviceType>{device_type}</deviceType><friendlyName>{esc(friendly_name)}"
            f"</friendlyName><manufacturer>{esc(manufacturer)}</manufacturer>"
            f"<modelName>{esc(model_name)}</modelName>{number}"
            "<UDN>uuid:RINCON_000E58000001</UDN></device></root>").encode()


# --- VPN handshakes ----------------------------------------------------------------------
def _filler(seed: int, size: int) -> bytes:
    """Deterministic stand-in for key material and ciphertext."""
    return bytes((seed * 31 + i * 7) & 0xFF for i in range(size))


def wireguard_initiation(sender: int) -> bytes:
    """Handshake initiation (WireGuard whitepaper 5.4.2): 148 bytes."""
    return struct.pack("<B3sI", 1, bytes(3), sender) + _filler(sender, 32 + 48 + 28 + 16) + bytes(16)


def wireguard_response(sender: int, receiver: int) -> bytes:
    """Handshake response (5.4.3): 92 bytes."""
    return struct.pack("<B3sII", 2, bytes(3), sender, receiver) + _filler(sender, 32 + 16 + 16) + bytes(16)


def openvpn_hard_reset_client(session: int) -> bytes:
    """P_CONTROL_HARD_RESET_CLIENT_V2 with key id 0, no tls-auth: session id, an empty ACK
    array and message packet id 0."""
    return bytes([7 << 3]) + struct.pack("!Q", session) + b"\x00" + struct.pack("!I", 0)


def ike_sa_init(spi_i: int, natt: bool = False) -> bytes:
    """An IKEv2 IKE_SA_INIT request (RFC 7296 1.2) carrying one Nonce payload."""
    nonce = _filler(spi_i & 0xFF, 32)
    payload = struct.pack("!BBH", 0, 0, 4 + len(nonce)) + nonce
    header = struct.pack("!QQBBBBII", spi_i, 0, 40, 0x20, 34, 0x08, 0, 28 + len(payload))
    return (b"\x00" * 4 if natt else b"") + header + payload


def esp(spi: int, seq: int, size: int = 64) -> bytes:
    """An ESP packet (RFC 4303 2): SPI, sequence number, then opaque ciphertext."""
    return struct.pack("!II", spi, seq) + _filler(seq, size)


def l2tp_sccrq(hostname: str = "lac") -> bytes:
    """An L2TPv2 Start-Control-Connection-Request (RFC 2661 6.1) with Message Type,
    Protocol Version, Host Name and Assigned Tunnel ID AVPs."""
    def avp(attr: int, value: bytes) -> bytes:
        return struct.pack("!HHH", 0x8000 | (6 + len(value)), 0, attr) + value
    body = (avp(0, b"\x00\x01") + avp(2, b"\x01\x00") + avp(7, hostname.encode())
            + avp(9, b"\x00\x05"))
    return struct.pack("!HHHHHH", 0xC802, 12 + len(body), 0, 0, 0, 0) + body
