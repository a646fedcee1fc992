"""The vendor and model the device knowledge base's entries name for the host (scan/knowledge):
each entry with a vendor votes "<vendor> <model>" when it or another entry of the same vendor
names a model (a vendor's cloud supports the model its default host name gives), the vendor
alone otherwise. Weights are host-identity's for the same entries (knowledge_base.py there);
chip and module makers name no vendor of the device and do not vote. One vote per entry."""

from __future__ import annotations

from collections.abc import Iterator

from ...context import HostFacts
from ...knowledge import Match, first, matches
from ...vote import Vote
from ..host_identity.knowledge_base import entry_weight


def make(vendor: str, model: str | None) -> str:
    """`D-Link` + `DSP-W215` -> `D-Link DSP-W215`; `Philips Hue` + `Hue Bridge` -> `Philips Hue
    Bridge` (a model that repeats the vendor's last word does not say it twice)."""
    if not model:
        return vendor
    if model.lower().startswith(vendor.lower()):
        return model
    last, head = vendor.split()[-1].lower(), model.split()[0].lower()
    return f"{vendor} {model.split(' ', 1)[1]}" if last == head and " " in model else f"{vendor} {model}"


def named(host: HostFacts) -> list[tuple[Match, int]]:
    """(match, weight) of each entry naming the device's vendor, strongest first."""
    found = [(m, entry_weight(m)) for m in first(matches(host)) if m.entry.vendor and not m.entry.chip]
    return sorted((x for x in found if x[1]), key=lambda x: (-x[1], x[0].fact.first_frame))


def vote(host: HostFacts) -> Iterator[Vote]:
    found = named(host)
    models = {}
    for m, _ in found:  # the strongest entry naming a model, per vendor
        models.setdefault(m.entry.vendor, m.model)
        if models[m.entry.vendor] is None:
            models[m.entry.vendor] = m.model
    for m, weight in found:
        label = make(m.entry.vendor, models[m.entry.vendor])
        yield Vote(label, weight, f"{m.describe()} (+{weight})", m.fact.grade, (m.fact.first_frame,))
