"""`hostname-claim` facts (source dhcpv6: the client FQDN option 39), `dhcp-vendor-class`
facts (option 16: its vendor-class-data items joined by ",", e.g. "MSFT 5.0") and
`dhcp-vendor-enterprise` facts (option 16's IANA enterprise number, e.g. "311 microsoft")
of DHCPv6 clients, on the address the client sent from (its link-local address), or for a
relayed message the relay's peer-address.

The same facts join the addresses a server's REPLY assigns the client in IA_NA (matched
by the client's DUID, which the reply echoes): the client then uses them, not its
link-local address. Clients and leases wait in tables of at most `limits.max_pending`
DUIDs; witness frames are the frames the client sent the claim in.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..decoders import dhcpv6
from ..extractor import Extractor
from ..facts import FactKind
from ..kinds import DHCP_VENDOR_CLASS, DHCP_VENDOR_ENTERPRISE, HOSTNAME_CLAIM

NAME, VERSION = "dhcpv6", "2"
CLIENT_PORT, SERVER_PORT = 546, 547
# IANA private enterprise numbers seen in option 16
ENTERPRISES = {9: "cisco", 63: "apple", 311: "microsoft", 2011: "huawei", 3561: "broadband-forum",
               4491: "cablelabs", 11129: "google"}


def claims(msg: dhcpv6.Dhcpv6) -> Iterator[tuple[FactKind, str, str | None]]:
    """(kind, value, source) of what a client's message says about it, in option order
    (a malformed option raises after the claims before it were given)."""
    if (data := msg.option(dhcpv6.OPT_CLIENT_FQDN)) is not None and (name := dhcpv6.client_fqdn(data).rstrip(".")):
        yield HOSTNAME_CLAIM, name, "dhcpv6"
    for code, data in msg.options:
        if code == dhcpv6.OPT_VENDOR_CLASS:
            enterprise, items = dhcpv6.vendor_class(data)
            if value := ",".join(item for item in items if item):
                yield DHCP_VENDOR_CLASS, value, None
            yield DHCP_VENDOR_ENTERPRISE, f"{enterprise} {ENTERPRISES.get(enterprise, 'unregistered-here')}", None


class Dhcpv6(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, DHCP_VENDOR_CLASS, DHCP_VENDOR_ENTERPRISE)
    UDP_PORTS = frozenset((CLIENT_PORT, SERVER_PORT))

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        # DUID -> claim -> [first frame, first time, last frame, last time, count]
        self._claims: dict[bytes, dict[tuple, list]] = {}
        self._leases: dict[bytes, set[str]] = {}  # DUID -> addresses a REPLY assigned

    def observe(self, pkt, flow) -> None:
        msg, client = dhcpv6.decode(pkt.payload), pkt.src
        while msg.msg_type == dhcpv6.RELAY_FORW:  # RFC 8415 19.1: the client's message inside
            inner = msg.option(dhcpv6.OPT_RELAY_MSG)
            if inner is None:
                return
            msg, client = dhcpv6.decode(inner), msg.peer
        while msg.msg_type == dhcpv6.RELAY_REPL:
            inner = msg.option(dhcpv6.OPT_RELAY_MSG)
            if inner is None:
                return
            msg = dhcpv6.decode(inner)
        duid = msg.option(dhcpv6.OPT_CLIENTID)
        if msg.msg_type == dhcpv6.REPLY:
            if duid is not None:
                for code, data in msg.options:
                    if code == dhcpv6.OPT_IA_NA and (found := dhcpv6.ia_na_addresses(data)):
                        self._remember(self._leases, duid, set()).update(found)
            return
        if msg.msg_type not in dhcpv6.CLIENT_MESSAGES:
            return
        seen = self._remember(self._claims, duid, {}) if duid is not None else {}
        for claim in claims(msg):
            kind, value, source = claim
            self.emit.fact(client, kind, value, pkt.frame, pkt.ts, source=source)
            if claim in seen:
                seen[claim][2:] = [pkt.frame, pkt.ts, seen[claim][4] + 1]
            else:
                seen[claim] = [pkt.frame, pkt.ts, pkt.frame, pkt.ts, 1]

    def _remember(self, table: dict, key, empty):
        """The entry for `key`, created in a bounded table; past the limit the oldest goes."""
        if key not in table:
            if len(table) >= self.limits.max_pending:
                del table[next(iter(table))]
                self.evicted += 1
            table[key] = empty
        return table[key]

    def finish(self) -> None:
        for duid, addresses in self._leases.items():
            for (kind, value, source), (f0, t0, f1, t1, count) in self._claims.get(duid, {}).items():
                for address in sorted(addresses):
                    self.emit.fact(address, kind, value, f0, t0, source=source)
                    for _ in range(count - 1):  # each retransmission counts, as if emitted live
                        self.emit.fact(address, kind, value, f1, t1, source=source)
        self._claims.clear()
        self._leases.clear()
