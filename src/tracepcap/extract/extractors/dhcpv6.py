"""`hostname-claim` facts (source dhcpv6: the client FQDN option 39) and
`dhcp-vendor-class` facts (option 16: its vendor-class-data items joined by ",", e.g.
"MSFT 5.0") of DHCPv6 clients, on the address the client sent from (its link-local
address), or for a relayed message the relay's peer-address."""

from __future__ import annotations

from ..decoders import dhcpv6
from ..extractor import Extractor
from ..kinds import DHCP_VENDOR_CLASS, HOSTNAME_CLAIM

NAME, VERSION = "dhcpv6", "1"
CLIENT_PORT, SERVER_PORT = 546, 547


class Dhcpv6(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, DHCP_VENDOR_CLASS)
    UDP_PORTS = frozenset((CLIENT_PORT, SERVER_PORT))

    def observe(self, pkt, flow) -> None:
        msg, client = dhcpv6.decode(pkt.payload), pkt.src
        while msg.msg_type == dhcpv6.RELAY_FORW:  # RFC 8415 19.1: the client's message inside
            inner = msg.option(dhcpv6.OPT_RELAY_MSG)
            if inner is None:
                return
            msg, client = dhcpv6.decode(inner), msg.peer
        if msg.msg_type not in dhcpv6.CLIENT_MESSAGES:
            return
        if (data := msg.option(dhcpv6.OPT_CLIENT_FQDN)) is not None:
            if name := dhcpv6.client_fqdn(data).rstrip("."):
                self.emit.fact(client, HOSTNAME_CLAIM, name, pkt.frame, pkt.ts, source="dhcpv6")
        for code, data in msg.options:
            if code == dhcpv6.OPT_VENDOR_CLASS:
                _enterprise, items = dhcpv6.vendor_class(data)
                if value := ",".join(item for item in items if item):
                    self.emit.fact(client, DHCP_VENDOR_CLASS, value, pkt.frame, pkt.ts)
