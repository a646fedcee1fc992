"""`application-used` facts: an application recognised by its payload, whatever the port, on
the client (the side that opened the connection), valued "<application> <proto>/<port>" with
the server's port ("BitTorrent DHT udp/6881", "SSH tcp/2222", "WireGuard udp/51820").

Recognised: BitTorrent's peer-wire handshake (TCP, "\\x13BitTorrent protocol") and its DHT
messages (UDP, bencoded dictionaries with a 20-byte node id, `d1:ad2:id20:...`: both ends are
DHT nodes, so both get the fact), WireGuard, OpenVPN, IKE and ESP handshakes (the shapes the
vpn extractor reads), SSH (an "SSH-" identification line), RDP (a TPKT-framed X.224
connection request), VNC (an "RFB 003.00x" version line) and telnet (option negotiation,
IAC WILL/WONT/DO/DONT, from either side). A TCP direction whose opener is unknown (no SYN
seen) says nothing for the protocols where either side may send first.

Not recognised: Tor. Its cells travel inside ordinary TLS, and telling them apart needs
record-size statistics over a whole connection that this per-stream head does not keep;
Tor's usual ports remain a port-based application in the network changes."""

from __future__ import annotations

from ..extractor import Extractor, StreamHead
from ..kinds import APPLICATION_USED
from ..packet import is_group
from .vpn import VPN_PORTS, WG_SIZES, recognise

NAME, VERSION = "applications", "1"
PROTO_UDP, PROTO_ESP = 17, 50
BT_HANDSHAKE = b"\x13BitTorrent protocol"
DHT_ID = b"2:id20:"
DHT_KINDS = {b"1:y1:q": "query", b"1:y1:r": "response", b"1:y1:e": "error"}
TELNET_IAC, TELNET_OPTIONS = 0xFF, frozenset((0xFB, 0xFC, 0xFD, 0xFE))
VPN_NAMES = {"wireguard": "WireGuard", "openvpn": "OpenVPN", "ike": "IPsec (IKE)", "esp": "IPsec (ESP)",
             "l2tp": "L2TP"}


def dht(data: bytes) -> str | None:
    """"query" / "response" / "error" for a BitTorrent DHT (KRPC) message, else None."""
    if not data.startswith(b"d1:") or DHT_ID not in data[:24] or not data.endswith(b"e"):
        return None
    return next((kind for marker, kind in DHT_KINDS.items() if marker in data), None)


def stream_application(data: bytes) -> tuple[str, bool] | None:
    """(application, whether only the client sends this) for the first bytes of a TCP direction."""
    if data.startswith(BT_HANDSHAKE):
        return "BitTorrent", False
    if data.startswith(b"SSH-"):
        return "SSH", False
    if data.startswith(b"RFB 0") and len(data) >= 12 and data[11:12] == b"\n":
        return "VNC", False
    if len(data) >= 11 and data[0] == 3 and data[1] == 0 and data[5] & 0xF0 == 0xE0 \
            and int.from_bytes(data[2:4], "big") >= 11:
        return "RDP", True  # TPKT version 3, X.224 connection request: the client's first bytes
    if len(data) >= 3 and data[0] == TELNET_IAC and data[1] in TELNET_OPTIONS:
        return "telnet", False
    return None


class Applications(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (APPLICATION_USED,)
    EVERY_UDP = True
    IP_PROTOS = frozenset((PROTO_ESP,))
    TCP_STREAMS = True

    def observe(self, pkt, flow) -> None:
        data = pkt.payload
        if pkt.proto == PROTO_UDP:
            if data[:3] == b"d1:":
                if (kind := dht(bytes(data))) is None:
                    return
                port = pkt.dport if kind == "query" else pkt.sport
                self._fact(pkt.src, f"BitTorrent DHT udp/{port}", pkt)
                if not is_group(pkt):
                    self._fact(pkt.dst, f"BitTorrent DHT udp/{port}", pkt)
                return
            if len(data) not in WG_SIZES and pkt.sport not in VPN_PORTS and pkt.dport not in VPN_PORTS:
                return
        if (seen := recognise(pkt)) is None:
            return
        found, port = seen
        name = VPN_NAMES.get(found.protocol, found.protocol)
        where = f"udp/{port}" if port else "ip/50"
        # the opener is the client: a message that says it opened it, else the sender to a VPN port
        client = pkt.src if found.initiator or (found.initiator is None and pkt.dport == port) else pkt.dst
        if not is_group(pkt):
            self._fact(client, f"{name} {where}", pkt)

    def observe_stream(self, head: StreamHead) -> None:
        if (found := stream_application(head.data)) is None:
            return
        app, client_only = found
        if client_only or head.from_initiator:
            client, port = head.src, head.dport
        elif head.from_initiator is False:
            client, port = head.dst, head.sport
        else:
            return  # no SYN seen: which side opened it is unknown
        self.emit.fact(client, APPLICATION_USED, f"{app} tcp/{port}", head.first_frame, head.first_ts)

    def _fact(self, entity: str, value: str, pkt) -> None:
        self.emit.fact(entity, APPLICATION_USED, value, pkt.frame, pkt.ts)


__all__ = ["Applications", "dht", "stream_application"]
