"""Capture storage: content-addressed by SHA-256 in the data directory.

Bytes are streamed to a temporary file while hashed and counted; the size limit is checked
as they arrive, never after. The same bytes uploaded twice are one capture, even when the two
uploads race each other. A temporary file is removed however its upload ends; those of a
process that was killed are swept when the server starts (`sweep_stale_uploads`), and so are
the frame view's half-written decompressed copies (`.inflate-*`, extract/frame_index.py).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import CaptureMissing, CaptureTooLarge, NotFound
from ..store.models import Capture, CaptureStatus
from ..store.staging import STAGING
from ..visible import visible
from .sniff import HEAD_BYTES, sniff, sniff_file

log = logging.getLogger(__name__)
CHUNK = 1 << 20
ID_LENGTH = 16
HEX_DIGITS = "0123456789abcdef"
SHA256_HEX = 64
UPLOAD_PREFIX = ".upload-"
FRAME_INDEX_SUFFIX = ".frames.json"  #: the frame index beside a stored capture (extract/frame_index.py)
DECOMPRESSED_SUFFIX = ".decompressed"  #: a gzip'd capture decompressed for random access (same module)
INFLATE_PREFIX = ".inflate-"  #: that copy while it is written, beside the capture (same module)
#: an upload writes its temporary file at every chunk; one untouched this long is an orphan
STALE_UPLOAD_SECONDS = 3600
#: a sharded walk's working directory beside its capture (extract/spill.py: spill files, runs)
SHARD_DIR_PREFIX = ".tracepcap-shards-"


def capture_path(capture_dir: Path, sha256: str) -> Path:
    return capture_dir / sha256[:2] / sha256


def _chunks(source: BinaryIO | Iterable[bytes]) -> Iterator[bytes]:
    if hasattr(source, "read"):
        while chunk := source.read(CHUNK):
            yield chunk
    else:
        yield from (chunk for chunk in source if chunk)


def store_capture(session: Session, capture_dir: Path, source: BinaryIO | Iterable[bytes], *, name: str,
                  uploaded_by: str, max_bytes: int) -> tuple[Capture, bool]:
    """Stream `source` (a binary file, or an iterable of byte chunks such as an HTTP request
    body) into the store; return (capture, created). Raises UnusableCapture when the first
    bytes are not a capture, CaptureTooLarge as soon as more than `max_bytes` arrived."""
    capture_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    head = b""
    fd, tmp_name = tempfile.mkstemp(dir=capture_dir, prefix=UPLOAD_PREFIX)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in _chunks(source):
                size += len(chunk)
                if size > max_bytes:
                    raise CaptureTooLarge(f"capture is larger than the limit of {max_bytes} bytes")
                if len(head) < HEAD_BYTES:
                    head += chunk[: HEAD_BYTES - len(head)]
                    if len(head) >= HEAD_BYTES:
                        sniff(head)  # refuse non-captures early, before storing gigabytes
                digest.update(chunk)
                out.write(chunk)
        sniff(head)
        fmt = sniff_file(tmp)
        sha = digest.hexdigest()
        existing = session.scalar(select(Capture).where(Capture.sha256 == sha))
        if existing is not None:
            return existing, False
        final = capture_path(capture_dir, sha)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    capture = Capture(id=sha[:ID_LENGTH], sha256=sha, name=visible(name), size=size, format=fmt,
                      status=CaptureStatus.QUEUED, progress_bytes=0, uploaded_at=datetime.now(UTC),
                      uploaded_by=uploaded_by)
    try:
        with session.begin_nested():  # a concurrent upload of the same bytes may insert first
            session.add(capture)
    except IntegrityError:
        existing = session.scalar(select(Capture).where(Capture.sha256 == sha))
        if existing is None:
            raise
        return existing, False
    return capture, True


def sweep_stale_uploads(capture_dir: Path, *, older_than: float = STALE_UPLOAD_SECONDS) -> int:
    """Remove temporary upload files, half-written decompressed copies of the frame view and
    the working directories of sharded walks, untouched for `older_than` seconds (left by a process that was killed mid-write); return
    how many. Writes in progress touch their file at every chunk, so they are fresh and stay."""
    if not capture_dir.is_dir():
        return 0
    cutoff = time.time() - older_than
    removed = 0
    for tmp in (*capture_dir.glob(f"{UPLOAD_PREFIX}*"), *capture_dir.glob(f"*/{INFLATE_PREFIX}*")):
        try:
            if tmp.stat().st_mtime < cutoff:
                tmp.unlink()
                removed += 1
        except FileNotFoundError:  # finished or swept by another process meanwhile
            continue
    for work in capture_dir.glob(f"*/{SHARD_DIR_PREFIX}*"):
        try:  # a live walk writes in it; judged by its newest file
            newest = max([work.stat().st_mtime, *(f.stat().st_mtime for f in work.iterdir())])
        except FileNotFoundError:
            continue
        if newest < cutoff:
            shutil.rmtree(work, ignore_errors=True)
            removed += 1
    if removed:
        log.info("removed %d temporary files of uploads, decompressed copies or sharded walks that never "
                 "finished", removed)
    return removed


def store_file(session: Session, capture_dir: Path, path: Path, *, uploaded_by: str,
               max_bytes: int) -> tuple[Capture, bool]:
    """Store a local file (the CLI's path)."""
    if not path.is_file():
        raise CaptureMissing(f"no such capture file: {path}")
    with open(path, "rb") as source:
        return store_capture(session, capture_dir, source, name=path.name,
                             uploaded_by=uploaded_by, max_bytes=max_bytes)


def find_capture(session: Session, ref: str) -> Capture:
    """A capture by id, unique id prefix, or sha256; NotFound says which of those failed.
    A reference is hex digits: anything else names no capture (and never reaches a LIKE
    pattern, where `_` and `%` would match any id)."""
    ref = ref.strip().lower()
    if not ref or len(ref) > SHA256_HEX or ref.strip(HEX_DIGITS):
        raise NotFound(f"no capture with id, prefix or sha256 {ref[:80]!r}: a capture reference is 1 to "
                       f"{SHA256_HEX} hex digits")
    listed = Capture.status != STAGING  # a re-analysis's rows in the making are no capture of anyone's
    capture = session.scalar(select(Capture).where(listed, (Capture.id == ref) | (Capture.sha256 == ref)))
    if capture is not None:
        return capture
    matches = session.scalars(select(Capture).where(listed, Capture.id.startswith(ref)).limit(2)).all()
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise NotFound(f"capture prefix {ref!r} is ambiguous")
    raise NotFound(f"no capture with id, prefix or sha256 {ref!r}")
