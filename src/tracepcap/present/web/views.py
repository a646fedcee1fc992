"""What each page and partial shows, assembled from `present.read` and the annotation
services. Formatting only: every answer shown is a stored `Verdict`, every human action an
annotation or audit event as recorded.

The adjudication panel is keyed by the question string and fed the question's metadata
(title, tier, vocabulary) from the registry: no code here or in the templates names a question.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ...adjudicate import annotations
from ...adjudicate.actor import SYSTEM, Actor
from ...adjudicate.contract import Adjudicator, Basis, Key, Tier, Verdict
from ...adjudicate.registry import Registry
from ...settings import Settings
from ...store.models import Capture, Locality
from ..read.audit import AuditFilter, audit_choices, audit_page, primary_addresses
from ..read.capture_spans import capture_spans
from ..read.captures import (
    by_severity,
    capture_fields,
    capture_rows,
    capture_total,
    findings,
    findings_of,
    findings_overview,
)
from ..read.frames import capture_index, frame_detail
from ..read.hosts import (
    MARKS,
    HostFilter,
    HostRow,
    fact_groups,
    host_count,
    host_entity,
    host_locality,
    host_page,
    label_counts,
    neighbours,
    require_host,
)
from ..read.manifest import manifest, problems
from ..read.notices import notices_of
from ..read.traffic import normal_port
from ..read.trail import EvidenceEntry, trail
from ..read.verdicts import host_verdicts, stored_verdict

OTHER = "__other__"  # the "Other…" entry of a label dropdown
NOTICES_SHOWN = 10  # on the capture page; the API pages through the rest


class FormValues(dict):
    """What a failed form held, to show it again; absent fields read as ""."""

    def __missing__(self, key: str) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class PanelEvidence:
    """A piece of analyst evidence in a panel, and whether the viewer wrote it (may edit it)."""

    entry: EvidenceEntry
    mine: bool

    def __getattr__(self, name: str):
        return getattr(self.entry, name)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who looks at the page, as the server resolved them (never from the page)."""

    name: str
    can_write: bool
    subject: str  # what authorship is checked against (actor.py)

    @classmethod
    def of(cls, actor: Actor) -> Viewer:
        return cls(actor.name, actor.can("analyst"), actor.subject)


def who(actor: str | None) -> str:
    """How an actor is shown: "system" (auth off) is "unattributed". No token user is named
    either (actor.py shows theirs with their sub)."""
    if not actor or actor == SYSTEM:
        return "unattributed"
    return actor


#: how an answer stands, as the table and the panel badge it (`answer_state`)
ANSWER_STATES = ("none", "contested", "human", "unknown", "suggestion", "analyst", "parent", "machine")


def answer_state(verdict: Verdict | None, q: dict) -> str:
    """How one stored answer stands, for its styling: not adjudicated (none), contested,
    answered by a human (an override, or the human answer it defers to), unknown, a machine
    suggestion of a human-assisted question nobody accepted, carried only by analyst evidence
    (its winning candidate's votes are all analyst evidence), a parent-level answer, or the
    machine's. Reads the verdict as stored; decides nothing."""
    if verdict is None:
        return "none"
    if verdict.contested:
        return "contested"
    if verdict.basis == Basis.HUMAN:
        return "human"
    if verdict.primary_label in (None, q["unknown_label"]):
        return "unknown"
    if q["tier"] == str(Tier.HUMAN_ASSISTED):
        return "suggestion"
    winner = next((c for c in verdict.live if c.label == verdict.primary_label), None)
    if winner is not None and winner.source == "analyst":
        return "analyst"
    if verdict.parent_of:
        return "parent"
    return "machine"


def question_meta(adj: Adjudicator) -> dict:
    return {"question": adj.question, "title": adj.title, "tier": str(adj.tier), "labels": list(adj.vocabulary),
            "unknown_label": adj.unknown_label}


# --- the captures page ----------------------------------------------------------------------

CAPTURES_PER_PAGE = 25


