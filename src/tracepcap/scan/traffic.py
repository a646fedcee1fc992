"""Traffic per device (issue 28): packets and bytes each way, first and last seen, how many
peers, and the ports it served and used, as the `entity` row stores them. Summarised from
what Scan already holds (the conversations in `CaptureContext`'s `Traffic`, the measured
`served` and `initiated` facts), never from a second pass over the packets.

Packets and bytes are counted at the IP layer (bytes: the IP payload, i.e. the transport
header and data without the IP header, as conversations count them); a tunnelled packet
counts for its carrier's addresses and for the inner ones."""

from __future__ import annotations

from ..extract.kinds import INITIATED
from .context import HostFacts

#: ports listed per device and direction, lowest first: a scanner opens thousands
MAX_PORTS = 256


def port_order(port: str) -> tuple[str, int, str]:
    """"tcp/80" before "tcp/443" before "udp/53"; a malformed value last within its protocol."""
    proto, _, number = port.partition("/")
    return (proto, int(number), "") if number.isascii() and number.isdigit() else (proto, 1 << 17, number)


#: the columns `summary` gives, in its order
COLUMNS = ("packets_sent", "packets_received", "bytes_sent", "bytes_received", "first_seen", "last_seen", "peers",
           "ports_served", "ports_used")


def summary(host: HostFacts) -> dict:
    """The `entity` row's traffic columns for one device or host."""
    t = host.traffic
    served = sorted(host.served(), key=port_order)
    used = sorted({f.value for f in host.facts(INITIATED)}, key=port_order)
    return {"packets_sent": t.packets_sent, "packets_received": t.packets_received,
            "bytes_sent": t.bytes_sent, "bytes_received": t.bytes_received,
            "first_seen": t.first_time, "last_seen": t.last_time,
            "peers": len(t.peers.difference(host.addresses)),  # its own addresses are no peers
            "ports_served": served[:MAX_PORTS], "ports_used": used[:MAX_PORTS]}
