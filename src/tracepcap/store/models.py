"""Database tables. Every stage's rows live here; queries live beside the stage code."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: the largest value of an Integer column on PostgreSQL (int4): no id above it exists
MAX_INTEGER = 2**31 - 1
#: the largest BigInteger, and the largest OFFSET or LIMIT either database takes
MAX_BIGINT = 2**63 - 1


class Base(DeclarativeBase):
    pass


class CaptureStatus(StrEnum):
    """Where a capture's analysis is. `analysis.analyze` alone sets the final three."""

    QUEUED = "queued"  #: stored, waiting for a worker
    ANALYZING = "analyzing"  #: being read, scanned and adjudicated
    DONE = "done"  #: every stage completed
    PARTIAL = "partial"  #: finished, but the file was not read to its end or a stage hit a bug (see the manifest)
    FAILED = "failed"  #: unusable, with the error
    STAGING = "staging"  #: the hidden rows of a re-analysis in the making (store/staging.py), never listed


class Locality(StrEnum):
    """Where a host sits relative to the capture point (`host.locality`, decided by Scan)."""

    ON_LINK = "on-link"  #: owns a MAC on the capture's segment
    LOCAL_ROUTED = "local-routed"  #: a site-local address (RFC 1918, ULA, ...) behind a router
    REMOTE = "remote"  #: anything else
    TUNNEL = "tunnel"  #: seen only inside a tunnel (GTP-U, VXLAN, GRE...): the tunnel's own network


class Capture(Base):
    __tablename__ = "capture"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)  # sha256 prefix
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(BigInteger)
    format: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))  # a CaptureStatus
    progress_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    packets: Mapped[int | None] = mapped_column(BigInteger)
    conversations: Mapped[int | None] = mapped_column(BigInteger)
    first_time: Mapped[float | None] = mapped_column(Float)
    last_time: Mapped[float | None] = mapped_column(Float)
    uploaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    uploaded_by: Mapped[str] = mapped_column(String(255))
    analyzed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: the last sign of life of its analysis (ingest/lease.py): an `analyzing` capture whose
    #: heartbeat is older than the lease is stalled
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ManifestEntry(Base):
    __tablename__ = "manifest"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), index=True)
    extractor: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))  # a statuses.ManifestStatus
    facts: Mapped[int] = mapped_column(BigInteger)
    error: Mapped[str | None] = mapped_column(Text)


class Host(Base):
    __tablename__ = "host"

    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), primary_key=True)
    ip: Mapped[str] = mapped_column(String(45), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)  # rank in (version, numeric address) order
    # written by Scan (scan/locality.py): on-link | local-routed | remote, and why; NULL = not
    # decided (a capture analysed before Scan stored it)
    locality: Mapped[str | None] = mapped_column(String(16))  # a Locality
    locality_reason: Mapped[str | None] = mapped_column(Text)


class Entity(Base):
    """One inventory entry (issue 11): an on-link device keyed by its MAC
    (`mac-aa-bb-cc-dd-ee-ff`) with every address bound to it, a MAC-only device, or a remote or
    routed host keyed by its address. Written by Scan (scan/entities.py); verdicts, findings and
    human annotations are keyed by `key`."""

    __tablename__ = "entity"
    __table_args__ = (Index("ix_entity_position", "capture_id", "position"),)

    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)  # inventory order
    ip: Mapped[str | None] = mapped_column(String(45))  # the primary address (IPv4 first); None: MAC-only
    addresses: Mapped[list] = mapped_column(JSON)  # primary first
    macs: Mapped[list] = mapped_column(JSON)  # the MACs it owns
    locality: Mapped[str | None] = mapped_column(String(16))  # a Locality
    locality_reason: Mapped[str | None] = mapped_column(Text)
    randomised: Mapped[bool] = mapped_column(Boolean, default=False)  # keyed by a locally administered MAC
    # its traffic (scan/traffic.py; issue 28), NULL for a capture scanned before revision 0011:
    # IP packets and bytes (IP payload) each way, first and last packet (capture time,
    # epoch seconds), distinct peer addresses, and the ports it served and opened ("tcp/80")
    packets_sent: Mapped[int | None] = mapped_column(BigInteger)
    packets_received: Mapped[int | None] = mapped_column(BigInteger)
    bytes_sent: Mapped[int | None] = mapped_column(BigInteger)
    bytes_received: Mapped[int | None] = mapped_column(BigInteger)
    first_seen: Mapped[float | None] = mapped_column(Float)
    last_seen: Mapped[float | None] = mapped_column(Float)
    peers: Mapped[int | None] = mapped_column(Integer)
    ports_served: Mapped[list | None] = mapped_column(JSON)
    ports_used: Mapped[list | None] = mapped_column(JSON)


