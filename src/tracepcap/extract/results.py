"""What a walk returns: its result, manifest rows and notices. Kept apart from the walk
(pipeline.py, which setup.py may compile) as plain Python classes: shard results cross
process boundaries pickled (extract/parallel.py), and the merge of shards builds the
manifest from plain data with `manifest_rows` too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..statuses import WHOLE, ManifestStatus
from .facts import Observation
from .packet import MAX_DEPTH


@dataclass(frozen=True, slots=True)
class ManifestRow:
    extractor: str
    version: str
    status: ManifestStatus
    facts: int
    error: str | None


@dataclass(frozen=True, slots=True)
class Notice:
    """Traffic that violated its protocol: `kind` is "{where}-{truncated|malformed}" (where =
    the extractor, "decoder" or "decapsulation"), `entity` the packet's source address (its
    MAC when it has no IP, None when not even the link layer decoded)."""
    kind: str
    entity: str | None
    frame: int
    text: str


@dataclass(slots=True)
class ExtractResult:
    format: str
    packets: int
    partial: str | None
    manifest: list[ManifestRow]
    observations: list[Observation]
    hosts: list[str]
    conversations: int = 0
    first_time: float | None = None
    last_time: float | None = None
    extra: dict = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  #: the first Limits.max_notices
    notice_counts: dict[str, int] = field(default_factory=dict)  #: every notice, by kind

    @property
    def complete(self) -> bool:
        return all(row.status in WHOLE for row in self.manifest)


def manifest_rows(packets: int, partial: str | None, undecodable: Any, tunnelled: int,
                  too_deep: Any, inner_lost: Any, instances: Sequence[Any],
                  tallies: Mapping[str, Any], table: Any) -> list[ManifestRow]:
    """The manifest: `reader`, `decoder`, `decapsulation` (when tunnels were seen), one row
    per extractor (partial when it hit a bug), `fact-table` when facts were dropped past its
    limit. Notices are counted per kind in the row they were met in, which stays completed.
    Duck-typed (a walk's tallies, extractors and fact table, or a parallel merge's stand-ins
    for them: extract/parallel.py)."""
    counts = table.count_by_extractor()
    rows = [ManifestRow("reader", "1", ManifestStatus.PARTIAL if partial else ManifestStatus.COMPLETED, packets,
                        partial)]
    decode_error = None
    if undecodable.by_kind:
        decode_error = f"{undecodable.noticed} frames not decodable: {undecodable.notice_text()}"
    rows.append(ManifestRow("decoder", "1", ManifestStatus.COMPLETED, packets - undecodable.noticed, decode_error))
    if tunnelled or too_deep.by_kind or inner_lost.by_kind:
        parts = []
        if too_deep.by_kind:
            parts.append(f"{too_deep.noticed} frames nested deeper than {MAX_DEPTH} encapsulations "
                         f"(inner layers not read)")
        if inner_lost.by_kind:
            parts.append(f"{inner_lost.noticed} tunnelled frames whose inner packet did not decode "
                         f"(their carrier was kept)")
        rows.append(ManifestRow("decapsulation", "1", ManifestStatus.COMPLETED, tunnelled,
                                "; ".join(parts) or None))
    for ex in instances:
        tally = tallies[ex.NAME]
        parts = []
        if tally.count:
            parts.append(f"{tally.count} failures; first {tally.first}")
        if tally.by_kind:
            parts.append(tally.notice_text())
        if ex.evicted:
            parts.append(f"{ex.evicted} entries evicted from a bounded table")
        if ex.note:
            parts.append(ex.note)
        status = ManifestStatus.PARTIAL if tally.count else ManifestStatus.COMPLETED
        rows.append(ManifestRow(ex.NAME, ex.VERSION, status, counts.get(ex.NAME, 0),
                                "; ".join(parts) or None))
    if table.dropped:
        rows.append(ManifestRow("fact-table", "1", ManifestStatus.PARTIAL, len(counts),
                                f"{table.dropped} facts dropped past the limit of {table.limit}"))
    return rows
