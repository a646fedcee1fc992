"""Re-analysis builds a capture's new rows beside its old ones, then swaps them in at once.

Extract and Scan write under a staging capture: a hidden capture row (status "staging", never
listed, never found by id), one per analysis, that stands for one capture until `swap` moves
its rows over; an analysis that fails drops its own, deleting a capture drops its, and a server
starting drops those an interrupted analysis left. The
swap runs in one transaction holding the capture (`hold_capture`): it deletes the capture's old
derived rows and moves the staged ones to it. Readers see the old capture whole until the swap
commits and the new one whole after it; the hosts a human annotates never disappear in between,
and no human writer is half-way through an entity while its rows change.
"""

from __future__ import annotations

import secrets

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from .models import (
    Capture,
    CaptureStatus,
    Conversation,
    Entity,
    EntityMember,
    Finding,
    Host,
    ManifestEntry,
    Notice,
    NoticeCount,
    ObservationRow,
    VerdictRow,
    VoteRow,
)

STAGING = CaptureStatus.STAGING
#: every table whose rows an analysis derives from the capture file (annotations are not)
DERIVED = (ObservationRow, Conversation, Host, Entity, EntityMember, ManifestEntry, Notice, NoticeCount, VoteRow,
           Finding, VerdictRow)
#: what Extract learns about the capture itself, moved by the swap with the rows
SUMMARY = ("format", "packets", "conversations", "first_time", "last_time", "analyzed_at")


def _marker(capture_id: str) -> str:
    return f"staging-for-{capture_id}-"  # + a token, in the unique sha256 column


def stage_token() -> str:
    """A fresh token naming one analysis's staging capture (`open_stage`)."""
    return secrets.token_hex(8)


def stage_id_of(token: str) -> str:
    return "~" + token[1:]  # "~" is never in a real (hex) capture id


def open_stage(session: Session, capture: Capture, token: str | None = None) -> str:
    """A new, empty staging capture for `capture`; its id. Each analysis has its own, so two
    analyses of one capture (the CLI beside the server) never write into each other's. A
    `token` given by the caller (`stage_token`) names it in advance: whoever dispatched the
    analysis elsewhere (a Dask worker) can drop it when that analysis dies; a staging capture
    an earlier try left under the same token is dropped first."""
    if token is None:
        token = stage_token()
    else:
        drop_stage(session, stage_id_of(token))
    stage_id = stage_id_of(token)
    session.add(Capture(id=stage_id, sha256=_marker(capture.id) + token, name=capture.name, size=capture.size,
                        format=capture.format, status=STAGING, progress_bytes=0,
                        uploaded_at=capture.uploaded_at, uploaded_by=capture.uploaded_by))
    session.flush()
    return stage_id


def drop_stage(session: Session, stage_id: str) -> None:
    """Delete one staging capture and (by cascade) everything staged under it."""
    session.execute(delete(Capture).where(Capture.id == stage_id, Capture.status == STAGING))


def drop_stages(session: Session, capture_id: str | None = None) -> int:
    """Delete the staging captures of one capture (of every capture when None): when the
    capture is deleted, or at start-up, when no analysis of this server is running and any
    staging capture is an interrupted analysis's. Returns how many."""
    stmt = delete(Capture).where(Capture.status == STAGING)
    if capture_id is not None:
        stmt = stmt.where(Capture.sha256.startswith(_marker(capture_id), autoescape=True))
    return session.execute(stmt).rowcount


def hold_capture(session: Session, capture_id: str) -> Capture | None:
    """The capture, held until the transaction ends: human writers on it (who take a key-share
    lock on its row first) finish before, and start after. On SQLite the caller's writing unit
    of work already holds the database. None when the capture was deleted."""
    stmt = select(Capture).where(Capture.id == capture_id)
    if session.get_bind().dialect.name != "sqlite":
        stmt = stmt.with_for_update()
    return session.scalars(stmt.execution_options(populate_existing=True)).one_or_none()


def swap(session: Session, capture: Capture, stage_id: str) -> None:
    """Replace the capture's derived rows and summary by the staged ones; drop the staging
    capture. The caller holds the capture (`hold_capture`) in this transaction."""
    stage = session.get(Capture, stage_id)
    for table in DERIVED:
        session.execute(delete(table).where(table.capture_id == capture.id))
        session.execute(update(table).where(table.capture_id == stage_id).values(capture_id=capture.id))
    for column in SUMMARY:
        setattr(capture, column, getattr(stage, column))
    session.delete(stage)
    session.flush()
