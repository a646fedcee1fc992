"""A network's baseline: everything its earlier captures showed, in capture time order, so a
change is "new to this network" only when nothing before it showed it - a device, an
address <-> MAC binding, a service served, an application used, a tunnel, a login, a finding.
Behaviour seen before and absent a while is "returned" (low). A device's presence keeps a
pattern (in how many of the captures so far it was): a usual device missing is churn, a
device that comes and goes is not news either way.

The events of one capture are then aggregated - the same change on many devices is one event
listing them ("3 devices serve tcp/445 ...") - and ranked by what an analyst acts on: a new MAC
claiming a known address, a gateway change, a new cleartext login, a new tunnel or
peer-to-peer application, a device of a class or vendor the network never had are high or
medium; churn of known devices is low (folded away on the page and in the CLI)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ...store.models import Capture, NetworkCapture, NetworkChange
from .changes import (
    GATEWAY_WORDS,
    HIGH_APPLICATIONS,
    PEAK_FACTOR,
    PEAK_FLOOR,
    ChangeKind,
    Snapshot,
    _addresses,
    _name,
    _signature,
    _size,
    answer_changes,
    snapshot,
)

RETURNED = "returned"
SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}
#: a device seen in at least this share of the captures so far is "usual": its absence is churn
USUAL_SHARE = 0.5
#: tunnel protocols and applications whose first use on a network is high (not only medium)
HIGH_TUNNELS = ("wireguard", "openvpn", "ike", "esp", "l2tp", "gre", "vxlan", "teredo", "6in4", "ipip")
HIGH_APPLICATION_WORDS = ("bittorrent", "tor", "telnet", "ftp", "tftp", "rlogin", "rsh", "rexec", "irc", "wireguard",
                          "openvpn", "ipsec", "ike", "vnc")

VPN_TUNNELS = frozenset(("wireguard", "openvpn", "ike", "esp", "l2tp"))
VPN_APPLICATION_WORDS = ("wireguard", "openvpn", "ike", "ipsec", "l2tp", "pptp")


@dataclass
class History:
    """What the captures before one showed, as far as changes are concerned."""

    captures: int = 0
    presence: dict[str, int] = field(default_factory=dict)  # device -> in how many captures
    last_seen: dict[str, int] = field(default_factory=dict)  # device -> index of the last capture it was in
    traffic: dict[str, int] = field(default_factory=dict)  # device -> bytes in the last capture it was in
    bindings: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # address -> MACs ever
    served: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # device -> services ever
    services: set[str] = field(default_factory=set)  # every service any device served
    applications: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    apps: set[str] = field(default_factory=set)
    tunnels: set[tuple[str, str]] = field(default_factory=set)
    tunnel_kinds: set[str] = field(default_factory=set)
    logins: set[tuple[str, str]] = field(default_factory=set)
    login_values: set[str] = field(default_factory=set)
    findings: set[tuple] = field(default_factory=set)
    finding_kinds: set[str] = field(default_factory=set)
    vendors: set[str] = field(default_factory=set)
    classes: set[str] = field(default_factory=set)
    gateways: set[tuple] = field(default_factory=set)  # (gateway MAC, upstream address) pairs seen
    previous: Snapshot | None = None

    def usual(self, device: str) -> bool:
        return self.presence.get(device, 0) >= max(1, USUAL_SHARE * self.captures)

    def add(self, snap: Snapshot) -> None:
        """`snap` joins the history (the next capture is compared with it and all before)."""
        for device in snap.devices:
            self.presence[device] = self.presence.get(device, 0) + 1
            self.last_seen[device] = self.captures
            self.traffic[device] = snap.traffic.get(device, 0)
        for ip, macs in snap.bindings.items():
            self.bindings[ip] |= set(macs)
        for entity, services in snap.served.items():
            self.served[entity] |= set(services)
            self.services |= set(services)
        for entity, apps in snap.applications.items():
            self.applications[entity] |= set(apps)
            self.apps |= set(apps)
        self.tunnels |= set(snap.tunnels)
        self.tunnel_kinds |= {_tunnel_kind(v) for _, v in snap.tunnels}
        self.logins |= set(snap.logins)
        self.login_values |= {v for _, v in snap.logins}
        self.findings |= set(snap.findings)
        self.finding_kinds |= {kind for kind, _ in snap.findings}
        self.vendors |= set(_vendors(snap).values())
        self.classes |= set(_classes(snap).values())
        self.gateways.add(_gateway(snap))
        self.captures += 1
        self.previous = snap


def _tunnel_kind(value: str) -> str:
    return value.split()[0].lower() if value else ""


def _gateway(snap: Snapshot) -> tuple:
    return (snap.gateway_mac, snap.upstream[0] if snap.upstream else None)


def _vendors(snap: Snapshot) -> dict[str, str]:
    """device -> its MAC's registry vendor."""
    return snap.vendors


