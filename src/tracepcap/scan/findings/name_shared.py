"""name-shared: names that several hosts each hold only by a certificate they served — the
shape of a CDN or anycast service (pypi.org from many edge addresses), not of one device
posing as another. One low finding per capture groups every such name, so a large capture
shows one line, not one per name."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import CaptureContext
from . import Finding
from .name_conflict import claimed_twice, only_certificates

NAMES_IN_SUMMARY = 10  # the summary names the most-shared first; entities and frames hold all


def find(context: CaptureContext) -> Iterator[Finding]:
    shared = [(name, sorted({e for e, _ in group}), group) for name, group in claimed_twice(context)
              if only_certificates(group)]
    if not shared:
        return
    shared.sort(key=lambda s: (-len(s[1]), s[0]))
    entities = sorted({e for _, holders, _ in shared for e in holders})
    listed = ", ".join(f"{name} ({len(holders)} hosts)" for name, holders, _ in shared[:NAMES_IN_SUMMARY])
    more = f" and {len(shared) - NAMES_IN_SUMMARY} more" if len(shared) > NAMES_IN_SUMMARY else ""
    noun = "name is" if len(shared) == 1 else "names are"
    yield Finding("name-shared", "low", tuple(entities),
                  f"{len(shared)} {noun} served by certificate from several hosts each (CDN/anycast "
                  f"name sharing, not a conflict): {listed}{more}",
                  tuple(sorted({fact.first_frame for _, _, group in shared for _, fact in group})))
