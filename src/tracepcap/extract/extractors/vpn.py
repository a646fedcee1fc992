"""`tunnel-endpoint` facts for VPNs whose packets are encrypted, so nothing is
decapsulated: WireGuard handshakes on any UDP port (by shape), OpenVPN hard resets on
udp/1194, IKE on udp/500 and udp/4500, ESP (IP protocol 50 or in udp/4500) and L2TP on
udp/1701. The value names the protocol and the responder's port ("wireguard udp/51820",
"ike v2 udp/500", "openvpn udp/1194", "l2tp v2 udp/1701") or the SA ("esp spi
0x0000abcd"), on both ends unless the destination is a group address. MEASURED, like the
tunnels extractor's: the shape is a property of the traffic, so "this laptop runs a
personal VPN" is a fact on the laptop.
"""

from __future__ import annotations

from ..decoders import vpn
from ..extractor import Extractor
from ..kinds import TUNNEL_ENDPOINT
from ..packet import is_group

NAME, VERSION = "vpn", "1"
PROTO_UDP, PROTO_ESP = 17, 50
IKE_PORT, NATT_PORT, OPENVPN_PORT, L2TP_PORT = 500, 4500, 1194, 1701
WG_SIZES = frozenset(vpn.WG_SIZES.values())
VPN_PORTS = frozenset((IKE_PORT, NATT_PORT, OPENVPN_PORT, L2TP_PORT))


def recognise(pkt) -> tuple[vpn.Handshake, int] | None:
    """The handshake a packet carries and the port it names, if any."""
    if pkt.proto == PROTO_ESP:
        found = vpn.esp(pkt.payload)
        return (found, 0) if found else None
    if pkt.proto != PROTO_UDP or pkt.fragment:
        return None
    data, ports = pkt.payload, (pkt.sport, pkt.dport)
    if NATT_PORT in ports:
        if len(data) < vpn.ESP.size:
            return None  # RFC 3948 2.3: a one-byte 0xFF NAT keepalive
        found = vpn.ike(data, natt=True) or vpn.esp(data)
        return (found, NATT_PORT) if found else None
    if IKE_PORT in ports:
        found = vpn.ike(data)
        return (found, IKE_PORT) if found else None
    if OPENVPN_PORT in ports:
        found = vpn.openvpn(data)
        return (found, OPENVPN_PORT) if found else None
    if L2TP_PORT in ports:
        found = vpn.l2tp(data)
        return (found, L2TP_PORT) if found else None
    if len(data) in WG_SIZES and (found := vpn.wireguard(data)):
        return found, pkt.dport if found.initiator else pkt.sport
    return None


class Vpn(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (TUNNEL_ENDPOINT,)
    # not EVERY_IP: the TCP packets that are most of a capture cost a call each for nothing
    # (~2 % of the extract walk); a non-first ESP fragment holds no SPI, so it is not asked for
    EVERY_UDP = True
    IP_PROTOS = frozenset((PROTO_ESP,))

    def observe(self, pkt, flow) -> None:
        # most datagrams (DNS, mDNS, QUIC...) are on no VPN port and not a WireGuard size:
        # one test each, no call
        if pkt.proto == PROTO_UDP and len(pkt.payload) not in WG_SIZES \
                and pkt.sport not in VPN_PORTS and pkt.dport not in VPN_PORTS:
            return
        if (seen := recognise(pkt)) is None:
            return
        found, port = seen
        if found.protocol == "esp":
            value = f"esp {found.detail}" + (f" udp/{port}" if port else "")
        elif found.protocol == "ike" or found.protocol == "l2tp":
            value = f"{found.protocol} {found.detail.split()[0]} udp/{port}"
        else:
            value = f"{found.protocol} udp/{port}"
        self.emit.fact(pkt.src, TUNNEL_ENDPOINT, value, pkt.frame, pkt.ts)
        if not is_group(pkt):
            self.emit.fact(pkt.dst, TUNNEL_ENDPOINT, value, pkt.frame, pkt.ts)
