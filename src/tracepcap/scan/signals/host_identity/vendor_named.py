"""The device's vendor and model beside its class, as a reason: "Smart Plug — D-Link DSP-W215
(its DHCP host name and its cloud *.dlink.com)". Reads the vendor-model question's machine
answer (a declared input) and the knowledge-base evidence behind it; it adds no weight (+0):
the evidence has voted for the class already (knowledge_base.py), and naming the maker is no
more evidence of what the device is."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ...clouds import registrable
from ...context import HostFacts
from ...knowledge import Match, appliance, first, matches
from ...vote import Vote
from ..vendor_model.knowledge_base import make, named
from .knowledge_base import IOT, most_specific

INPUTS = ("vendor-model",)
SOURCES = {"dhcp": "DHCP", "mdns": "mDNS", "nbns": "NetBIOS", "llmnr": "LLMNR"}


def evidence(m: Match) -> str:
    """How a summary names one piece of evidence: "its DHCP host name", "its cloud *.dlink.com"."""
    table = m.entry.table
    if table == "hostname":
        return f"its {SOURCES.get(m.fact.source, m.fact.source)} host name"
    if table == "cloud":
        return f"its cloud *.{registrable(m.entry.key)}"
    return {"mdns": f"its mDNS service {m.entry.key}", "ssdp": "its SSDP announcement",
            "dhcp_vendor": "its DHCP vendor class", "oui": "its MAC's maker",
            "user_agent": "its User-Agent"}.get(table, table)


def vote(host: HostFacts) -> Iterator[Vote]:
    answer = host.answer("vendor-model")
    if answer is None:
        return
    found = named(host)
    behind = [m for m, _ in found if make(m.entry.vendor, m.model or _model_of(found, m.entry.vendor)) == answer.label]
    if not behind:
        return
    label = most_specific(list(first(matches(host))))
    if label is None:
        if not appliance(host):
            return  # a maker's OUI alone names no class (Edimax makes routers too): nothing to say it beside
        label = IOT
    said = list(dict.fromkeys(evidence(m) for m in behind))
    listing = said[0] if len(said) == 1 else ", ".join(said[:-1]) + f" and {said[-1]}"
    yield Vote(label, 0, f"{label} — {answer.label} ({listing}) (+0)", Grade.INFERRED,
               tuple(sorted({m.fact.first_frame for m in behind})))


def _model_of(found: list[tuple[Match, int]], vendor: str) -> str | None:
    return next((m.model for m, _ in found if m.entry.vendor == vendor and m.model), None)