def _classes(snap: Snapshot) -> dict[str, str]:
    """device -> its host-identity answer (the stored one), known answers only."""
    return {entity: label for (entity, question), label in snap.effective.items()
            if question == "host-identity" and entity in snap.devices}


def changes(history: History, after: Snapshot) -> list[dict]:
    """The events of `after` against everything in `history` (the captures before it), aggregated."""
    before = history.previous
    raw: list[dict] = []
    named = _addresses(after)

    def add(kind: str, severity: str, entity: str | None, group: str, text: str, frames: list, detail: dict,
            label: str | None = None) -> None:
        raw.append({"kind": kind, "severity": severity, "entity_key": entity, "group": group, "text": text,
                    "label": label or text, "frames": [f for f in frames if f], "detail": detail})

    if before is None:
        return []
    vendors, classes = _vendors(after), _classes(after)
    # devices: new to the network, back after an absence, usual ones missing
    for entity in sorted(after.devices):
        name = _name(entity, named)
        frame = [after.first_frame.get(entity)]
        if entity not in history.presence:
            novel = []
            if vendors.get(entity) and vendors[entity] not in history.vendors:
                novel.append(f"vendor {vendors[entity]}")
            if classes.get(entity) and classes[entity] not in history.classes:
                novel.append(f"class {classes[entity]}")
            if novel:
                add(ChangeKind.APPEARED, "medium", entity, "new-kind", name, frame,
                    {"locality": after.devices[entity], "never_seen": novel, "addresses": named.get(entity, [])},
                    label=f"{name} ({', '.join(novel)} never seen on this network)")
            else:
                add(ChangeKind.APPEARED, "low", entity, "new", name, frame,
                    {"locality": after.devices[entity], "addresses": named.get(entity, [])})
        elif entity not in before.devices and not history.usual(entity):
            pass  # a device that comes and goes: its coming back is its pattern, not news
        elif entity not in before.devices:
            add(RETURNED, "low", entity, "device", name, frame,
                {"of": "device", "last_seen": history.last_seen.get(entity), "addresses": named.get(entity, [])})
    named_before = _addresses(before)
    for entity in sorted(set(before.devices) - set(after.devices)):
        if history.usual(entity):
            add(ChangeKind.DISAPPEARED, "low", entity, "usual", _name(entity, named_before), [],
                {"seen_in": history.presence.get(entity), "of": history.captures,
                 "addresses": named_before.get(entity, [])})
    # a new MAC claiming a known address
    for ip, macs in sorted(after.bindings.items()):
        known = history.bindings.get(ip)
        if not known:
            continue
        new = sorted(set(macs) - known)
        if new:
            still = sorted(set(macs) & known)
            text = (f"{ip} is now also claimed by {', '.join(new)} besides {', '.join(still)} (ARP/ND)"
                    if still else f"{ip} moved from {', '.join(sorted(known))} to {', '.join(new)}")
            add(ChangeKind.ADDRESS_MOVED, "high", ip, ip, text, [macs[m] for m in new],
                {"was": sorted(known), "now": sorted(macs), "new": new, "device": after.holder.get(ip),
                 "device_before": before.holder.get(ip)})
    # the gateway: against the previous capture; back to one seen before is still worth a look
    gw = []
    if before.gateway_mac and after.gateway_mac and before.gateway_mac != after.gateway_mac:
        gw.append(f"the MAC carrying off-link traffic moved from {before.gateway_mac} to {after.gateway_mac}")
    if before.upstream and after.upstream and before.upstream[0] != after.upstream[0]:
        gw.append(f"clients' traffic leaves through {after.upstream[0]} ({after.upstream[1]} clients) instead of "
                  f"{before.upstream[0]} ({before.upstream[1]} clients)")
    if before.gateway_entities and after.gateway_entities and before.gateway_entities != after.gateway_entities:
        gw.append(f"the gateway answer moved from {', '.join(sorted(before.gateway_entities))} to "
                  f"{', '.join(sorted(after.gateway_entities))}")
    if gw:
        seen = _gateway(after) in history.gateways
        text = "gateway changed: " + "; ".join(gw) + (" (back to one this network had before)" if seen else "")
        add(ChangeKind.GATEWAY_CHANGED, "medium" if seen else "high",
            after.upstream[0] if after.upstream else after.gateway_mac, "gateway", text,
            [after.upstream[2] if after.upstream else None, after.gateway_mac_frame],
            {"mac": [before.gateway_mac, after.gateway_mac],
             "upstream": [before.upstream and before.upstream[0], after.upstream and after.upstream[0]],
             "entities": [sorted(before.gateway_entities), sorted(after.gateway_entities)], "returned": seen})
    # services served
    for entity, services in sorted(after.served.items()):
        for service in sorted(set(services) - history.served.get(entity, set())):
            frame = [services[service]]
            if entity not in after.devices:  # a remote server: the clients' change says more (low)
                add(ChangeKind.NEW_SERVICE, "low", entity, f"{service} (remote)", entity, frame,
                    {"new": [service], "service": service, "remote": True})
                continue
            if service not in history.services:
                add(ChangeKind.NEW_SERVICE, "medium", entity, service, _name(entity, named), frame,
                    {"new": [service], "service": service})
            elif entity in history.presence:  # a known device serving what others here serve
                add(ChangeKind.NEW_SERVICE, "low", entity, service, _name(entity, named), frame,
                    {"new": [service], "service": service, "known_on_network": True})
    for entity in sorted(set(after.served) & set(after.devices)):  # served before, not last time: returned
        back = sorted((set(after.served[entity]) & history.served.get(entity, set()))
                      - set(before.served.get(entity, {})))
        if back and entity in before.devices:
            add(RETURNED, "low", entity, "service " + ",".join(back), _name(entity, named),
                [after.served[entity][s] for s in back], {"of": "service", "what": back})
    # applications used (a VPN the device is a tunnel endpoint of here is the tunnel's event)
    vpn_ends = {entity for entity, value in after.tunnels if _tunnel_kind(value) in VPN_TUNNELS}
    for entity, apps in sorted(after.applications.items()):
        if entity not in after.devices:
            continue
        for app in sorted(set(apps) - history.applications.get(entity, set())):
            if entity in vpn_ends and any(w in app.lower() for w in VPN_APPLICATION_WORDS):
                continue
            port, frame = apps[app]
            risky = app in HIGH_APPLICATIONS or any(w in app.lower() for w in HIGH_APPLICATION_WORDS)
            if app not in history.apps:
                add(ChangeKind.NEW_APPLICATION, "high" if risky else "medium", entity, app, _name(entity, named),
                    [frame], {"new": [app], "ports": [port], "application": app},
                    label=f"{_name(entity, named)} uses {app} ({port})")
            elif entity in history.presence:
                add(ChangeKind.NEW_APPLICATION, "medium" if risky else "low", entity, app, _name(entity, named),
                    [frame], {"new": [app], "ports": [port], "application": app, "known_on_network": True},
                    label=f"{_name(entity, named)} uses {app} ({port})")
        back = sorted((set(apps) & history.applications.get(entity, set()))
                      - set(before.applications.get(entity, {})))
        if back and entity in before.devices:
            add(RETURNED, "low", entity, "application " + ",".join(back), _name(entity, named),
                [apps[a][1] for a in back], {"of": "application", "what": back})
    # tunnels and cleartext logins
    for (entity, value), frame in sorted(after.tunnels.items()):
        if entity not in after.devices:
            continue  # the far end of a device's tunnel
        if (entity, value) in history.tunnels:
            if (entity, value) not in before.tunnels:
                add(RETURNED, "low", entity, "tunnel", _name(entity, named), [frame], {"of": "tunnel", "what": value})
            continue
        novel = _tunnel_kind(value) not in history.tunnel_kinds
        add(ChangeKind.NEW_TUNNEL, ("high" if _tunnel_kind(value) in HIGH_TUNNELS else "medium") if novel else "low",
            entity, value, _name(entity, named), [frame], {"tunnel": value},
            label=f"{_name(entity, named)} is a tunnel endpoint: {value}")
    for (entity, value), frame in sorted(after.logins.items()):
        if (entity, value) in history.logins or value in history.login_values:
            if (entity, value) in history.logins and (entity, value) not in before.logins:
                add(RETURNED, "low", entity, "login", _name(entity, named), [frame], {"of": "login", "what": value})
            elif (entity, value) not in history.logins:
                add(ChangeKind.NEW_CLEARTEXT_LOGIN, "medium", entity, value, _name(entity, named), [frame],
                    {"login": value, "known_on_network": True},
                    label=f"cleartext login from {_name(entity, named)}: {value}")
            continue
        add(ChangeKind.NEW_CLEARTEXT_LOGIN, "high", entity, value, _name(entity, named), [frame], {"login": value},
            label=f"cleartext login from {_name(entity, named)}: {value}")
    # findings
    for (kind, entities), (severity, summary, frames) in sorted(after.findings.items()):
        subject = entities[0] if entities else None
        if (kind, entities) in history.findings:
            if (kind, entities) not in before.findings:
                add(RETURNED, "low", subject, "finding " + kind, summary, frames,
                    {"of": "finding", "what": kind, "entities": list(entities)})
            continue
        level = severity if severity in SEVERITY_RANK else "medium"
        if kind in history.finding_kinds and level == "high":
            level = "medium"  # the kind is known here, on other devices
        add(ChangeKind.NEW_FINDING, level, subject, f"{kind}|{','.join(entities)}", f"new finding {kind}: {summary}",
            frames, {"finding": kind, "entities": list(entities)})
    # traffic peaks: against the device's own last capture
    for entity, moved in sorted(after.traffic.items()):
        if entity not in history.presence or entity not in after.largest:
            continue
        was = history.traffic.get(entity, 0)
        if moved < PEAK_FLOOR or moved < PEAK_FACTOR * max(was, 1):
            continue
        total, peer, sent, frame = after.largest[entity]
        text = (f"{_name(entity, named)} moved {_size(moved)} (was {_size(was)} the last capture it was in; a peak "
                f"is ≥{PEAK_FACTOR}× that and ≥{_size(PEAK_FLOOR)}): the largest, {_size(total)} with {peer} "
                f"({_size(sent)} sent by it)")
        add(ChangeKind.TRAFFIC_PEAK, "high", entity, f"peak {entity}", text, [frame],
            {"bytes": moved, "was": was, "peer": peer, "peer_bytes": total, "sent": sent,
             "factor": PEAK_FACTOR, "floor": PEAK_FLOOR})
    out = aggregate(raw, f"{before.capture.id}>{after.capture.id}")
    out.extend(answer_changes(before, after))
    return out


