"""Facts as Extract produces them: grades, fact kinds, witnesses, observations.

An observation is one aggregated fact: (entity, kind, value, source) with a witness that says
where it was seen. Extractors emit raw sightings through an `Emitter`; the `FactTable`
folds repeated sightings into one observation (first/last frame, count, first/last time).
Absence of a fact is never evidence of absence: captures drop and truncate.

The FactTable is the one door from the wire to the store: every entity and value is kept
as `visible()` renders it (controls and undecodable bytes as `\\xNN`, see
`tracepcap/visible.py`), so no extractor can hand a NUL or a stray byte to the database or a
terminal. Only a key not seen before is rendered; a repeated sighting costs a lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..visible import visible


class Grade(StrEnum):
    MEASURED = "MEASURED"  #: a property of the traffic itself
    REPORTED = "REPORTED"  #: content a party on the network asserted; hosts lie
    INFERRED = "INFERRED"  #: a judgment of reference data or a heuristic
    ANALYST = "ANALYST"  #: evidence an analyst added (a vote's grade; no observed fact has it)


@dataclass(frozen=True, slots=True)
class FactKind:
    """A kind of fact and its fixed grade, e.g. FactKind("hostname-claim", Grade.REPORTED)."""

    name: str
    grade: Grade


@dataclass(frozen=True, slots=True)
class Witness:
    """Where a fact was seen."""

    capture_id: str
    first_frame: int
    last_frame: int
    count: int
    first_time: float
    last_time: float
    extractor: str
    extractor_version: str


@dataclass(frozen=True, slots=True)
class Observation:
    """One fact with its witness. `source` is the claim source for hostname claims and the
    extractor name otherwise."""

    entity: str
    kind: str
    value: str
    source: str
    grade: Grade
    witness: Witness


class FactTable:
    """Aggregates sightings per (entity, kind, value, source) in memory.

    Its size grows with the variety of a capture (hosts times distinct values), never with
    its length, and it is bounded by `limit`: past it new keys are dropped and counted in
    `dropped` (the manifest reports them); repeated sightings of known keys still count.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.dropped = 0
        # key -> [first_frame, last_frame, count, first_time, last_time, kind, extractor]
        self._rows: dict[tuple[str, str, str, str], list] = {}

    def add(self, entity: str, kind: FactKind, value: str, source: str,
            frame: int, ts: float, extractor: Emitter) -> bool:
        key = (entity, kind.name, value, source)
        row = self._rows.get(key)
        if row is None:  # new, or a hostile value kept under its visible rendering
            key = (visible(entity), kind.name, visible(value), source)
            row = self._rows.get(key)
        if row is not None:
            if frame >= row[1]:
                row[1], row[4] = frame, ts
            elif frame < row[0]:  # stream heads and joins arrive out of frame order
                row[0], row[3] = frame, ts
            row[2] += 1
            return False
        if len(self._rows) >= self.limit:
            self.dropped += 1
            return False
        self._rows[key] = [frame, frame, 1, ts, ts, kind, extractor]
        return True

    def again(self, entity: str, kind: FactKind, value: str, source: str, times: int,
              frame: int, ts: float) -> None:
        """`times` more sightings of a fact added before, the last at (frame, ts): what
        `times` calls of `add` would have done (a key dropped past the limit stays dropped)."""
        row = self._rows.get((entity, kind.name, value, source)) \
            or self._rows.get((visible(entity), kind.name, visible(value), source))
        if row is None:
            self.dropped += times
            return
        if frame >= row[1]:
            row[1], row[4] = frame, ts
        row[2] += times

    def move(self, old_entity: str, new_entity: str, kind: FactKind, value: str, source: str) -> None:
        """Re-attribute a fact (a DHCP name sent from 0.0.0.0 lands on the leased address)."""
        value = visible(value)
        row = self._rows.pop((visible(old_entity), kind.name, value, source), None)
        if row is None:
            return
        key = (visible(new_entity), kind.name, value, source)
        have = self._rows.get(key)
        if have is None:
            self._rows[key] = row
        else:
            have[0] = min(have[0], row[0])
            have[1] = max(have[1], row[1])
            have[2] += row[2]
            have[3] = min(have[3], row[3])
            have[4] = max(have[4], row[4])

    def observations(self, capture_id: str) -> list[Observation]:
        out = []
        for (entity, kind_name, value, source), row in self._rows.items():
            first, last, count, t0, t1, kind, emitter = row
            witness = Witness(capture_id, first, last, count, t0, t1, emitter.name, emitter.version)
            out.append(Observation(entity, kind_name, value, source, kind.grade, witness))
        out.sort(key=lambda o: (o.entity, o.kind, o.value, o.source))
        return out

    def rows(self) -> list[tuple]:
        """Every fact as plain data, unsorted: (entity, kind, value, source, grade, first frame,
        first time, last frame, last time, count, extractor, version), what a shard sends to
        the merge (extract/parallel.py) instead of observations."""
        return [(entity, kind_name, value, source, str(kind.grade), first, t0, last, t1, count,
                 emitter.name, emitter.version)
                for (entity, kind_name, value, source), (first, last, count, t0, t1, kind, emitter)
                in self._rows.items()]

    def count_by_extractor(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for row in self._rows.values():
            counts[row[6].name] = counts.get(row[6].name, 0) + 1
        return counts


class Emitter:
    """An extractor's handle on the fact table: stamps its name and version on what it emits."""

    __slots__ = ("name", "version", "_table")

    def __init__(self, name: str, version: str, table: FactTable) -> None:
        self.name = name
        self.version = version
        self._table = table

    def fact(self, entity: str, kind: FactKind, value: str, frame: int, ts: float,
             source: str | None = None) -> None:
        self._table.add(entity, kind, value, source or self.name, frame, ts, self)

    def again(self, entity: str, kind: FactKind, value: str, times: int, frame: int, ts: float,
              source: str | None = None) -> None:
        """`times` more sightings of a fact emitted before, the last at (frame, ts): for an
        extractor that sees one fact on most packets and counts the repeats itself (two
        calls fewer per packet), handing them over in finish()."""
        self._table.again(entity, kind, value, source or self.name, times, frame, ts)

    def move(self, old_entity: str, new_entity: str, kind: FactKind, value: str,
             source: str | None = None) -> None:
        self._table.move(old_entity, new_entity, kind, value, source or self.name)
