"""The API's wire shapes. Input models (`...In`) say what a client may send: unknown fields,
an "actor" among them, are ignored, never trusted. Output models document what comes back;
a Verdict is exactly the document of `analyze --json` (`contract.Verdict.to_document`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    model_serializer,
    model_validator,
)

from ...text import LABEL, PROSE, TextRule

#: a time in UTC, with its offset (SQLite hands times back without one)
Time = Annotated[datetime, AfterValidator(lambda t: t if t.tzinfo else t.replace(tzinfo=UTC))]


def _from_epoch(value: object) -> object:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None  # a damaged timestamp past the calendar's years: no date to give
    return value


#: a packet's time as the capture stores it (seconds since the epoch) sent in ISO 8601 UTC, as
#: every time in the API is; null for a damaged timestamp no calendar date can name (a frame's
#: `time_text` then says so)
PacketTime = Annotated[datetime | None, BeforeValidator(_from_epoch),
                       AfterValidator(lambda t: t if t is None or t.tzinfo else t.replace(tzinfo=UTC))]


def _text(rule: TextRule, description: str) -> object:
    """A text field under `rule` (tracepcap.text): the 422 names field, rule and length."""
    limits = Field(min_length=1, description=description, json_schema_extra={"maxLength": rule.max_chars})
    return Annotated[str, limits, AfterValidator(rule.validator)]


Label = _text(LABEL, "one line, no control characters")
Prose = _text(PROSE, "no control characters but tab and line breaks")


class In(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class OverrideIn(In):
    label: Label
    rationale: Prose


class EvidenceIn(In):
    label: Label
    # the rule belongs to annotations (which enforces it for every caller); stated here too so
    # the schema shows it and a violation is reported with its field
    weight: StrictInt = Field(ge=1, le=100, description="how strongly this evidence votes for the label")
    reason: Prose


class EvidenceEditIn(In):
    """The fields to change; those left out stay as they are."""

    label: Label | None = None
    weight: StrictInt | None = Field(default=None, ge=1, le=100)
    reason: Prose | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> EvidenceEditIn:
        if self.label is None and self.weight is None and self.reason is None:
            raise ValueError("give at least one of label, weight, reason")
        return self


class DismissalIn(In):
    label: Label
    reason: Prose


class ErrorDetail(BaseModel):
    code: str = Field(examples=["not_found"])
    message: str
    details: Any = None


class ErrorOut(BaseModel):
    error: ErrorDetail


class Health(BaseModel):
    status: str
    version: str


class Me(BaseModel):
    actor: str
    authenticated: bool
    roles: list[str]


class QuestionOut(BaseModel):
    question: str
    title: str
    tier: str
    labels: list[str] = Field(description="the vocabulary: the labels and the taxonomy's parent labels")
    parents: dict[str, str] = Field(description="the label taxonomy, child -> parent (macOS -> Apple)")


class CaptureCreated(BaseModel):
    id: str
    name: str
    sha256: str
    size: int
    status: str


class CaptureOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.captures.CaptureFields
    id: str
    name: str
    size: int
    sha256: str
    format: str
    status: str = Field(description="queued | analyzing | done | partial | failed")
    progress: int = Field(description="percent of the file the analysis has read")
    error: str | None
    packets: int | None
    conversations: int | None
    uploaded_at: Time
    uploaded_by: str
    analyzed_at: Time | None


class ManifestOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.manifest.ManifestRow
    extractor: str
    version: str
    status: str
    facts: int
    error: str | None


class FindingOut(BaseModel):
    model_config = ConfigDict(extra="allow", from_attributes=True)  # read from a read.captures.FindingEntry
    kind: str
    severity: str
    entities: list[str]
    summary: str
    frames: list[int]


class NoticeOut(BaseModel):
    """Traffic that violated its protocol: what a decoder met, from whom, where."""
    model_config = ConfigDict(from_attributes=True)
    kind: str
    entity: str | None
    frame: int
    text: str


class SoftwareOut(BaseModel):
    """Software a device runs or serves, and the fact text it was read from."""
    model_config = ConfigDict(from_attributes=True)
    device: str
    product: str
    version: str | None
    platform: str | None
    seen_as: str
    evidence: str
    text: str
    first_frame: int
    last_frame: int
    count: int


class CaptureDetail(CaptureOut):
    manifest: list[ManifestOut]
    findings: list[FindingOut]
    notice_counts: dict[str, int]  #: every notice by kind; `GET .../notices` lists the stored ones


class VerdictSummary(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a contract.Verdict
    primary_label: str | None
    basis: str
    confidence: int
    contested: bool
    parent_of: list[str]  #: a parent-level answer: the children it stands for


class TrafficOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.traffic.DeviceTraffic
    packets_sent: int = Field(description="IP packets it sent (over all its addresses)")
    packets_received: int
    bytes_sent: int = Field(description="IP payload bytes it sent (transport header and data, IP header excluded)")
    bytes_received: int
    first_seen: str | None = Field(description="its first packet, ISO 8601 UTC")
    last_seen: str | None = Field(description="its last packet, ISO 8601 UTC")
    peers: int = Field(description="distinct addresses it exchanged packets with")
    ports_served: list[str] = Field(description="ports it answered on (measured: SYN-ACK, UDP reply), e.g. tcp/80")
    ports_used: list[str] = Field(description="ports it opened connections to (measured)")


class HostOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.hosts.HostRow
    key: str = Field(description="the entity's key: `mac-aa-bb-cc-dd-ee-ff` for an on-link device (by the MAC "
                     "it owns), the address for a remote or routed host; verdicts and annotations carry it")
    ip: str | None = Field(description="the primary address (IPv4 first); null for a device seen only by its MAC")
    addresses: list[str] = Field(description="every address of the entity, primary first")
    randomised: bool = Field(False, description="keyed by a locally administered (randomised) MAC: kept a "
                             "separate device")
    macs: list[str]
    names: list[str] = Field(description="names the host claimed (DHCP, NBNS, mDNS, DNS, TLS, HTTP)")
    locality: str | None = Field(description="on-link (owns a MAC on the capture's segment), local-routed (a "
                                 "site-local address behind a router), tunnel (seen only inside a tunnel: GTP-U, "
                                 "VXLAN, GRE...) or remote; null for a capture analysed "
                                 "before localities were stored")
    locality_reason: str | None = Field(description="why, in a sentence")
    verdicts: dict[str, VerdictSummary]
    finding: str | None = Field(default=None, description="the highest severity (high | medium | low) among "
                                "the capture's findings naming this host; null when none does")
    traffic: TrafficOut | None = Field(default=None, description="its traffic; null for a capture scanned "
                                       "before traffic was stored (re-analyse it)")


class FactOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    kind: str
    value: str
    source: str
    grade: str
    first_frame: int
    last_frame: int
    count: int
    first_time: PacketTime
    last_time: PacketTime
    extractor: str
    extractor_version: str


class ConversationOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int  #: for GET .../conversations/{id}.pcap
    proto: str
    src: str
    sport: int
    dst: str
    dport: int
    first_time: PacketTime
    last_time: PacketTime
    first_frame: int
    packets_fwd: int
    bytes_fwd: int
    packets_rev: int
    bytes_rev: int
    initiator: str | None


class _Document(BaseModel):
    """A part of the verdict document: the fields of its `adjudicate.contract` dataclass, no
    more; an optional part is left out of the answer when absent, as `to_document()` leaves it."""

    model_config = ConfigDict(extra="forbid")
    _omitted_when_absent: tuple[str, ...] = ()

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler):
        out = handler(self)
        for name in self._omitted_when_absent:
            if out.get(name) is None:
                out.pop(name, None)
        return out


class VoteOut(_Document):
    """One vote (`contract.VoteView`)."""

    _omitted_when_absent = ("author",)
    signal: str
    weight: int
    grade: str
    reason: str
    frames: list[int]
    author: str | None = Field(default=None, description="who gave it; analyst evidence only")


class DismissedOut(_Document):
    """A human said "it is not this label" (`contract.Dismissed`)."""

    by: str
    reason: str
    at: str


class CandidateOut(_Document):
    """A label in the race (`contract.Candidate`)."""

    _omitted_when_absent = ("dismissed",)
    label: str
    source: str = Field(description="machine | analyst")
    score: int
    reasons: list[str]
    votes: list[VoteOut]
    dismissed: DismissedOut | None = Field(default=None, description="only when a human dismissed the label")


class OverrideOut(_Document):
    """The human answer in force (`contract.Override`)."""

    label: str
    rationale: str
    actor: str
    at: str


class Verdict(_Document):
    """One verdict, the shape of `analyze --json` (`contract.Verdict.to_document`)."""

    question: str
    capture_id: str
    entity_key: str
    primary_label: str | None
    basis: str = Field(description="HUMAN | MACHINE | REPORTED")
    confidence: int
    contested: bool
    candidates: list[CandidateOut]
    override: OverrideOut | None
    dismissed: list[str]
    notes: list[str]
    stale_since: str | None
    parent_of: list[str] = Field(description="a parent-level answer (the taxonomy's parent of labels the "
                                             "evidence does not tell apart): those children; empty otherwise")


class EvidenceOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    question: str
    capture_id: str
    entity_key: str
    label: str
    weight: int
    reason: str
    actor: str
    created_at: Time
    updated_at: Time


class EvidenceWithVerdict(BaseModel):
    evidence: EvidenceOut
    verdict: Verdict


class AuditEventOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    at: Time
    actor: str = Field(description="the name shown")
    actor_subject: str = Field(description='who it was: "{issuer}#{sub}", or "system" with auth off')
    action: str
    question: str | None
    capture_id: str | None
    entity_key: str | None
    before: dict | None
    after: dict | None
    change: str = Field(description="what the event changed, in a line (the trail's sentence)")
    via: str | None = Field(None, description="the question the event was taken on, when it is another one "
                                              "this verdict follows (else null)")


class FrameLayer(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from an extract.describe.Layer
    name: str
    fields: list[tuple[str, str]]  #: (field, value) in wire order


class FrameConversation(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.frames.FrameConversation
    id: int
    proto: str
    src: str
    sport: int
    dst: str
    dport: int
    first_frame: int
    packets: int
    previous: int | None  #: None: the first, or not within the frames scanned (then see first_frame)
    next: int | None  #: None: the last, or not within the frames scanned


class FrameOut(BaseModel):
    """One frame as TracePcap's decoders read it (GET /api/captures/{cid}/frames/{n})."""
    model_config = ConfigDict(from_attributes=True)  # read from a read.frames.FrameDetail
    capture_id: str
    number: int
    time: PacketTime
    time_text: str
    interface: int
    section: int
    linktype: int
    linktype_name: str
    wire_length: int
    captured_length: int
    summary: str
    layers: list[FrameLayer]
    hex: str  #: the frame's bytes (at most the first 4096) in hex
    hex_truncated: bool
    conversation: FrameConversation | None
    frames: int  #: frames in the capture