GROUP_TEXT = {
    ChangeKind.APPEARED: lambda g, n: (f"{n} devices new to this network appeared" if g == "new" else
                                              f"{n} devices of a kind never seen on this network appeared"),
    ChangeKind.DISAPPEARED: lambda g, n: f"{n} usual devices are not in this capture",
    RETURNED: lambda g, n: f"{n} came back after an absence ({g})",
    ChangeKind.NEW_SERVICE: lambda g, n: f"{n} {'remote hosts' if g.endswith('(remote)') else 'devices'} serve {g}",
    ChangeKind.NEW_APPLICATION: lambda g, n: f"{n} devices use {g}",
}
ONE_TEXT = {
    ChangeKind.APPEARED: lambda e: (f"{e['text']} appeared, new to this network ({e['detail'].get('locality') or 'locality unknown'})"
                                    if e["group"] == "new" else f"{e['label']} appeared"),
    ChangeKind.DISAPPEARED: lambda e: (f"{e['text']} is not in this capture (usual: in {e['detail']['seen_in']} of "
                                       f"{e['detail']['of']} earlier captures)"),
    RETURNED: lambda e: f"{e['text']} came back after an absence ({e['group']})",
    ChangeKind.NEW_SERVICE: lambda e: (f"remote host {e['text']} serves {e['detail']['service']}, first seen from here"
                                       if e["detail"].get("remote") else
                                       f"{e['text']} serves {e['group']}, new to this network" if e["severity"] != "low"
                                       else f"{e['text']} serves {e['group']} (known on this network, new for it)"),
}
LISTED = 12  # devices named in an aggregated event's summary (all are in its detail)