class EntityMember(Base):
    """What names an entity: each of its addresses and the key of each of its MACs -> its key
    (the resolver's table, and the join from facts, which are held per address or MAC, to the
    entity)."""

    __tablename__ = "entity_member"
    __table_args__ = (Index("ix_entity_member_key", "capture_id", "entity_key"),)

    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), primary_key=True)
    member: Mapped[str] = mapped_column(String(64), primary_key=True)
    entity_key: Mapped[str] = mapped_column(String(64))


class ObservationRow(Base):
    __tablename__ = "observation"
    __table_args__ = (Index("ix_observation_entity", "capture_id", "entity"),
                      Index("ix_observation_kind", "capture_id", "kind"))

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
                                    autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    entity: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(64))
    value: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(64))
    grade: Mapped[str] = mapped_column(String(16))
    first_frame: Mapped[int] = mapped_column(BigInteger)
    last_frame: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(BigInteger)
    first_time: Mapped[float] = mapped_column(Float)
    last_time: Mapped[float] = mapped_column(Float)
    extractor: Mapped[str] = mapped_column(String(64))
    extractor_version: Mapped[str] = mapped_column(String(16))


class Conversation(Base):
    __tablename__ = "conversation"
    __table_args__ = (Index("ix_conversation_src", "capture_id", "src"),
                      Index("ix_conversation_dst", "capture_id", "dst"))

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
                                    autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    proto: Mapped[str] = mapped_column(String(8))
    src: Mapped[str] = mapped_column(String(45))
    sport: Mapped[int] = mapped_column(Integer)
    dst: Mapped[str] = mapped_column(String(45))
    dport: Mapped[int] = mapped_column(Integer)
    first_time: Mapped[float] = mapped_column(Float)
    last_time: Mapped[float] = mapped_column(Float)
    first_frame: Mapped[int] = mapped_column(BigInteger)
    packets_fwd: Mapped[int] = mapped_column(BigInteger)
    bytes_fwd: Mapped[int] = mapped_column(BigInteger)
    packets_rev: Mapped[int] = mapped_column(BigInteger)
    bytes_rev: Mapped[int] = mapped_column(BigInteger)
    initiator: Mapped[str | None] = mapped_column(String(45))  # None: not measured


