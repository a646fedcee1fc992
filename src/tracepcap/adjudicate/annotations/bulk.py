"""Many human annotations at once (an asset list of labels): overrides, analyst evidence and
dismissals from one CSV or JSON document, applied in the caller's one transaction.

All or nothing: every row is checked first (its kind, question, entity, label, text and
weight, and a dismissal not already made); one bad row refuses the whole import with
`BulkRejected`, which lists every bad row's number and message, and nothing is written. Then
each row is written with its own audit event, as the actor (never a name from the document),
the keys take their turns once, and every touched key is re-adjudicated once at the end
(`runner.rerun_many`), not once per row.

A row: `kind` (override | evidence | dismissal), `question` (default host-identity), `entity`
(its key, an address or a MAC), `label`, `reason` (`rationale` is the same column), and for
evidence `weight` (1..100, default 40). Other fields are ignored. Rows are numbered from 1 in
the order given; a CSV row also names its line in the file (the header is line 1).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound, TracePcapError, UsageError
from ...scan.vote import normalize_label
from ...store.entities import spellings
from ...store.models import Capture, Dismissal, Entity, EntityMember, HumanOverride
from .. import networks
from ..actor import Actor
from ..contract import Key
from ..ledger import validation
from ..ledger.locking import lock_for_writing
from ..ledger.staleness import identity_facts_many
from ..registry import Registry
from ..runner import rerun_many
from .dismissed_labels import put_dismissal
from .evidence import audit_evidence, new_evidence
from .overrides import put_override

KINDS = ("override", "evidence", "dismissal")
DEFAULT_QUESTION = "host-identity"
DEFAULT_WEIGHT = 40  # as `tracepcap evidence add`
MAX_ROWS = 10_000
MAX_BODY_BYTES = 4 << 20  #: a bulk document larger than this is refused before it is parsed
MAX_ENTITY_CHARS = 255
MAX_LOOKUP_CHARS = 64  # no entity name is longer (store/entities.resolve)
CHUNK = 500  # names in one IN (...) list
SHOWN_IN_MESSAGE = 5  # rows named in the error's message; `details` lists them all


class BulkRejected(InvalidAnnotation):
    """Rows that break a rule: nothing was applied. `details["problems"]` lists each bad row."""

    def __init__(self, problems: list[dict], total: int) -> None:
        shown = "; ".join(f"row {p['row']}: {p['message']}" for p in problems[:SHOWN_IN_MESSAGE])
        more = f"; and {len(problems) - SHOWN_IN_MESSAGE} more" if len(problems) > SHOWN_IN_MESSAGE else ""
        super().__init__(f"{len(problems)} of {total} rows refused, nothing was applied: {shown}{more}")
        self.details = {"rows": total, "problems": problems}


class UnsupportedBulkFormat(UsageError):
    """A bulk document neither CSV nor JSON."""

    http_status = 415


@dataclass(frozen=True, slots=True)
class Row:
    number: int
    fields: dict
    line: int | None = None  # CSV only
    problem: str | None = None  # what makes it no row at all (a JSON item not an object, ...)


@dataclass(slots=True)
class BulkResult:
    rows: int = 0
    overrides: int = 0
    evidence: int = 0
    dismissals: int = 0
    keys: set[Key] = field(default_factory=set)

    def to_document(self) -> dict:
        return {"rows": self.rows, "overrides": self.overrides, "evidence": self.evidence,
                "dismissals": self.dismissals, "keys_readjudicated": len(self.keys)}


# ---- reading the document ----------------------------------------------------------------

def parse_rows(data: bytes, content_type: str | None) -> list[Row]:
    """The rows of a CSV (text/csv) or JSON (application/json, the default) document: a JSON
    list of objects, or an object with such a list under "rows"."""
    kind = (content_type or "application/json").split(";")[0].strip().lower()
    if kind in ("text/csv", "application/csv"):
        rows = _csv_rows(data)
    elif kind == "application/json" or kind.endswith("+json"):
        rows = _json_rows(data)
    else:
        raise UnsupportedBulkFormat(f"send the rows as text/csv or application/json (got {kind!r})")
    if not rows:
        raise UsageError("the document has no rows")
    if len(rows) > MAX_ROWS:
        raise UsageError(f"the document has {len(rows)} rows, more than the {MAX_ROWS} of one import; split it")
    return rows


def _text_of(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UsageError(f"the document is not UTF-8 text (byte {err.start})") from None


def _csv_rows(data: bytes) -> list[Row]:
    reader = csv.reader(io.StringIO(_text_of(data), newline=""))
    try:
        header = next(reader, None)
        if header is None:
            return []
        names = [h.strip().lower() for h in header]
        if "entity" not in names:
            raise UsageError("the CSV's first line must name its columns, entity among them "
                             "(kind,question,entity,label,reason,weight)")
        rows = []
        for values in reader:
            if not any(v.strip() for v in values):
                continue  # a blank line
            if len(rows) >= MAX_ROWS:
                raise UsageError(f"the document has more than the {MAX_ROWS} rows of one import; split it")
            extra = "the row has more values than the header has columns" if len(values) > len(names) else None
            rows.append(Row(len(rows) + 1, dict(zip(names, values, strict=False)), reader.line_num, extra))
    except csv.Error as err:
        raise UsageError(f"the CSV is malformed at line {reader.line_num}: {err}") from None
    return rows


def _json_rows(data: bytes) -> list[Row]:
    try:
        document = json.loads(_text_of(data))
    except (ValueError, RecursionError) as err:
        raise UsageError(f"the JSON is malformed: {str(err)[:200]}") from None
    if isinstance(document, dict) and "rows" in document:
        document = document["rows"]
    if not isinstance(document, list):
        raise UsageError('send a JSON list of rows, or an object with a "rows" list')
    if len(document) > MAX_ROWS:
        raise UsageError(f"the document has {len(document)} rows, more than the {MAX_ROWS} of one import; split it")
    return [Row(i + 1, item) if isinstance(item, dict) else
            Row(i + 1, {}, problem=f"a row must be an object of fields (got {type(item).__name__})")
            for i, item in enumerate(document)]


# ---- checking and applying ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Checked:
    row: Row
    kind: str
    key: Key
    label: str
    text: str
    weight: int | None


def _string(fields: dict, name: str, *aliases: str) -> str:
    for n in (name, *aliases):
        value = fields.get(n)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InvalidAnnotation(f"{n} must be text (got {type(value).__name__})")
        return value
    return ""


def _weight(fields: dict) -> int:
    value = fields.get("weight")
    if value is None or (isinstance(value, str) and not value.strip()):
        return DEFAULT_WEIGHT
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()):
            raise InvalidAnnotation(f"evidence weight must be 1..100 (got {text[:20]!r})")
        value = int(text)
    return validation.weight(value)


class _Entities:
    """Entity names resolved for a whole import at once (store/entities.resolve's rule: the
    key itself, else any of its addresses or MACs in a common spelling), in a few queries."""

    def __init__(self, session: Session, capture_id: str, names: set[str]) -> None:
        self.capture_id = capture_id
        names = {n for n in names if n and len(n) <= MAX_LOOKUP_CHARS}
        wanted = sorted(names)
        keys: set[str] = set()
        for start in range(0, len(wanted), CHUNK):
            keys.update(session.scalars(select(Entity.key).where(Entity.capture_id == capture_id,
                                                                 Entity.key.in_(wanted[start:start + CHUNK]))))
        spelled = {n: spellings(n) for n in names if n not in keys}
        candidates = sorted({c for forms in spelled.values() for c in forms})
        members: dict[str, str] = {}
        for start in range(0, len(candidates), CHUNK):
            members.update(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
                EntityMember.capture_id == capture_id, EntityMember.member.in_(candidates[start:start + CHUNK]))).all())
        self.known = {n: n for n in keys} | {
            n: next((members[f] for f in forms if f in members), None) for n, forms in spelled.items()}

    def key_of(self, name: str) -> str:
        found = self.known.get(name)
        if found is None:
            raise InvalidAnnotation(f"no host or device {name!r} in capture {self.capture_id}")
        return found


def _check(row: Row, registry: Registry, capture_id: str, entities: _Entities) -> _Checked:
    fields = row.fields
    if row.problem:
        raise InvalidAnnotation(row.problem)
    kind = _string(fields, "kind").strip().lower()
    if kind not in KINDS:
        raise InvalidAnnotation(f"kind must be one of {', '.join(KINDS)} (got {kind[:40]!r})")
    question = _string(fields, "question").strip() or DEFAULT_QUESTION
    if question not in registry:
        raise InvalidAnnotation(f"no question {question[:80]!r}")
    name = _string(fields, "entity").strip()
    if not name:
        raise InvalidAnnotation("entity is required")
    if len(name) > MAX_ENTITY_CHARS:
        raise InvalidAnnotation(f"entity is longer than {MAX_ENTITY_CHARS} characters")
    key = Key(question, capture_id, entities.key_of(name))
    label = validation.label(_string(fields, "label"))
    text = validation.text("rationale" if kind == "override" else "reason", _string(fields, "reason", "rationale"))
    weight = _weight(fields) if kind == "evidence" else None
    if kind != "evidence" and fields.get("weight") not in (None, ""):
        raise InvalidAnnotation(f"weight is for evidence rows only, not {kind} rows")
    return _Checked(row, kind, key, label, text, weight)


def check_rows(session: Session, registry: Registry, capture_id: str, rows: list[Row]) -> list[_Checked]:
    """Every row checked against the rules and the store; BulkRejected naming each bad row."""
    entities = _Entities(session, capture_id, {str(r.fields.get("entity") or "").strip() for r in rows
                                               if isinstance(r.fields.get("entity"), str)})
    checked, problems = [], []
    dismissed = {(d.question, d.entity_key, d.label_key) for d in session.scalars(
        select(Dismissal).where(Dismissal.capture_id == capture_id))}
    for row in rows:
        try:
            ok = _check(row, registry, capture_id, entities)
            if ok.kind == "dismissal":
                mark = (ok.key.question, ok.key.entity_key, normalize_label(ok.label))
                if mark in dismissed:
                    raise InvalidAnnotation(f"label {ok.label!r} is already dismissed on {ok.key.question} "
                                            f"for {ok.key.entity_key}")
                dismissed.add(mark)
            checked.append(ok)
        except TracePcapError as err:
            problem = {"row": row.number, "message": str(err)}
            if row.line is not None:
                problem["line"] = row.line
            problems.append(problem)
    if problems:
        raise BulkRejected(problems, len(rows))
    return checked


def _take_turns(session: Session, capture_id: str, keys: set[Key]) -> None:
    """`locking.take_turn` for many keys: SQLite's write lock once; on PostgreSQL the capture
    (key share) and then the entities, in key order so that two imports never deadlock."""
    lock_for_writing(session)
    if session.connection().dialect.name == "sqlite":
        return
    session.execute(select(Capture.id).where(Capture.id == capture_id).with_for_update(read=True, key_share=True))
    entities = sorted({k.entity_key for k in keys})
    session.execute(select(Entity.key).where(Entity.capture_id == capture_id, Entity.key.in_(entities))
                    .order_by(Entity.key).with_for_update())


def apply_bulk(session: Session, registry: Registry, capture_id: str, rows: list[Row], *,
               actor: Actor) -> BulkResult:
    """Check every row, then apply them all in the caller's transaction, each audited as
    `actor`; re-adjudicate each touched key once. BulkRejected (nothing written) when a row
    breaks a rule."""
    lock_for_writing(session)  # SQLite: the write lock before the first read
    if session.get(Capture, capture_id) is None:
        raise NotFound(f"no capture {capture_id!r}")
    checked = check_rows(session, registry, capture_id, rows)
    result = BulkResult(rows=len(checked), keys={c.key for c in checked})
    _take_turns(session, capture_id, result.keys)
    # a handful of statements however many rows: what the rows replace is read at once, the
    # new rows and their audit events are inserted together, each key re-adjudicated once
    overridden = {c.key.entity_key for c in checked if c.kind == "override"}
    snapshots = identity_facts_many(session, capture_id, overridden) if overridden else {}
    overrides: dict[Key, HumanOverride | None] = {}
    wanted = sorted(overridden)
    for start in range(0, len(wanted), CHUNK):
        for o in session.scalars(select(HumanOverride).where(HumanOverride.capture_id == capture_id,
                                                             HumanOverride.entity_key.in_(wanted[start:start + CHUNK]))):
            overrides[Key(o.question, o.capture_id, o.entity_key)] = o
    evidence = {c.row.number: new_evidence(session, c.key, c.label, c.weight, c.text, actor=actor)
                for c in checked if c.kind == "evidence"}
    session.flush()  # the evidence's ids go in their audit events
    for c in checked:  # each row's audit event, in the document's order
        if c.kind == "override":
            overrides[c.key] = put_override(session, c.key, c.label, c.text, actor=actor, flush=False,
                                            snapshot=snapshots[c.key.entity_key], existing=overrides.get(c.key))
            result.overrides += 1
        elif c.kind == "dismissal":
            put_dismissal(session, c.key, c.label, c.text, actor=actor, flush=False)
            result.dismissals += 1
        else:
            audit_evidence(session, evidence[c.row.number], c.key, actor, flush=False)
            result.evidence += 1
    session.flush()
    rerun_many(session, registry, result.keys)
    networks.after_human_action(session, registry, capture_id, result.keys)
    return result
