"""Names claimed for this host, weighed by what backs them: a certificate it served outweighs
what it announced about itself, which outweighs what third parties said about it.
Repetition adds little (+1 per doubling of sightings, at most +3); independent sources
agreeing add up, because each source votes."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import HOSTNAME_CLAIM
from ...context import Fact, HostFacts
from ...names import CERTIFICATE_SOURCES, SELF_SOURCES, name_key, specificity
from ...vote import Vote

READS = (HOSTNAME_CLAIM,)  # it votes only from these: not run for a host with none

CERTIFICATE_WEIGHT, SELF_WEIGHT, THIRD_PARTY_WEIGHT = 45, 30, 12
MAX_REPETITION_BONUS = 3
SAYS = {  # how a reason names each source
    "dhcp": "DHCP option 12/81 from this host says {}",
    "dhcpv6": "DHCPv6 client FQDN from this host says {}",
    "nbns": "NBNS registration from this host says {}",
    "browser": "a Windows Browser announcement from this host names it {}",
    "llmnr": "LLMNR answer from this host says {}",
    "mdns": "mDNS announcement from this host says {}",
    "dns-update": "a DNS dynamic update from this host registers {}",
    "lldp": "LLDP from this host names its system {}",
    "cdp": "CDP from this host names its device {}",
    "ntlm": "NTLM challenge from this host names its computer {}",
    "snmp": "SNMP sysName of this host is {}",
    "tls-certificate": "the TLS certificate this host served names {}",
    "dns-ptr": "a DNS PTR answer names this address {}",
    "dns-a": "a DNS answer resolves {} to this address",
    "dns-zone-transfer": "a DNS zone transfer resolves {} to this address",
    "http-host": "an HTTP request to this host asked for {}",
}


def weight_of(fact: Fact) -> int:
    base = (CERTIFICATE_WEIGHT if fact.source in CERTIFICATE_SOURCES else
            SELF_WEIGHT if fact.source in SELF_SOURCES else THIRD_PARTY_WEIGHT)
    return base + min(MAX_REPETITION_BONUS, fact.count.bit_length() - 1)


def display_names(claims: list[Fact]) -> dict[str, str]:
    """name key -> the most specific form claimed (then the strongest source's, then a-z)."""
    best: dict[str, tuple[tuple[int, int], str]] = {}  # key -> (rank, the form claimed)
    for fact in claims:
        rank, key = (specificity(fact.value), weight_of(fact)), name_key(fact.value)
        have = best.get(key)
        if have is None or rank > have[0] or (
                rank == have[0] and _a_to_z(fact.value) > _a_to_z(have[1])):  # spelled out only on a tie
            best[key] = (rank, fact.value)
    return {key: value.rstrip(".") for key, (_, value) in best.items()}


def _a_to_z(name: str) -> list[int]:
    """Ranks names a-z when compared greatest first."""
    return [-ord(c) for c in name]


def vote(host: HostFacts) -> Iterator[Vote]:
    claims = host.facts(HOSTNAME_CLAIM)
    shown = display_names(claims)
    seen: set[tuple[str, str]] = set()
    for fact in sorted(claims, key=lambda f: (-weight_of(f), f.first_frame, f.value)):
        key = name_key(fact.value)
        if (key, fact.source) in seen:
            continue  # one vote per source and name: a second spelling is not new evidence
        seen.add((key, fact.source))
        weight = weight_of(fact)
        said = SAYS.get(fact.source, f"{fact.source} says {{}}").format(fact.value)
        times = f", {fact.count} times" if fact.count > 1 else ""
        yield Vote(shown[key], weight, f"{said}, frame {fact.first_frame}{times} (+{weight})",
                   fact.grade, (fact.first_frame,))
