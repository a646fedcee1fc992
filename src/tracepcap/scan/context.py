"""What a signal reads: one host's facts, and the capture-wide context some signals need
(which addresses share a MAC, who talked to whom). Built from the store, never the capture."""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from itertools import chain
from sys import intern
from types import MappingProxyType
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..extract.extractors.link_identity import vendor_of
from ..extract.facts import FactKind
from ..extract.kinds import (
    DNS_ANSWER_MAC,
    DST_MAC,
    GATEWAY_OPTION,
    GRATUITOUS_ANNOUNCEMENT,
    HOSTNAME_CLAIM,
    IP_MAC_BINDING,
    MAC,
    MAC_TTL,
    OUI_VENDOR,
    SERVED,
    TTL,
    TUNNELLED,
)
from ..store.models import Conversation, Host, ObservationRow
from .entities import CLAIM_MARK, MAC_PREFIX, Entity, claim_holder, claim_of, mac_key
from .entities import build as build_entities
from .names import name_key
from .ownership import Ownership, Sender, owner, parsed_address, subnet_of


class Fact(NamedTuple):  # a tuple, not a frozen dataclass: a many-host capture loads hundreds of thousands
    kind: str
    value: str
    source: str
    grade: str
    first_frame: int
    last_frame: int
    count: int


@dataclass(slots=True)
class Traffic:
    """A host's conversations, summarised. Initiators count only where measured (TCP SYN);
    UDP exchanges count the first sender as asking and the replier as answering."""

    peers_out: set[str] = field(default_factory=set)  # peers this host opened conversations to
    peers_in: set[str] = field(default_factory=set)  # peers that opened conversations to it
    # "udp/53" -> peers whose conversation to that port it answered (first sender asked)
    clients: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    admin_targets: set[str] = field(default_factory=set)  # peers it opened SSH/RDP/WinRM to
    conversations: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    packets_sent: int = 0
    packets_received: int = 0
    first_time: float | None = None  # its conversations' first and last packet (capture time)
    last_time: float | None = None
    peers: set[str] = field(default_factory=set)  # every address it exchanged a packet with


#: the kinds `HostFacts.owned_macs` reads (`owned_vendors` reads OUI_VENDOR besides), and those
#: `HostFacts.locality` reads: what a signal calling them consults (signals/__init__.py, CONSULTS)
OWNED_MAC_KINDS = (MAC, IP_MAC_BINDING, DST_MAC)
LOCALITY_KINDS = (MAC, TTL, TUNNELLED)
BINDING_SOURCES = {"arp": "ARP", "ndp": "ND", "dhcp": "a DHCP lease"}  # fact source -> what bound, for reasons
STREAM_ROWS = 5000  # rows fetched at a time: the whole result is never buffered
NO_PEERS: frozenset[str] = frozenset()  # shared by every host without peers of a kind; read-only
NO_CLIENTS: Mapping[str, set[str]] = MappingProxyType({})
INITIAL_TTLS = (32, 64, 128, 255)
ADMIN_PORTS = frozenset((22, 3389, 5985, 5986))  # SSH, RDP, WinRM


def initial_ttl(observed: int) -> int:
    """The smallest common initial TTL at or above the observed one."""
    return next((start for start in INITIAL_TTLS if observed <= start), 255)


# RFC 1918, RFC 6598 (carrier-grade NAT), RFC 3927 and RFC 4193/4291 link-local: networks a
# capture point's own site uses; and loopback (RFC 1122 3.2.1.3, RFC 4291 2.5.3): the
# capturing machine itself, never remote. (ipaddress.is_private also counts the documentation ranges.)
LOCAL_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16",
    "fc00::/7", "fe80::/10", "127.0.0.0/8", "::1/128"))


@lru_cache(maxsize=1 << 16)  # asked of the same addresses by ownership, locality and signals
def mac_of_valid(mac: str) -> bool:
    """A MAC spelled "aa:bb:cc:dd:ee:ff" (the registry vendor lookup reads no other)."""
    return len(mac) == 17 and all(c in "0123456789abcdef:" for c in mac)


@cache  # as ownership.parsed_address: emptied after each scan (forget_addresses)
def is_local(ip: str) -> bool:
    addr = parsed_address(ip)
    return any(addr in net for net in LOCAL_NETWORKS if net.version == addr.version)


def forget_addresses() -> None:
    """Empty the per-address caches Scan filled (parsed addresses, their subnets, locality):
    they hold one capture's addresses while it is scanned, not every capture's since start."""
    parsed_address.cache_clear()
    subnet_of.cache_clear()
    is_local.cache_clear()


