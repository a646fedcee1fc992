"""Deleting a capture: every row derived from it goes (the database cascades), the audit log
keeps `capture.deleted` and every earlier event, and the stored file goes once no capture names
its bytes."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from ...errors import NotFound
from ...ingest import capture_path
from ...ingest.store import DECOMPRESSED_SUFFIX, FRAME_INDEX_SUFFIX
from ...store.models import Capture
from ...store.staging import drop_stages
from .. import networks
from ..actor import Actor
from ..ledger.audit import AuditAction, record
from ..registry import Registry, get_registry


def delete_capture(session: Session, capture_dir: Path, capture_id: str, *, actor: Actor,
                   registry: Registry | None = None) -> None:
    """Delete a capture and every row derived from it (the database cascades), recording
    `capture.deleted`; the audit log, which has no foreign key, keeps that and every earlier
    event. The stored file goes once the deletion is committed, unless another capture still
    names the same bytes."""
    capture = session.get(Capture, capture_id)
    if capture is None:
        raise NotFound(f"no capture {capture_id!r}")
    record(session, AuditAction.CAPTURE_DELETED, actor, capture_id=capture.id, before={
        "name": capture.name, "sha256": capture.sha256, "size": capture.size, "format": capture.format,
        "status": capture.status, "uploaded_by": capture.uploaded_by,
        "uploaded_at": capture.uploaded_at.isoformat()})
    registry = registry or get_registry()
    network_id = networks.rehome_before_delete(session, registry, capture.id)
    shared = session.scalar(select(func.count()).select_from(Capture).where(
        Capture.sha256 == capture.sha256, Capture.id != capture.id))
    drop_stages(session, capture.id)
    session.delete(capture)
    session.flush()
    if network_id is not None:
        networks.refresh(session, registry, network_id)
    if not shared:
        stored = capture_path(capture_dir, capture.sha256)
        beside = [stored.with_name(stored.name + suffix)  # extract/frame_index.py
                  for suffix in (FRAME_INDEX_SUFFIX, DECOMPRESSED_SUFFIX)]

        def remove(_session) -> None:
            for path in (stored, *beside):
                path.unlink(missing_ok=True)
        event.listen(session, "after_commit", remove, once=True)

