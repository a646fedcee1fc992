"""Where each host sits relative to the capture point, and why: the label is
`HostFacts.locality`'s, the reason a sentence a person reads beside it (host table, host page,
`--json`). Scan stores both on the host row; Present only reads them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from ..extract.kinds import MAC, TUNNELLED
from ..store.models import Locality
from .context import CaptureContext, HostFacts, is_local
from .ownership import parsed_address


@dataclass(frozen=True, slots=True)
class HostLocality:
    ip: str
    label: Locality
    reason: str


def localities(context: CaptureContext) -> Iterator[HostLocality]:
    """Every entity's locality (`ip`: its key), in inventory order."""
    owned: dict[str, list[tuple[str, str]]] = defaultdict(list)  # ip -> [(a MAC it owns, the evidence)]
    by_mac: dict[str, list[tuple[str, str]]] = defaultdict(list)  # MAC -> [(an address owning it, the evidence)]
    for mac, owners in sorted(context.ownership.items()):
        for o in owners:
            owned[o.ip].append((mac, o.reason))
            by_mac[mac].append((o.ip, o.reason))
    for device in context.entities:
        host = context.entity(device)
        label = Locality(host.locality)
        if label == Locality.TUNNEL:
            reason = _tunnel_reason(host)
        elif device.macs or device.ip is None:
            reason = _device_reason(device, owned, by_mac, context)
        else:
            reason = _reason(host, label, owned, context)
        yield HostLocality(device.key, label, reason)


def _device_reason(device, owned: dict[str, list[tuple[str, str]]],
                   by_mac: dict[str, list[tuple[str, str]]], context: CaptureContext) -> str:
    """What makes the device on-link: each address's owned MACs with the evidence (the
    randomised-MAC note is the `randomised` flag's, shown beside it)."""
    one = len(device.addresses) == 1
    parts = [f"{'' if one else ip + ' '}owns {mac} ({evidence})"
             for ip in device.addresses for mac, evidence in owned.get(ip, ())]
    if not parts:  # an address that owns its MAC but sent no IP packet (it only answered ARP)
        parts = [f"a device seen only by its MAC {mac}, which {ip} owns ({evidence}) though it sent "
                 "no IP packet" for mac in device.macs for ip, evidence in by_mac.get(mac, ())
                 if ip not in device.addresses]
    if not parts:  # a router's MAC none of whose addresses is its own
        parts = [f"a router's MAC {mac} seen without an address of its own: it carried "
                 f"{len(sent)} address{'es' if len(sent) > 1 else ''} from beyond the site "
                 f"({', '.join(ip for ip, _ in sent[:3])}{', ...' if len(sent) > 3 else ''}), none of them its own"
                 for mac in device.macs if mac in context.router_macs and (sent := context.ips_by_mac.get(mac))]
    if not parts:  # a claimant: it sent as addresses that own other MACs
        parts = [f"a device seen only by its MAC {mac}, which sent as {', '.join(ip for ip, _ in sent[:3])}"
                 f"{', ...' if len(sent) > 3 else ''} without owning {'it' if len(sent) == 1 else 'them'}: "
                 "another device's address claimed from this MAC (or forwarded through it)"
                 for mac in device.macs if (sent := context.ips_by_mac.get(mac))]
    if not parts:
        parts = [f"a device seen only by its MAC {', '.join(device.macs)}: what it said at the link layer "
                 "landed on no address"]
    return "; ".join(parts)


def _reason(host: HostFacts, label: Locality, owned: dict[str, list[tuple[str, str]]],
            context: CaptureContext) -> str:
    if label == Locality.ON_LINK:
        if host.ip in owned:
            return "; ".join(f"owns {mac} ({evidence})" for mac, evidence in owned[host.ip])
        if parsed_address(host.ip).is_loopback:
            return "a loopback address: the capturing machine itself, seen without a MAC address"
        return "a site-local address zero hops away, seen without a MAC address"
    kind = ("a loopback address (the capturing machine itself)" if parsed_address(host.ip).is_loopback
            else "a site-local address" if host.ip is not None and is_local(host.ip) else "a public address")
    hops = host.hops
    away = ("" if hops is None else " zero hops away" if hops == 0
            else f" {hops} hop{'' if hops == 1 else 's'} away")
    macs = sorted({f.value for f in host.facts(MAC)})
    if not macs:
        return f"{kind}{away}, seen without a MAC address"
    return f"{kind}{away}, seen through {_whose(macs, context)}"


def _whose(macs: list[str], context: CaptureContext) -> str:
    parts = []
    for mac in macs:
        owners = context.mac_owners.get(mac, ())
        if mac in context.router_macs:
            parts.append(f"{mac}, a router's MAC")
        elif owners:
            parts.append(f"{mac}, which {' and '.join(owners)} own{'s' if len(owners) == 1 else ''}")
        else:
            parts.append(mac)
    return "; ".join(parts)


def _tunnel_reason(host: HostFacts) -> str:
    """Which tunnel it was seen in: its addresses are the tunnel's network, not the capture's."""
    if host.ip is None:
        return "seen only inside a tunnel"
    tunnels = sorted(host.facts(TUNNELLED), key=lambda f: (f.first_frame, f.value))
    named = "; ".join(f"{f.value} (first in frame {f.first_frame})" for f in tunnels[:3])
    more = f" and {len(tunnels) - 3} more" if len(tunnels) > 3 else ""
    kind = "a loopback" if parsed_address(host.ip).is_loopback else \
        "a site-local" if is_local(host.ip) else "a public-range"
    return (f"seen only inside the tunnel {named}{more}: an address of the tunnel's own network (a mobile "
            f"core's user plane, an overlay), not of the capture's segment nor the Internet, though "
            f"it is {kind} address")