@dataclass(frozen=True, slots=True)
class Answer:
    """Another question's machine answer for one host, as a signal that declared that question
    one of its `INPUTS` reads it (scan/signals/__init__.py). Machine only: computed in scan from
    the votes of that question, before any human action, so a human's override of the input
    does not move the votes built on it (they cite the machine answer they used)."""

    question: str
    label: str  # the answer: a leaf, a taxonomy parent, or the question's Unknown label
    confidence: int
    parent_of: tuple[str, ...] = ()  # a parent-level answer: the children it stands for
    backing: tuple[str, ...] = ()  # the signals whose votes for it carry it, by name

    def cite(self) -> str:
        """How a reason names it: "its os-family answer iOS (confidence 85)"."""
        level = f", one of {' or '.join(self.parent_of)}" if self.parent_of else ""
        return f"its {self.question} answer {self.label}{level} (confidence {self.confidence})"


class CaptureContext:
    """All hosts of one capture with their facts and traffic."""

    def __init__(self, capture_id: str, facts: dict[str, list[Fact]], traffic: dict[str, Traffic],
                 hosts: list[str]) -> None:
        self.capture_id = capture_id
        self.hosts = hosts
        self._facts = facts
        self._traffic = traffic
        self._by_kind: dict[str, dict[str, list[Fact]]] = {}
        #: question -> entity -> its machine Answer, filled by scan for questions that are
        #: declared inputs of other questions' signals, before those signals run
        self.answers: dict[str, dict[str, Answer]] = {}
        self._entity_views: dict[str, HostFacts] = {}
        self._merged_traffic: dict[str, Traffic] = {}
        self._main_ttls: dict[tuple[str | None, str | None], Fact | None] = {}
        #: HostFacts.owned_macs and owned_vendors per (address, entity key): several signals of
        #: several questions ask them of every host
        self._owned: dict[tuple[str | None, str | None], tuple[Fact, ...]] = {}
        self._owned_vendors: dict[tuple[str | None, str | None], tuple[Fact, ...]] = {}
        #: the claim holders (entities.claim_holder) an earlier scan moved facts to, as loaded:
        #: their facts are back on their addresses here, and this scan decides the claims again
        self.loaded_claims: tuple[str, ...] = ()

    @classmethod
    def load(cls, session: Session, capture_id: str) -> CaptureContext:
        facts: dict[str, list[Fact]] = defaultdict(list)
        session.flush()  # rows are read through the connection: Core rows, without the ORM's per-row loading
        rows = session.connection().execute(select(
            ObservationRow.entity, ObservationRow.kind, ObservationRow.value, ObservationRow.source,
            ObservationRow.grade, ObservationRow.first_frame, ObservationRow.last_frame,
            ObservationRow.count).where(ObservationRow.capture_id == capture_id)
            .execution_options(yield_per=STREAM_ROWS)).partitions()  # a batch at a time, not a fetch per row
        # a many-host capture repeats a few kinds, sources, grades and values (TTLs, vendors,
        # ports) hundreds of thousands of times: one string object each, not one per row
        for entity, kind, value, source, grade, first, last, count in chain.from_iterable(rows):
            facts[intern(entity)].append(Fact(intern(kind), intern(value), intern(source), intern(grade),
                                      first, last, count))
        loaded_claims = tuple(sorted(e for e in facts if CLAIM_MARK in e and claim_of(e) is not None))
        for holder in loaded_claims:  # what a claimant's MAC said as an address is the address's traffic
            if (claim := claim_of(holder)) is not None:
                facts[intern(claim[0])].extend(facts.pop(holder))
        for entity_facts in facts.values():
            entity_facts.sort(key=lambda f: (f.kind, f.value, f.source))
        # per-address tallies first, a Traffic each at the end: a host without a kind of
        # peer shares one empty set instead of holding its own (100,000 hosts, ~90 MB)
        # conversations, bytes sent, bytes received, packets sent, packets received, first time, last time
        tallies: dict[str, list] = defaultdict(lambda: [0, 0, 0, 0, 0, None, None])
        peers: dict[str, set[str]] = defaultdict(set)
        peers_out: dict[str, set[str]] = defaultdict(set)
        peers_in: dict[str, set[str]] = defaultdict(set)
        admin_targets: dict[str, set[str]] = defaultdict(set)
        clients: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        conversations = session.connection().execute(select(
            Conversation.proto, Conversation.src, Conversation.dst, Conversation.dport,
            Conversation.packets_fwd, Conversation.packets_rev, Conversation.bytes_fwd, Conversation.bytes_rev,
            Conversation.first_time, Conversation.last_time,
            Conversation.initiator).where(Conversation.capture_id == capture_id)
            .execution_options(yield_per=STREAM_ROWS)).partitions()
        for (proto, src, dst, dport, packets_fwd, packets_rev, bytes_fwd, bytes_rev, first, last,
             initiator) in chain.from_iterable(conversations):
            src, dst = intern(src), intern(dst)  # held in many peers sets: one object per address
            a, b = tallies[src], tallies[dst]
            a[0] += 1
            b[0] += 1
            a[1] += bytes_fwd
            a[2] += bytes_rev
            b[1] += bytes_rev
            b[2] += bytes_fwd
            a[3] += packets_fwd
            a[4] += packets_rev
            b[3] += packets_rev
            b[4] += packets_fwd
            for t in (a, b) if src != dst else (a,):
                if t[5] is None or first < t[5]:
                    t[5] = first
                if t[6] is None or last > t[6]:
                    t[6] = last
            if src != dst:
                peers[src].add(dst)
                peers[dst].add(src)
            if initiator is not None or (proto == "udp" and packets_rev > 0):
                peers_out[src].add(dst)
                peers_in[dst].add(src)
                if initiator is not None and proto == "tcp" and dport in ADMIN_PORTS:
                    admin_targets[src].add(dst)
            if packets_rev > 0:  # read only for ports a `served` fact says it answered on
                clients[dst][f"{proto}/{dport}"].add(src)
        traffic = {ip: Traffic(peers_out.get(ip, NO_PEERS), peers_in.get(ip, NO_PEERS),
                               clients.get(ip, NO_CLIENTS), admin_targets.get(ip, NO_PEERS), *counts,
                               peers.get(ip, NO_PEERS))
                   for ip, counts in tallies.items()}
        hosts = list(session.scalars(select(Host.ip).where(Host.capture_id == capture_id)
                                     .order_by(Host.position)))
        context = cls(capture_id, dict(facts), traffic, hosts)
        context.loaded_claims = loaded_claims
        return context

    def host(self, ip: str) -> HostFacts:
        """One address as a signal sees it (findings read addresses; signals read entities)."""
        return HostFacts(ip, self, None, self.kinds_of(ip))

    @cached_property
    def entities(self) -> list[Entity]:
        """The capture's devices and hosts in inventory order (scan/entities.py)."""
        # a router's MAC that no address owns is a device of its own, keyed by the MAC: never
        # by the busiest remote address it carried
        # and so is every other MAC that sent IP as addresses that do not own it (a claimant's,
        # a spoofer's): every MAC that sends a frame is a device
        unowned = {mac_key(mac) for mac in self.ips_by_mac
                   if mac not in self.mac_owners and not int(mac[:2], 16) & 0x01
                   and mac.strip("0:") != ""}
        return build_entities(self.hosts, self.mac_owners,
                              {e for e in self._facts if e.startswith(MAC_PREFIX)} | unowned)

    @cached_property
    def entity_of(self) -> dict[str, str]:
        """Every address and MAC key of the capture's entities -> its entity's key."""
        return {member: e.key for e in self.entities for member in e.members}

    def entity(self, device: Entity) -> HostFacts:
        """One entity as a signal sees it: the union of its addresses' and MACs' facts. Built
        once per entity: every question's signals read the same view."""
        view = self._entity_views.get(device.key)
        if view is None:
            alone = len(device.members) == 1 and device.members[0] == device.ip
            kinds = self.kinds_of(device.ip) if alone else self._merged_kinds(device)
            view = self._entity_views[device.key] = HostFacts(device.ip, self, device, kinds)
        return view

    def _merged_kinds(self, device: Entity) -> Mapping[str, list[Fact]]:
        """A device's facts by kind (kinds a-z) across its members, one per (value, source)
        (sorted so): the earliest first frame, the latest last frame, the counts summed. An
        address's facts that a claimant's MAC left on it are the claimant's (`claims`)."""
        by: dict[tuple[str, str, str], Fact] = {}
        claims = self.claims
        held: list[Sequence[Fact]] = [claims[ip][mac] for ip, mac in self.claims_held.get(device.key, ())]
        for member in device.members:
            held.append(self._claimed_away(member) if member in claims else self._facts.get(member, ()))
        for facts in held:
            for f in facts:
                key = (f.kind, f.value, f.source)
                have = by.get(key)
                by[key] = f if have is None else Fact(
                    f.kind, f.value, f.source, f.grade, min(f.first_frame, have.first_frame),
                    max(f.last_frame, have.last_frame), f.count + have.count)
        kinds: dict[str, list[Fact]] = defaultdict(list)
        for key in sorted(by):
            kinds[key[0]].append(by[key])
        return dict(kinds)

    def main_ttl(self, host: HostFacts) -> Fact | None:
        """HostFacts.main_ttl, computed once per address or entity (signals, ownership and
        locality all read it)."""
        key = (host.ip, host.device.key if host.device is not None else None)
        if key in self._main_ttls:
            return self._main_ttls[key]
        # an address a claimant sent as: its device's TTLs, without the claimant's (`claims`)
        claimed = host.device is not None and host.ip in self.claims
        facts = list(self.facts_of_kind(host.ip, TTL.name)) if host.ip and not claimed else []
        facts = facts or host.facts(TTL)
        found = self._main_ttls[key] = max(facts, key=lambda f: (f.count, -int(f.value))) if facts else None
        return found

    def merged_traffic(self, device: Entity) -> Traffic:
        found = self._merged_traffic.get(device.key)
        if found is None:
            parts = [self._traffic[a] for a in device.addresses if a in self._traffic]
            if len(parts) == 1:
                found = parts[0]
            else:
                found = Traffic()
                for t in parts:
                    found.peers_out |= t.peers_out
                    found.peers_in |= t.peers_in
                    for port, peers in t.clients.items():
                        found.clients[port] |= peers
                    found.admin_targets |= t.admin_targets
                    found.conversations += t.conversations
                    found.bytes_sent += t.bytes_sent
                    found.bytes_received += t.bytes_received
                    found.packets_sent += t.packets_sent
                    found.packets_received += t.packets_received
                    found.peers |= t.peers
                    if t.first_time is not None and (found.first_time is None or t.first_time < found.first_time):
                        found.first_time = t.first_time
                    if t.last_time is not None and (found.last_time is None or t.last_time > found.last_time):
                        found.last_time = t.last_time
            self._merged_traffic[device.key] = found
        return found

    @cached_property
    def host_set(self) -> frozenset[str]:
        """The capture's hosts as a set, built once: a per-host membership test must not
        rebuild it (that made many-host captures quadratic)."""
        return frozenset(self.hosts)

    def facts_of(self, entity: str) -> list[Fact]:
        return self._facts.get(entity, [])

    def facts_of_kind(self, entity: str, kind: str) -> list[Fact]:
        return self.kinds_of(entity).get(kind, [])

    def kinds_of(self, entity: str) -> Mapping[str, list[Fact]]:
        """One address's or MAC's facts by kind, indexed on first use so that signals asking
        for several kinds of one host do not each walk all its facts."""
        by_kind = self._by_kind.get(entity)
        if by_kind is None:
            by_kind = defaultdict(list)
            for fact in self._facts.get(entity, ()):
                by_kind[fact.kind].append(fact)
            by_kind = self._by_kind[entity] = dict(by_kind)
        return by_kind

    def traffic_of(self, ip: str) -> Traffic:
        return self._traffic.get(ip) or Traffic()

    @cached_property
    def claims(self) -> dict[str, dict[str, tuple[Fact, ...]]]:
        """Spoofing keeps two devices: an on-link device's address -> {a claimant's MAC: the
        facts that MAC left on the address}. A claimant's MAC is one the address sent from or
        was ARP/ND bound to that its device does not own and that is a device of its own (a
        spoofer's MAC, owning its own address or none), neither a router's nor one carrying
        the address's forwarded copies. Its frames, bindings, TTLs, answers and registry vendor
        are the claimant's: they join the claimant's device and never reach the victim's."""
        out: dict[str, dict[str, tuple[Fact, ...]]] = {}
        entity_of = self.entity_of
        for device in self.entities:
            if not device.macs:
                continue
            kept = {vendor_of(m) for m in device.macs}
            for ip in device.addresses:
                kinds = self.kinds_of(ip)
                paths = self.mac_hops.get(ip, {})
                claimants = sorted({f.value.lower() for kind in (MAC.name, IP_MAC_BINDING.name)
                                    for f in kinds.get(kind, ())} - set(device.macs))
                bound = {f.value.lower() for f in kinds.get(IP_MAC_BINDING.name, ())}
                version = parsed_address(ip).version
                for mac in claimants:
                    if (mac in self.router_macs or entity_of.get(mac_key(mac)) in (None, device.key)
                            or (mac in paths and paths[mac] > min(paths.values()))):
                        continue
                    # a MAC whose own address is on another subnet, never bound to this one,
                    # is a router's interface forwarding the address's frames (a router that
                    # keeps the TTL: the capture sees both its sides), not a claimant
                    theirs = [o for o in self.mac_owners.get(mac, ()) if parsed_address(o).version == version]
                    if mac not in bound and theirs and all(subnet_of(o) != subnet_of(ip) for o in theirs):
                        continue
                    vendor = vendor_of(mac) if mac_of_valid(mac) else None
                    facts = tuple(
                        f for kind in (DNS_ANSWER_MAC.name, DST_MAC.name, GRATUITOUS_ANNOUNCEMENT.name,
                                       IP_MAC_BINDING.name, MAC.name, MAC_TTL.name, OUI_VENDOR.name)
                        for f in kinds.get(kind, ())
                        if (f.value.lower() == mac if kind != MAC_TTL.name and kind != OUI_VENDOR.name
                            else f.value.partition(" ")[0] == mac if kind == MAC_TTL.name
                            else vendor is not None and f.value == vendor and vendor not in kept))
                    # its TTLs, from the TTLs its MAC's frames carried as the address (`mac-ttl`):
                    # counts the address's `ttl` facts lose (claim_ttls), and the claimant's own
                    ttls = tuple(Fact(TTL.name, f.value.partition(" ")[2], "ttl", f.grade, f.first_frame,
                                      f.last_frame, f.count)
                                 for f in facts if f.kind == MAC_TTL.name and f.value.partition(" ")[2].isdigit())
                    if facts:
                        out.setdefault(ip, {})[mac] = facts + ttls
        return out

    def _claimed_away(self, ip: str) -> list[Fact]:
        """An address's facts without what claimants' MACs left on it (`claims`): those facts
        gone, and its `ttl` facts' counts less the claimants' frames at that TTL."""
        by_mac = self.claims.get(ip)
        facts = self._facts.get(ip, [])
        if not by_mac:
            return facts
        taken = {f for claimed in by_mac.values() for f in claimed if f.kind != TTL.name}
        spent: dict[str, int] = defaultdict(int)  # TTL -> frames of claimants at it
        for claimed in by_mac.values():
            for f in claimed:
                if f.kind == TTL.name:
                    spent[f.value] += f.count
        out = []
        for f in facts:
            if f in taken:
                continue
            if f.kind == TTL.name and f.value in spent:
                left = f.count - spent[f.value]
                if left <= 0:
                    continue
                f = f._replace(count=left)
            out.append(f)
        return out

    @cached_property
    def claims_held(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Entity key -> the (address, MAC) claims whose facts its device holds (`claims`)."""
        out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for ip, by_mac in sorted(self.claims.items()):
            for mac in sorted(by_mac):
                out[self.entity_of[mac_key(mac)]].append((ip, mac))
        return {key: tuple(pairs) for key, pairs in out.items()}

    def claim_members(self, device: Entity) -> tuple[str, ...]:
        """The claim holders (entities.claim_holder) of a claimant's device: members of it in
        the store, where Scan moves the claims' facts."""
        return tuple(claim_holder(ip, mac) for ip, mac in self.claims_held.get(device.key, ()))

    def only_tunnelled(self, ip: str) -> bool:
        """Every packet the address sent or received was inside a tunnel (`tunnelled` facts
        count each inner packet on both its addresses)."""
        inside = sum(f.count for f in self.facts_of_kind(ip, TUNNELLED.name))
        if not inside:
            return False
        traffic = self.traffic_of(ip)
        return inside >= traffic.packets_sent + traffic.packets_received

    @cached_property
    def ips_by_mac(self) -> dict[str, list[tuple[str, int]]]:
        """MAC -> [(ip, frames sent from it with that MAC)], most frames first."""
        out: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for ip in self.hosts:
            for fact in self.facts_of_kind(ip, MAC.name):
                out[fact.value].append((ip, fact.count))
        for ips in out.values():
            ips.sort(key=lambda pair: (-pair[1], pair[0]))
        return dict(out)

    @cached_property
    def bindings(self) -> dict[str, dict[str, str]]:
        """MAC -> {address bound to it by ARP, ND or a DHCP lease: the source of the first binding}."""
        out: dict[str, dict[str, str]] = defaultdict(dict)
        for ip in self._facts:  # an address ARP announced is no host until it sends IP
            for fact in self.facts_of_kind(ip, IP_MAC_BINDING.name):
                out[fact.value.lower()].setdefault(ip, fact.source or "")
        return dict(out)

    @cached_property
    def ownership(self) -> dict[str, tuple[Ownership, ...]]:
        """MAC -> its owner per address family, each with the evidence (scan/ownership.py)."""
        bound = self.bindings
        bound_macs: dict[str, set[str]] = defaultdict(set)  # ip -> the MACs bound to it
        for mac, ips in bound.items():
            for ip in ips:
                bound_macs[ip].add(mac)
        senders: dict[str, list[list[Sender]]] = {}
        for mac in sorted(set(self.ips_by_mac) | set(bound)):
            sharers = dict(self.ips_by_mac.get(mac, ()))
            for ip in bound.get(mac, ()):  # bound by ARP/ND though it never sent IP from the MAC
                sharers.setdefault(ip, 0)
            by_family: dict[int, list[Sender]] = defaultdict(list)
            for ip, frames in sorted(sharers.items()):
                paths = self.mac_hops.get(ip)
                forwarded = paths is not None and mac in paths and paths[mac] > min(paths.values())
                by_family[parsed_address(ip).version].append(
                    Sender(ip, frames, self.host(ip).hops, is_local(ip), ip in bound.get(mac, ()),
                           len(bound_macs.get(ip, ())) > 1, BINDING_SOURCES.get(bound.get(mac, {}).get(ip), "ARP/ND"),
                           forwarded))
            senders[mac] = [by_family[family] for family in sorted(by_family)]

        def decide(segment, before: dict[str, tuple[Ownership, ...]] | None = None
                   ) -> dict[str, tuple[Ownership, ...]]:
            out = {}
            for mac, families in senders.items():
                if before is not None and not any(not s.local and s.hops for family in families for s in family):
                    owners = before.get(mac, ())  # the subnets matter only to a MAC carrying remote addresses
                else:
                    owners = tuple(found for family in families if (found := owner(mac, family, segment)))
                if owners:
                    out[mac] = owners
            return out
        # first by the evidence that needs no subnet, then once more knowing the segment's subnets
        first = decide(())
        segment = {subnet_of(o.ip) for owners in first.values() for o in owners
                   if not parsed_address(o.ip).is_link_local}
        decided = decide(segment, first)
        # an IPv6 interface has several addresses (link-local, global, temporary): beside the
        # one owner the rules chose, every other IPv6 address ND bound to the MAC alone, and
        # every link-local address sending from it (never forwarded), is the same device's
        for mac, families in senders.items():
            chosen = {o.ip for o in decided.get(mac, ())}
            if not chosen:
                continue
            extra = []
            for sender in (s for family in families for s in family if ":" in s.ip and s.ip not in chosen):
                if sender.contested:
                    continue
                if sender.bound:
                    extra.append(Ownership(sender.ip, f"{sender.binding} binds {sender.ip} to {mac}, "
                                                      "another IPv6 address of the same interface"))
                elif parsed_address(sender.ip).is_link_local and sender.hops == 0:
                    extra.append(Ownership(sender.ip, f"{sender.ip} is a link-local address sending from "
                                                      f"{mac} (never forwarded)"))
            if extra:
                decided[mac] = decided[mac] + tuple(extra)
        self._aliases(senders, decided)
        self._claimants(decided, senders, segment)
        self._gateways_by_destination(senders, decided)
        return decided

    def _claimants(self, decided: dict[str, tuple[Ownership, ...]], senders: dict[str, list[list[Sender]]],
                   segment: set) -> None:
        """Spoofing keeps two devices: an address the rules let own more than one MAC that it
        was ARP/ND bound to or sent from owns only the one the evidence names: a DHCP lease
        first, then the MAC that claimed it first (a binding or a frame before the dispute: the
        address's own traffic). The claimant's MAC goes to another address sending from it (the
        spoofer's own, by the rules) or is left to its own device (entities: a MAC no address
        owns)."""
        held: dict[str, list[str]] = defaultdict(list)  # address -> the MACs it was chosen to own
        for mac, owners in decided.items():
            for o in owners:
                held[o.ip].append(mac)
        for ip, macs in held.items():
            if len(macs) < 2:
                continue
            bindings = {f.value.lower(): f for f in self.facts_of_kind(ip, IP_MAC_BINDING.name)}
            sent = {f.value.lower(): f for f in self.facts_of_kind(ip, MAC.name)}
            if not any(m in bindings for m in macs):
                continue  # no ARP/ND claim: an address owning two MACs (two interfaces, a randomised one)
            claimed = {m: min((f for f in (bindings.get(m), sent.get(m)) if f is not None),
                              key=lambda f: (f.source != "dhcp" if f.kind == IP_MAC_BINDING.name else True,
                                             f.first_frame))
                       for m in macs if m in bindings or m in sent}
            if len(claimed) < 2:
                continue
            keep = min(claimed, key=lambda m: (not (claimed[m].kind == IP_MAC_BINDING.name
                                                    and claimed[m].source == "dhcp"), claimed[m].first_frame, m))
            first = claimed[keep]
            how = ("leased it by DHCP" if first.kind == IP_MAC_BINDING.name and first.source == "dhcp"
                   else "bound to it first" if first.kind == IP_MAC_BINDING.name else "sent as it first")
            for mac in claimed:
                if mac == keep:
                    continue
                rest = tuple(o for o in decided[mac] if o.ip != ip)
                if not rest:  # the spoofer's own address, by the rules, among the others sending from it
                    rest = tuple(found for family in senders.get(mac, ())
                                 if (found := owner(mac, [s for s in family if s.ip != ip], segment)))
                if rest:
                    decided[mac] = rest
                else:
                    del decided[mac]
            decided[keep] = tuple(
                Ownership(o.ip, f"{o.reason}; of the {len(claimed)} MACs claiming {ip} it is {keep}, "
                                f"{how} (frame {first.first_frame}): the others are claimants' devices")
                if o.ip == ip else o for o in decided[keep])

    def _aliases(self, senders: dict[str, list[list[Sender]]], decided: dict[str, tuple[Ownership, ...]]) -> None:
        """One device, two addresses: beside the IPv4 owner the rules chose, every other
        site-local IPv4 address ARP binds to the MAC alone, on the owner's subnet and sending
        (if at all) zero hops away, is an alias of the same device, not a routed host:
        routing needs forwarding evidence (addresses from beyond the site, forwarded copies)."""
        owning = {o.ip for owners in decided.values() for o in owners}
        for mac, families in senders.items():
            chosen = [o.ip for o in decided.get(mac, ()) if ":" not in o.ip]
            family = next((f for f in families if f and ":" not in f[0].ip), [])
            if len(chosen) != 1 or any(s.forwarded or not s.local for s in family):
                continue
            subnet = subnet_of(chosen[0])
            extra = tuple(Ownership(s.ip, f"ARP binds {s.ip} to {mac} as well, on the subnet of its "
                                          f"owner {chosen[0]}: a second address of the same device "
                                          "(an alias), not a routed host")
                          for s in family
                          if s.bound and s.binding == "ARP" and not s.contested and s.ip not in owning
                          and not s.hops and subnet_of(s.ip) == subnet)
            if extra:
                decided[mac] = decided[mac] + extra
                owning.update(o.ip for o in extra)

    def _gateways_by_destination(self, senders: dict[str, list[list[Sender]]],
                                 decided: dict[str, tuple[Ownership, ...]]) -> None:
        """A MAC that sent frames but that no sender owns (a router that only forwards) is
        owned by the one site-local address its subnet's clients sent unicasts to at that MAC
        (`dst-mac`), the one a DHCP router option names when several are: a gateway that
        never sends an IP packet of its own."""
        owning = {o.ip for owners in decided.values() for o in owners}
        delivered: dict[str, list[tuple[str, Fact]]] = defaultdict(list)  # MAC -> [(address, fact)]
        for ip in self.hosts:
            unicasts = self.facts_of_kind(ip, DST_MAC.name)
            if not unicasts or ip in owning or not is_local(ip):
                continue
            for fact in unicasts:
                if fact.value in senders and fact.value not in decided:
                    delivered[fact.value].append((ip, fact))
        for mac, found in sorted(delivered.items()):
            named = [(ip, fact) for ip, fact in found if self.facts_of_kind(ip, GATEWAY_OPTION.name)]
            if len(named or found) != 1:
                continue
            ip, fact = (named or found)[0]
            if ip in owning or any(ip == s.ip for family in senders[mac] for s in family):
                continue  # it sends from the MAC itself: the rules above decided against it
            reason = (f"its subnet's clients sent {fact.count} unicast packet{'s' if fact.count > 1 else ''} "
                      f"to {ip} at {mac} (first in frame {fact.first_frame}), and no address sending "
                      "from the MAC owns it")
            option = self.facts_of_kind(ip, GATEWAY_OPTION.name)
            if option:
                reason += (f"; the DHCP server {option[0].value} names {ip} the segment's router "
                           f"(option 3, frame {option[0].first_frame})")
            decided[mac] = (Ownership(ip, reason),)
            owning.add(ip)

    @cached_property
    def mac_hops(self) -> dict[str, dict[str, int]]:
        """Address -> {MAC it sent unicasts from: the fewest hops its TTL there says}
        (`mac-ttl` facts), for addresses seen from several MACs: the same address arriving
        from two MACs, nearer on one, is a router's copy of a client's frames on the farther."""
        out: dict[str, dict[str, int]] = {}
        for ip in self.hosts:
            facts = self.facts_of_kind(ip, MAC_TTL.name)
            if len(facts) < 2:
                continue
            nearest: dict[str, int] = {}
            for fact in facts:
                mac, _, ttl = fact.value.partition(" ")
                if ttl.isdigit():
                    hops = initial_ttl(int(ttl)) - int(ttl)
                    nearest[mac] = min(hops, nearest.get(mac, hops))
            if len(nearest) > 1:
                out[ip] = nearest
        return out

    @cached_property
    def dhcp_gateways(self) -> tuple[str, ...]:
        """The addresses a DHCP server's router option (option 3) named, sorted."""
        return tuple(sorted(e for e, facts in self._facts.items()
                            if any(f.kind == GATEWAY_OPTION.name for f in facts)))

    @cached_property
    def owners(self) -> frozenset[str]:
        """Every address that owns a MAC of the capture's segment."""
        return frozenset(ip for owners in self.mac_owners.values() for ip in owners)

    @cached_property
    def router_macs(self) -> frozenset[str]:
        """MACs that carry traffic of addresses from beyond the site (public, hops away)."""
        return frozenset(mac for mac, sharers in self.ips_by_mac.items()
                         if any(not is_local(ip) and self.host(ip).hops for ip, _ in sharers)
                         or sum(1 for ip, _ in sharers if not is_local(ip)) > 1)

    @cached_property
    def mac_owners(self) -> dict[str, tuple[str, ...]]:
        """MAC -> the addresses that own it (one per address family, and the other IPv6
        addresses of the same interface)."""
        return {mac: tuple(o.ip for o in owners) for mac, owners in self.ownership.items()}

    @cached_property
    def claims_by_name(self) -> dict[str, list[tuple[str, Fact]]]:
        """Normalised hostname -> [(entity, claim)] across the capture."""
        out: dict[str, list[tuple[str, Fact]]] = defaultdict(list)
        for entity, facts in sorted(self._facts.items()):
            for fact in facts:
                if fact.kind == HOSTNAME_CLAIM.name:
                    out[name_key(fact.value)].append((entity, fact))
        return dict(out)


@dataclass(frozen=True, slots=True)
class HostFacts:
    """One host as a signal sees it: an address alone (`device` None), or an entity: the
    union of its addresses' facts and its MAC-level facts, `ip` its primary address (None for
    a MAC-only device)."""

    ip: str | None
    capture: CaptureContext
    device: Entity | None = None
    #: its facts by kind (CaptureContext.host and .entity build it, merged across an entity's members)
    kinds: Mapping[str, list[Fact]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.device.key if self.device is not None else self.ip

    @property
    def addresses(self) -> tuple[str, ...]:
        return self.device.addresses if self.device is not None else (self.ip,)

    def facts(self, kind: FactKind) -> list[Fact]:
        return list(self.kinds.get(kind.name, ()))  # a bare string fails here

    def values(self, kind: FactKind) -> list[str]:
        return [f.value for f in self.facts(kind)]

    def answer(self, question: str) -> Answer | None:
        """Another question's machine answer for this host; None when that question gave
        none (Unknown, contested) or was not computed (the reading signal must declare it in
        its module's `INPUTS`, which orders the questions)."""
        found = self.capture.answers.get(question, {}).get(self.key)
        return found if found is not None and found.label != "Unknown" else None

    @property
    def all_facts(self) -> list[Fact]:
        return [f for kind in sorted(self.kinds) for f in self.kinds[kind]]

    @property
    def traffic(self) -> Traffic:
        if self.device is not None and not (len(self.device.members) == 1 and self.device.members[0] == self.ip):
            return self.capture.merged_traffic(self.device)
        return self.capture.traffic_of(self.ip)

    @property
    def main_ttl(self) -> Fact | None:
        """The TTL most of its packets carried: its primary address's (an IPv6 link-local
        address's hop limit 255 is ND's and mDNS's, not the stack's default)."""
        return self.capture.main_ttl(self)

    @property
    def hops(self) -> int | None:
        """Routers between it and the capture point, from its main TTL (None if unknown)."""
        ttl = self.main_ttl
        return None if ttl is None else initial_ttl(int(ttl.value)) - int(ttl.value)

    def served(self) -> dict[str, Fact]:
        """Ports it answered on, one fact each: the same port measured by several extractors
        (handshake, HTTP response) merged to the earliest frame and the largest count."""
        out: dict[str, Fact] = {}
        for fact in self.facts(SERVED):
            have = out.get(fact.value)
            if have is None or (fact.first_frame, -fact.count) < (have.first_frame, -have.count):
                out[fact.value] = Fact(fact.kind, fact.value, fact.source, fact.grade,
                                       fact.first_frame, fact.last_frame,
                                       max(fact.count, have.count if have else 0))
        return out

    def owned_macs(self) -> list[Fact]:
        """Its `mac` facts for MACs it owns (not a router's MAC its packets arrived with). A
        device that never sent IP from a MAC it owns (a gateway that only answers ARP and
        forwards) is witnessed by the ARP/ND binding of that MAC instead."""
        return self._once_per_host(self.capture._owned, self._owned_macs)

    def _owned_macs(self) -> list[Fact]:
        if self.device is not None:
            mine = self.device.macs
            sent = [f for f in self.facts(MAC) if f.value in mine]
            silent = set(mine) - {f.value for f in sent}
            if silent:
                first: dict[str, Fact] = {}
                # a gateway that only forwards is witnessed by its clients' unicasts to it
                for f in self.facts(IP_MAC_BINDING) + self.facts(DST_MAC):
                    if f.value in silent and (f.value not in first or f.first_frame < first[f.value].first_frame):
                        first[f.value] = f
                sent += [first[m] for m in sorted(first)]
            return sent
        owners = self.capture.mac_owners
        return [f for f in self.facts(MAC) if self.ip in owners.get(f.value, ())]

    def owned_vendors(self) -> list[Fact]:
        """Its `oui-vendor` facts of MACs it owns: a spoofer's MAC it was claimed with, or a
        router's its packets arrived with, names another device's maker."""
        return self._once_per_host(self.capture._owned_vendors, self._owned_vendors)

    def _once_per_host(self, cache: dict, compute: Callable[[], list[Fact]]) -> list[Fact]:
        """`compute()` once per host (its address and device) for the whole scan: several
        signals of several questions ask every host the same thing."""
        key = (self.ip, self.device.key if self.device is not None else None)
        found = cache.get(key)
        if found is None:
            found = cache[key] = tuple(compute())
        return list(found)

    def _owned_vendors(self) -> list[Fact]:
        owned = self.owned_macs()
        if not owned:
            return []
        mine = {vendor_of(f.value) for f in owned}
        others = {vendor_of(f.value) for f in self.facts(MAC) if f not in owned} - mine
        return [f for f in self.facts(OUI_VENDOR) if f.value not in others]

    @property
    def locality(self) -> str:
        """"on-link" (it owns a MAC on the capture's segment, or is a MAC-only device; in a
        capture without MACs, a site-local address zero hops away), "tunnel" (seen only
        inside a tunnel: the tunnel's own network, whatever its range), "local-routed" (a
        site-local address behind a router) or "remote"."""
        if self.ip is None:  # a MAC-only device
            return "on-link"
        if all(self.capture.only_tunnelled(a) for a in self.addresses):
            return "tunnel"  # its every packet was inside a tunnel (with the inner frames' MACs of an L2 overlay)
        if self.device is not None and self.device.macs:
            return "on-link"
        if self.ip in self.capture.owners:
            return "on-link"
        if self.facts(TUNNELLED) and not self.facts(MAC):  # seen inside a tunnel, never on the segment
            return "tunnel"
        if is_local(self.ip):
            if not self.facts(MAC) and self.hops == 0:
                return "on-link"
            return "local-routed"
        return "remote"