class NetworkOut(BaseModel):
    """A network and how many captures it holds."""
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.NetworkRow
    id: str
    name: str
    created_at: Time
    created_by: str
    captures: int


class NetworkCaptureOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.CaptureBrief
    id: str
    name: str
    position: int = Field(description="its place in the network's order, from 0")
    first_time: float | None = Field(description="its first packet's time, seconds since the epoch")
    status: str
    uploaded_at: Time


class NetworkDetailOut(NetworkOut):
    """A network with its captures in order (first packet time, then upload)."""
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.NetworkDetail
    capture_list: list[NetworkCaptureOut]


class NetworkAttachedOut(NetworkDetailOut):
    capture_id: str = Field(description="the capture put into the network")


class ChangeOut(BaseModel):
    """A change of a capture against the network's history before it, with its review."""
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.Change
    id: int
    capture_id: str
    capture_name: str | None
    previous_id: str | None
    previous_name: str | None
    kind: str
    severity: str = Field(description="high | medium | low")
    entity_key: str | None
    summary: str
    frames: list[int] = Field(description="its witness frames in the capture")
    reviewed: bool
    reviewed_by: str | None
    reviewed_at: Time | None
    detail: dict[str, Any] | None


class PresenceRowOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.PresenceRow
    entity_key: str
    addresses: list[str]
    macs: list[str]
    cells: list[str] = Field(description="per capture in order: present | absent | changed")


class PresenceOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.Presence
    captures: list[NetworkCaptureOut]
    total: int
    offset: int
    rows: list[PresenceRowOut]


class NetworkAnswerOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.Answer
    label: str | None
    basis: str
    confidence: int
    state: str = Field(description="machine | human | carried | stale")
    entity: str
    author: str | None
    carried_from: str | None
    note: str | None
    stale: Any
    stale_since: str | None
    moved: str | None


class InventoryRowOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.InventoryRow
    entity_key: str
    addresses: list[str]
    macs: list[str]
    first_seen: str
    first_seen_id: str
    last_seen: str
    last_seen_id: str
    captures: int
    answers: dict[str, NetworkAnswerOut]


class InventoryOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.Inventory
    total: int
    offset: int
    rows: list[InventoryRowOut]


class SearchMatchOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.SearchMatch
    matched: str = Field(description="mac | hostname | answer | address")
    value: str
    kind: str | None
    frame: int | None
    question: str | None


class SearchHitOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a read.networks.SearchHit
    entity_key: str
    ip: str
    capture_id: str
    capture_name: str | None
    matched: list[SearchMatchOut]


class CaptureAuditEventOut(AuditEventOut):
    """An event of a capture's audit log, with the sentence saying what it changed."""


class BulkOut(BaseModel):
    """What a bulk import applied (issue 23)."""

    rows: int
    overrides: int
    evidence: int
    dismissals: int
    keys_readjudicated: int = Field(description="verdicts re-adjudicated, once each")