def aggregate(raw: list[dict], pair: str) -> list[dict]:
    """One event per kind, severity and group (the same change on many devices), listing them."""
    groups: dict[tuple, list[dict]] = {}
    for e in raw:
        groups.setdefault((e["kind"], e["severity"], e["group"]), []).append(e)
    out = []
    for (kind, severity, group), events in groups.items():
        first = events[0]
        if len(events) == 1:
            summary = ONE_TEXT[kind](first) if kind in ONE_TEXT else first["label"]
            detail = dict(first["detail"], devices=[first["entity_key"]] if first["entity_key"] else [])
            frames = first["frames"]
        else:
            names = [e["text"] for e in events]
            head = GROUP_TEXT[kind](group, len(events)) if kind in GROUP_TEXT else f"{len(events)} × {group}"
            summary = f"{head}: {', '.join(names[:LISTED])}" + (f" and {len(names) - LISTED} more"
                                                                 if len(names) > LISTED else "")
            detail = {"devices": [e["entity_key"] for e in events], "items": [e["detail"] for e in events],
                      "count": len(events)}
            frames = [f for e in events for f in e["frames"]]
        # an aggregated event names its devices in `detail.devices`, no one of them as its subject
        subject = first["entity_key"] if len(events) == 1 else None
        out.append({"kind": kind, "severity": severity, "entity_key": subject, "summary": summary,
                    "frames": sorted(set(frames))[:50], "detail": detail,
                    "signature": _signature(pair, kind, severity, group,
                                            ",".join(sorted(str(e["entity_key"]) for e in events)))})
    out.sort(key=lambda e: (SEVERITY_RANK.get(e["severity"], 3), e["kind"], e["entity_key"] or ""))
    return out