class VoteRow(Base):
    """A signal's vote, stored so re-adjudication never re-reads facts or the capture."""

    __tablename__ = "vote"
    __table_args__ = (Index("ix_vote_key", "capture_id", "question", "entity_key"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
                                    autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    question: Mapped[str] = mapped_column(String(64))
    entity_key: Mapped[str] = mapped_column(String(64))
    signal: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(100))
    weight: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    grade: Mapped[str] = mapped_column(String(16))
    frames: Mapped[list] = mapped_column(JSON)


class VerdictRow(Base):
    """The current verdict per (question, capture, entity); `document` is the whole Verdict."""

    __tablename__ = "verdict"
    # the capture page counts answers per label: this index covers that grouping, so the count
    # never reads the rows' documents (1.4 s at 5,000 hosts without it)
    __table_args__ = (Index("ix_verdict_counts", "capture_id", "question", "primary_label", "contested", "basis"),)

    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), primary_key=True)
    question: Mapped[str] = mapped_column(String(64), primary_key=True)
    entity_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    primary_label: Mapped[str | None] = mapped_column(String(100))
    basis: Mapped[str] = mapped_column(String(16))
    confidence: Mapped[int] = mapped_column(Integer)
    contested: Mapped[bool] = mapped_column(Boolean)
    document: Mapped[dict] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class HumanOverride(Base):
    """A human's final answer for (question, capture, entity)."""

    __tablename__ = "human_override"
    __table_args__ = (UniqueConstraint("question", "capture_id", "entity_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    question: Mapped[str] = mapped_column(String(64))
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    entity_key: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(100))
    rationale: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: the entity's identity facts when the human answered ({"mac": [...], "served": [...]})
    facts_snapshot: Mapped[dict | None] = mapped_column(JSON)
    #: set by re-analysis when those facts moved; cleared when a human answers again
    stale_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    stale_detail: Mapped[dict | None] = mapped_column(JSON)
    #: set on a copy carried forward through a network (adjudicate/networks): the origin
    #: capture, the origin row's id and how the entity was matched; NULL on a human's own row
    carried_from: Mapped[str | None] = mapped_column(String(16))
    carried_id: Mapped[int | None] = mapped_column(Integer)
    carry_note: Mapped[str | None] = mapped_column(Text)
    #: a carried answer's first capture where the evidence beneath it moved
    stale_capture: Mapped[str | None] = mapped_column(String(16))


class ManualEvidence(Base):
    """An analyst's signal: enters the vote with its weight, tagged with its author."""

    __tablename__ = "manual_evidence"
    __table_args__ = (Index("ix_manual_evidence_key", "capture_id", "question", "entity_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    question: Mapped[str] = mapped_column(String(64))
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    entity_key: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(100))
    weight: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: who added it ("{iss}#{sub}", or "system"): only this subject may edit or delete it
    #: (declared where migration 0004 added it: a new file's columns are in the migrated order)
    actor_subject: Mapped[str] = mapped_column(Text)
    #: set on a copy carried forward through a network (adjudicate/networks): the origin
    #: capture, the origin row's id and how the entity was matched; NULL on a human's own row
    carried_from: Mapped[str | None] = mapped_column(String(16))
    carried_id: Mapped[int | None] = mapped_column(Integer)
    carry_note: Mapped[str | None] = mapped_column(Text)


class Dismissal(Base):
    """A human's "it is NOT this label" for one entity."""

    __tablename__ = "dismissal"
    __table_args__ = (UniqueConstraint("question", "capture_id", "entity_key", "label_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    question: Mapped[str] = mapped_column(String(64))
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    entity_key: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(100))
    label_key: Mapped[str] = mapped_column(String(100))  # normalize_label(label)
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: set on a copy carried forward through a network (adjudicate/networks): the origin
    #: capture, the origin row's id and how the entity was matched; NULL on a human's own row
    carried_from: Mapped[str | None] = mapped_column(String(16))
    carried_id: Mapped[int | None] = mapped_column(Integer)
    carry_note: Mapped[str | None] = mapped_column(Text)


class AuditEvent(Base):
    """Append-only log of every human action; never updated, never deleted (no foreign key,
    so the trail outlives the capture)."""

    __tablename__ = "audit_event"
    __table_args__ = (Index("ix_audit_event_key", "capture_id", "question", "entity_key"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
                                    autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor: Mapped[str] = mapped_column(String(255))  # the name shown
    action: Mapped[str] = mapped_column(String(64))  # an adjudicate.ledger.audit.AuditAction
    question: Mapped[str | None] = mapped_column(String(64))
    capture_id: Mapped[str | None] = mapped_column(String(16))
    entity_key: Mapped[str | None] = mapped_column(String(64))
    before: Mapped[dict | None] = mapped_column(JSON)
    after: Mapped[dict | None] = mapped_column(JSON)
    #: who it was: "{iss}#{sub}", or "system" (last, where migration 0004 added it)
    actor_subject: Mapped[str] = mapped_column(Text)


class AccessDenial(Base):
    """The bound on `access.denied` audit events: at most one per (actor subject, method,
    route) per window; refusals inside the window are only counted here, and the next event
    carries that count. The only row of the audit machinery that is updated, so that the audit
    log itself stays append-only."""

    __tablename__ = "access_denial"

    actor_subject: Mapped[str] = mapped_column(Text, primary_key=True)
    method: Mapped[str] = mapped_column(String(16), primary_key=True)
    route: Mapped[str] = mapped_column(String(255), primary_key=True)  # the route's handler, by module and name
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # the last event's time
    unrecorded: Mapped[int] = mapped_column(Integer)  # refusals since then


class Finding(Base):
    """A contradiction Scan noticed across facts (name-conflict, ip-mac-conflict, ...)."""

    __tablename__ = "finding"
    __table_args__ = (Index("ix_finding_capture", "capture_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(64))
    severity: Mapped[str] = mapped_column(String(16))  # low | medium | high
    entities: Mapped[list] = mapped_column(JSON)
    summary: Mapped[str] = mapped_column(Text)
    frames: Mapped[list] = mapped_column(JSON)


class Notice(Base):
    """Traffic that violated its protocol (a decoder's Truncated or Malformed): the first
    `Limits.max_notices` of a capture, in frame order. Every one is counted in NoticeCount."""

    __tablename__ = "notice"
    __table_args__ = (Index("ix_notice_capture", "capture_id", "frame"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
                                    autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(64))  # "{extractor}-truncated", "decoder-malformed", ...
    entity: Mapped[str | None] = mapped_column(String(64))  # the packet's source, None when unknown
    frame: Mapped[int] = mapped_column(BigInteger)
    text: Mapped[str] = mapped_column(Text)  # the decoder's message, made visible


class NoticeCount(Base):
    """How many notices of one kind a capture's walk met, stored or not."""

    __tablename__ = "notice_count"

    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)


class Network(Base):
    """A named series of captures of one site (adjudicate/networks)."""

    __tablename__ = "network"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)  # random hex
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    created_by: Mapped[str] = mapped_column(String(255))


class NetworkCapture(Base):
    """A capture's place in its one network; order is the capture's first packet time, ties by
    upload time."""

    __tablename__ = "network_capture"
    __table_args__ = (Index("ix_network_capture_network", "network_id"),)

    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"), primary_key=True)
    network_id: Mapped[str] = mapped_column(ForeignKey("network.id", ondelete="CASCADE"))
    attached_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    attached_by: Mapped[str] = mapped_column(String(255))
    #: the capture before it whose changes into this one are stored (NULL: not computed)
    changes_from: Mapped[str | None] = mapped_column(String(16))


class CarryMark(Base):
    """A human's decision on a carried answer in one capture: `reaffirmed` (the evidence there
    is the new baseline; the stale mark goes) or `cleared` (the answer stops being carried from
    this capture on). `kind` names the origin's table; `origin_id` its row."""

    __tablename__ = "carry_mark"
    __table_args__ = (UniqueConstraint("capture_id", "kind", "origin_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))  # override | evidence | dismissal
    origin_id: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16))  # a networks.carry.MarkAction
    actor: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class NetworkChange(Base):
    """A typed change between two consecutive captures of a network (adjudicate/networks/changes)."""

    __tablename__ = "network_change"
    __table_args__ = (Index("ix_network_change_network", "network_id", "capture_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    network_id: Mapped[str] = mapped_column(ForeignKey("network.id", ondelete="CASCADE"))
    capture_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))  # the later
    previous_id: Mapped[str] = mapped_column(ForeignKey("capture.id", ondelete="CASCADE"))  # the earlier
    kind: Mapped[str] = mapped_column(String(32))
    severity: Mapped[str] = mapped_column(String(16))  # low | medium | high
    entity_key: Mapped[str | None] = mapped_column(String(64))
    summary: Mapped[str] = mapped_column(Text)
    detail: Mapped[dict] = mapped_column(JSON)
    frames: Mapped[list] = mapped_column(JSON)
    #: stable across recomputation: what a review is recorded against
    signature: Mapped[str] = mapped_column(String(255))


class ChangeReview(Base):
    """A human marked a change reviewed (by its signature, so a recomputation keeps it)."""

    __tablename__ = "change_review"
    __table_args__ = (UniqueConstraint("network_id", "signature"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    network_id: Mapped[str] = mapped_column(ForeignKey("network.id", ondelete="CASCADE"))
    signature: Mapped[str] = mapped_column(String(255))
    actor: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
