"""`tunnel-endpoint` facts: the hosts at either end of a tunnel's outer packets, with the
layer named ("vxlan vni 42", "geneve vni 7", "gre", "gre key 9", "erspan-ii session 3",
"gtp-u teid 0x00001234", "teredo origin 192.0.2.45:40000", "ipip", "6in4"), on the
carrier's source and, unless it is a group address, its destination.

`tunnelled` facts: on each address of an inner packet (unless a group address), the
innermost tunnel it was seen in, named by its layer and its outer ends ("gtp-u between
10.200.200.1 and 10.200.200.102", the ends sorted so that both directions name one tunnel):
an address inside a tunnel is on the tunnel's own network (a mobile core's user plane, an
overlay), whatever its range says. Not for layers that carry copies of the capture's own
network (ERSPAN mirrors) or sit below IP on the same link (MPLS, PPPoE).

Measured: the encapsulation is a property of the traffic. The hosts inside get their other
facts from the other extractors, which see the inner packets.
"""

from __future__ import annotations

from ..extractor import Extractor
from ..kinds import TUNNEL_ENDPOINT, TUNNELLED
from ..packet import is_group

NAME, VERSION = "tunnels", "2"
#: layers whose inner addresses are the tunnel's own network (not mirrored copies or link shims)
OWN_NETWORK = frozenset(("gtp-u", "vxlan", "geneve", "gre", "ipip", "6in4", "4in6", "ip6ip6", "teredo"))


class Tunnels(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (TUNNEL_ENDPOINT, TUNNELLED)
    CARRIERS = True

    def observe(self, pkt, flow) -> None:
        if pkt.carries is None:  # an inner packet (the pipeline hands CARRIERS extractors those too)
            self._inner(pkt)
            return
        value = pkt.carries.text()
        self.emit.fact(pkt.src, TUNNEL_ENDPOINT, value, pkt.frame, pkt.ts)
        if not is_group(pkt):
            self.emit.fact(pkt.dst, TUNNEL_ENDPOINT, value, pkt.frame, pkt.ts)

    def _inner(self, pkt) -> None:
        layer = pkt.tunnel[-1] if pkt.tunnel else None
        if layer is None or layer.kind not in OWN_NETWORK or pkt.src is None:
            return
        ends = sorted(end for end in (layer.src, layer.dst) if end)
        value = f"{layer.kind} between {' and '.join(ends)}" if ends else layer.kind
        self.emit.fact(pkt.src, TUNNELLED, value, pkt.frame, pkt.ts)
        if not is_group(pkt):
            self.emit.fact(pkt.dst, TUNNELLED, value, pkt.frame, pkt.ts)
