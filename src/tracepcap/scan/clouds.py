"""The cloud endpoints a host resolves and contacts, grouped by registrable domain: what the
device knowledge base reads for vendor clouds, and what a reason names ("its cloud
*.tplinkcloud.com").

Derived here, not in Extract: the name a host looks up (a DNS answer) and the connection it
then opens are different flows, which a sharded walk keeps in different processes, while
Scan reads the stored facts of all of them. An endpoint is *contacted* when the host opened
a conversation (TCP SYN, or UDP answered) to an address a DNS answer gave for a name it asked
for (the A record's own name, `hostname-claim` dns-a, or a name its CNAME chain started
from, `resolved-from`), named the server in TLS SNI, or reached a server an HTTP request
named (`hostname-claim` http-host); a name only asked for is *resolved*.

The registrable domain is the last two labels of a name, or three under a two-letter
country code whose second level is a generic one (`example.co.uk`, `example.com.au`): a
small rule, not the Public Suffix List (no maintained PSL package is a dependency); it
misgroups private suffixes (`a.github.io` and `b.github.io` are one group here), which only
merges two endpoints of one platform.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from ..extract.kinds import DNS_QUERY, HOSTNAME_CLAIM, RESOLVED_FROM, TLS_SNI
from .context import CaptureContext, Fact, HostFacts

#: the kinds `endpoints` reads: the host's own lookups and SNI, its peers' names
ENDPOINT_KINDS = (DNS_QUERY, TLS_SNI, HOSTNAME_CLAIM, RESOLVED_FROM)

# second-level labels under which registrations sit one level deeper (example.co.uk)
SECOND_LEVEL = frozenset(("co", "com", "net", "org", "ac", "gov", "edu", "ne", "or"))
LOCAL_SUFFIXES = (".local", ".arpa", ".lan", ".home", ".internal", ".localdomain")
PEER_SOURCES = {"dns-a": "resolved", "http-host": "http"}  # a peer's claims that name what it serves


def registrable(name: str) -> str:
    """`r0801.dch.dlink.com` -> `dlink.com`; `api.example.co.uk` -> `example.co.uk`."""
    labels = name.lower().rstrip(".").split(".")
    if len(labels) >= 3 and labels[-2] in SECOND_LEVEL and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def public_name(name: str) -> bool:
    """A DNS name on the Internet: dotted, not a local or reverse-lookup name, no address."""
    name = name.lower().rstrip(".")
    if "." not in name or name.endswith(LOCAL_SUFFIXES):
        return False
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return True
    return False


@dataclass(frozen=True, slots=True)
class Endpoint:
    domain: str  # the registrable domain
    names: tuple[str, ...]  # the names under it the host resolved or contacted, sorted
    contacted: bool  # it opened a conversation to one of them (or named one in TLS SNI)
    first_frame: int  # the earliest fact it rests on
    facts: tuple[Fact, ...]  # the host's own facts (DNS queries, SNI) it rests on, earliest first

    def describe(self) -> str:
        """`it resolves and contacts *.dlink.com (api.dch.dlink.com, r0801.dch.dlink.com)`."""
        verb = "resolves and contacts" if self.contacted else "resolves"
        shown = ", ".join(self.names[:3]) + (f" and {len(self.names) - 3} more" if len(self.names) > 3 else "")
        return f"it {verb} *.{self.domain} ({shown})"


_ENDPOINTS: WeakKeyDictionary[CaptureContext, dict[str | None, list[Endpoint]]] = WeakKeyDictionary()


def endpoints(host: HostFacts) -> list[Endpoint]:
    """The host's cloud endpoints, one per registrable domain, earliest first."""
    per_capture = _ENDPOINTS.setdefault(host.capture, {})
    found = per_capture.get(host.key)
    if found is None:
        found = per_capture[host.key] = _endpoints(host)
    return list(found)


def _peer_names(capture: CaptureContext, peer: str) -> set[str]:
    names = {f.value.lower().rstrip(".") for f in capture.facts_of_kind(peer, HOSTNAME_CLAIM.name)
             if f.source in PEER_SOURCES}
    names.update(f.value for f in capture.facts_of_kind(peer, RESOLVED_FROM.name))
    return names


def _endpoints(host: HostFacts) -> list[Endpoint]:
    asked = {f.value: f for f in host.facts(DNS_QUERY) if public_name(f.value)}
    contacted: set[str] = set()
    for peer in sorted(host.traffic.peers_out):
        contacted |= {n for n in _peer_names(host.capture, peer) if public_name(n)}
    sni = {f.value.lower().rstrip("."): f for f in host.facts(TLS_SNI) if public_name(f.value)}
    groups: dict[str, dict] = {}
    for name in sorted({*asked, *sni, *(n for n in contacted if n in asked)}):
        group = groups.setdefault(registrable(name), {"names": set(), "contacted": False, "facts": []})
        group["names"].add(name)
        group["contacted"] |= name in sni or name in contacted
        group["facts"] += [f for f in (asked.get(name), sni.get(name)) if f is not None]
    # a server an HTTP request named, on a peer it contacted, with no lookup of its own seen
    for peer in sorted(host.traffic.peers_out):
        for f in host.capture.facts_of_kind(peer, HOSTNAME_CLAIM.name):
            name = f.value.lower().rstrip(".")
            if f.source == "http-host" and public_name(name) and registrable(name) not in groups:
                groups[registrable(name)] = {"names": {name}, "contacted": True, "facts": [f]}
    out = []
    for domain, group in groups.items():
        facts = tuple(sorted(group["facts"], key=lambda f: (f.first_frame, f.value)))
        out.append(Endpoint(domain, tuple(sorted(group["names"])), group["contacted"], facts[0].first_frame, facts))
    return sorted(out, key=lambda e: (e.first_frame, e.domain))