#: network -> (the captures a history holds, by id and analysis time; that history): adding a
#: capture to a network reads the one capture, not all before it, in a process that computed
#: the history before. Taken out while in use, put back when complete, so a failure leaves none.
_HISTORY: dict[str, tuple[tuple, History]] = {}


def _held(captures: list[Capture]) -> tuple:
    return tuple((c.id, str(c.analyzed_at)) for c in captures)


def _history(session: Session, network_id: str, captures: list[Capture]) -> History:
    """The history of `captures` (in order): the cached one when it holds exactly them (its
    last snapshot read again, since human answers there may have moved), else built."""
    cached = _HISTORY.pop(network_id, None)
    if cached is not None and cached[0] == _held(captures):
        history = cached[1]
        history.previous = snapshot(session, captures[-1])
        return history
    history = History()
    for capture in captures:
        history.add(snapshot(session, capture))
    return history


def recompute(session: Session, network_id: str, captures: list[Capture], stale: set[str] = frozenset(),
              answers_of: dict[str, set[str] | None] | None = None) -> int:
    """Keep one set of changes per capture after the first, each against the whole history
    before it. From the first capture whose changes are missing or involve a capture in
    `stale` (re-analysed), every later capture's changes are recomputed (its baseline moved);
    pairs no longer consecutive go. `answers_of`: capture -> the entities (None: all) whose
    answers a human action or the carry-forward changed there; the answer-changed events
    around it are recomputed for those entities only. Returns how many captures were computed."""
    pairs = list(zip(captures, captures[1:], strict=False))
    {(a.id, b.id) for a, b in pairs}
    members = {m.capture_id: m for m in session.scalars(select(NetworkCapture).where(
        NetworkCapture.network_id == network_id))}
    stored = {(prev, cur) for prev, cur in session.execute(select(
        NetworkChange.previous_id, NetworkChange.capture_id).where(NetworkChange.network_id == network_id).distinct())}
    stored |= {(m.changes_from, cid) for cid, m in members.items() if m.changes_from}
    start = next((i for i, (a, b) in enumerate(pairs)
                  if (a.id, b.id) not in stored or a.id in stale or b.id in stale), len(pairs))
    keep = {(a.id, b.id) for a, b in pairs[:start]}
    for prev, cur in list(stored):
        if (prev, cur) not in keep:
            session.execute(delete(NetworkChange).where(NetworkChange.network_id == network_id,
                                                        NetworkChange.previous_id == prev,
                                                        NetworkChange.capture_id == cur))
            stored.discard((prev, cur))
            if cur in members and members[cur].changes_from == prev:
                members[cur].changes_from = None
    computed = 0
    if start < len(pairs):
        history = _history(session, network_id, captures[:start + 1])
        for a, b in pairs[start:]:
            snap = snapshot(session, b)
            events = changes(history, snap)
            session.add_all(NetworkChange(network_id=network_id, capture_id=b.id, previous_id=a.id, **e)
                            for e in events)
            members[b.id].changes_from = a.id
            history.add(snap)
            computed += 1
        _HISTORY[network_id] = (_held(captures), history)
    for a, b in pairs[:start]:
        if not answers_of or (a.id not in answers_of and b.id not in answers_of):
            continue
        scopes = [answers_of[c] for c in (a.id, b.id) if c in answers_of]
        entities = None if any(e is None for e in scopes) else set().union(*scopes)
        gone = delete(NetworkChange).where(NetworkChange.network_id == network_id, NetworkChange.previous_id == a.id,
                                           NetworkChange.capture_id == b.id,
                                           NetworkChange.kind == ChangeKind.ANSWER_CHANGED)
        if entities is not None:
            gone = gone.where(NetworkChange.entity_key.in_(sorted(entities)))
        session.execute(gone)
        events = answer_changes(snapshot(session, a, answers_only=True, entities=entities),
                                snapshot(session, b, answers_only=True, entities=entities))
        session.add_all(NetworkChange(network_id=network_id, capture_id=b.id, previous_id=a.id, **e) for e in events)
    session.flush()
    return computed


__all__ = ["GATEWAY_WORDS", "History", "RETURNED", "aggregate", "changes", "recompute"]