def captures_context(session: Session, text: str = "", page: int = 1) -> dict:
    """The captures list: those matching `text`, one page of CAPTURES_PER_PAGE (a page past
    the end shows the last)."""
    total = capture_total(session, text)
    pages = max(1, -(-total // CAPTURES_PER_PAGE))
    page = min(max(1, page), pages)
    rows = capture_rows(session, text, offset=(page - 1) * CAPTURES_PER_PAGE, limit=CAPTURES_PER_PAGE)
    return {"captures": rows, "spans": capture_spans(session, [r.id for r in rows]),
            "capture_list": {"q": text, "page": page, "pages": pages, "total": total,
                             "first": (page - 1) * CAPTURES_PER_PAGE + 1}}


# --- the capture page -----------------------------------------------------------------------

PER_PAGE_CHOICES = (25, 50, 100, 200)
LOCALITIES = tuple(place.value for place in Locality)
#: the inventory's traffic columns (issue 28): sort key (None: not sortable) and title
TRAFFIC_COLUMNS = (("packets", "Packets"), ("bytes", "Bytes"), ("peers", "Peers"), ("first_seen", "First seen"),
                   ("last_seen", "Last seen"), (None, "Ports served"))


@dataclass
class HostQuery:
    """The inventory's view as its URL says it: the host filter, the page and its size."""

    text: str = ""
    question: str = ""
    label: str = ""
    mark: str = ""  # contested | human | stale | finding
    locality: str = ""  # on-link | local-routed | remote
    sort: str = "ip"  # ip | mac | locality | a traffic sort (read/traffic.SORTS) | a question key
    desc: bool = False
    page: int = 1
    per_page: int = 50
    min_packets: int = 0  # only hosts with at least this many packets both ways
    port: str = ""  # only hosts that served it ("80", "tcp/80")

    @property
    def filter(self) -> HostFilter:
        return HostFilter(self.text, self.question, self.label, self.mark if self.mark in MARKS else "",
                          self.sort, self.desc, self.locality if self.locality in LOCALITIES else "",
                          max(0, self.min_packets), normal_port(self.port) or "")

    def params(self, **changes) -> dict:
        """Query parameters of this view with `changes` applied (defaults left out)."""
        values = {"q": self.text, "question": self.question, "label": self.label, "mark": self.mark,
                  "locality": self.locality, "sort": self.sort, "desc": "1" if self.desc else "", "page": self.page,
                  "per_page": self.per_page, "min_packets": self.min_packets, "port": self.port}
        values.update(changes)
        defaults = {"q": "", "question": "", "label": "", "mark": "", "locality": "", "sort": "ip", "desc": "",
                    "page": 1, "per_page": 50, "min_packets": 0, "port": ""}
        return {k: v for k, v in values.items() if v not in (None, defaults[k]) and v != ""}


@dataclass
class Inventory:
    rows: list[HostRow]
    total: int  # hosts matching the filter
    all_hosts: int  # hosts in the capture
    page: int
    pages: int
    query: HostQuery


def capture_context(session: Session, registry: Registry, capture: Capture, query: HostQuery) -> dict:
    rows = manifest(session, capture.id)
    found = by_severity(findings(session, capture.id))
    notices = notices_of(session, capture.id, NOTICES_SHOWN)
    return {"capture": capture_fields(capture),
            "manifest": rows,
            "manifest_problems": problems(rows),
            "findings": found, "findings_overview": findings_overview(found),
            "notice_counts": notices.notice_counts, "notices": notices.notices,
            "counts": label_counts(session, registry, capture.id),
            "span": capture_spans(session, [capture.id]).get(capture.id),
            "questions": [question_meta(a) for a in registry],
            **hosts_context(session, registry, capture, query)}


def hosts_context(session: Session, registry: Registry, capture: Capture, query: HostQuery) -> dict:
    found = host_page(session, registry, capture.id, query.filter, offset=(max(1, query.page) - 1) * query.per_page,
                      limit=query.per_page, clamp=True)
    query.page = found.offset // query.per_page + 1
    inventory = Inventory(found.rows, found.total, host_count(session, capture.id), query.page,
                          max(1, -(-found.total // query.per_page)), query)
    return {"capture": capture_fields(capture), "hosts": inventory,
            "questions": [question_meta(a) for a in registry],
            "columns": [("ip", "IP"), ("mac", "MAC / vendor"), ("locality", "Locality"), *TRAFFIC_COLUMNS]
            + [(a.question, a.title) for a in registry],
            "per_page_choices": PER_PAGE_CHOICES, "localities": LOCALITIES}


# --- the audit page -------------------------------------------------------------------------

AUDIT_PER_PAGE = 50


def audit_context(session: Session, registry: Registry, capture: Capture, f: AuditFilter, page: int) -> dict:
    """One page of the capture's audit log (newest first) under filter `f`, and the filters'
    choices (the actors, actions and questions its events carry)."""
    events = audit_page(session, capture.id, f, offset=(max(1, page) - 1) * AUDIT_PER_PAGE,
                        limit=AUDIT_PER_PAGE)
    total = events.total
    pages = max(1, -(-total // AUDIT_PER_PAGE))
    if page > pages:  # a page link gone stale: the last page instead
        return audit_context(session, registry, capture, f, pages)
    titles = {a.question: a.title for a in registry}
    shown = primary_addresses(session, capture.id, {e.entity_key for e in events if e.entity_key})

    def params(**changes) -> dict:
        values = {"actor": f.actor, "action": f.action, "question": f.question, "page": page} | changes
        return {k: v for k, v in values.items() if v and not (k == "page" and v == 1)}
    return {"capture": capture_fields(capture), "events": events.items, "total": total, "page": page, "pages": pages,
            "filter": f, "choices": audit_choices(session, capture.id), "titles": titles, "params": params,
            "per_page": AUDIT_PER_PAGE, "shown": shown}


# --- the host page --------------------------------------------------------------------------

def host_context(session: Session, registry: Registry, capture: Capture, ip: str, viewer: Viewer) -> dict:
    """`ip`: any name of the entity (key, address, MAC); the page speaks of its canonical key."""
    entity = host_entity(session, capture.id, ip)
    ip = entity.key
    panels = [panel_context(session, registry, Key(adj.question, capture.id, ip), viewer) for adj in registry]
    locality, locality_reason = host_locality(session, capture.id, ip)
    return {"capture": capture_fields(capture), "ip": ip, "title": entity.ip or ip,
            "addresses": list(entity.addresses), "macs": list(entity.macs), "randomised": entity.randomised,
            "facts": fact_groups(session, capture.id, ip),
            "locality": locality, "locality_reason": locality_reason,
            "neighbours": neighbours(session, capture.id, ip), "panels": panels,
            "findings": findings_of(findings(session, capture.id), ip)}


def headline_context(session: Session, registry: Registry, capture: Capture, ip: str) -> dict:
    """Each question's answer for the host, for the line under its address."""
    ip = require_host(session, capture.id, ip)
    verdicts = host_verdicts(session, registry, capture.id, [ip]).get(ip, {})
    return {"capture": capture_fields(capture), "ip": ip,
            "items": [{"q": question_meta(a), "verdict": verdicts.get(a.question)} for a in registry]}


def panel_context(session: Session, registry: Registry, key: Key, viewer: Viewer, *,
                  error: str | None = None, form: dict | None = None) -> dict:
    """One adjudication panel: the stored verdict, the analyst evidence, the trail (newest
    first), and what the viewer may do. `error` is a failed action's message from the server."""
    adj = registry.get(key.question)
    verdict = stored_verdict(session, key)  # None while the analysis runs
    candidates = verdict.candidates if verdict else ()
    choices = list(adj.vocabulary) + [c.label for c in candidates if c.label not in adj.vocabulary]
    return {"key": key, "q": question_meta(adj), "verdict": verdict, "live": verdict.live if verdict else (),
            "dismissed": verdict.dismissed_candidates if verdict else (), "choices": choices,
            "evidence": [PanelEvidence(EvidenceEntry.of(e), viewer.can_write and e.actor_subject == viewer.subject)
                         for e in annotations.list_evidence(session, registry, key)],
            "trail": trail(session, registry, key)[::-1],
            "viewer": viewer, "error": error, "form": FormValues(form or {}), "other": OTHER,
            "can_accept": bool(verdict and adj.tier == Tier.HUMAN_ASSISTED and verdict.basis != Basis.HUMAN
                               and verdict.suggestion(adj.unknown_label))}


HEX_ROW = 16  # bytes per hex dump line


def hex_rows(data: bytes) -> list[tuple[str, str, str]]:
    """(offset, hex bytes, printable ASCII) per 16 bytes, as a hex dump shows them."""
    rows = []
    for at in range(0, len(data), HEX_ROW):
        chunk = data[at:at + HEX_ROW]
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        rows.append((f"{at:04x}", " ".join(f"{b:02x}" for b in chunk), text))
    return rows


def frame_context(session: Session, settings: Settings, capture: Capture, number: int) -> dict:
    """The packet view: one frame as our decoders read it, its hex dump, and its neighbours."""
    path, index = capture_index(settings.capture_dir, capture, settings.extract_limits)
    frame = frame_detail(session, capture, path, index, number)
    return {"capture": capture_fields(capture), "frame": frame, "hex_rows": hex_rows(bytes.fromhex(frame.hex))}
