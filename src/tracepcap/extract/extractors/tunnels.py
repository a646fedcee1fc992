"""`tunnel-endpoint` facts: the hosts at either end of a tunnel's outer packets, with the
layer named ("vxlan vni 42", "geneve vni 7", "gre", "gre key 9", "erspan-ii session 3",
"gtp-u teid 0x00001234", "teredo origin 192.0.2.45:40000", "ipip", "6in4"), on the
carrier's source and, unless it is a group address, its destination.

Measured: the encapsulation is a property of the traffic. The hosts inside get their own
facts from the other extractors, which see the inner packets.
"""

from __future__ import annotations

from ..extractor import Extractor
from ..kinds import TUNNEL_ENDPOINT
from ..packet import is_group

NAME, VERSION = "tunnels", "1"


class Tunnels(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (TUNNEL_ENDPOINT,)
    CARRIERS = True

    def observe(self, pkt, flow) -> None:
        value = pkt.carries.text()
        self.emit.fact(pkt.src, TUNNEL_ENDPOINT, value, pkt.frame, pkt.ts)
        if not is_group(pkt):
            self.emit.fact(pkt.dst, TUNNEL_ENDPOINT, value, pkt.frame, pkt.ts)
