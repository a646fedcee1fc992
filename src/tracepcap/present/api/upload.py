"""Uploads, streamed: the multipart body is parsed as it arrives and the bytes of its "file"
part are handed chunk by chunk to `ingest.store_capture`, which hashes, counts and writes
them and stops at the size limit. The server never holds more than a network chunk of an
upload in memory, and a request over the limit is answered 413 while it is still sending.

`store_capture` is synchronous (file and database I/O), so it runs in a worker thread and
pulls each next chunk from the event loop (`anyio.from_thread.run`): the request body is
read only as fast as it is stored.

A client that sends slowly must not hold a thread for ever (slowloris): each wait for the
next piece of the body is bounded (`upload_idle_timeout_seconds`), and past that first
interval the upload must average `upload_min_bytes_per_second`; otherwise it is cut with 408
and its temporary file removed. At most `max_concurrent_uploads` are received at once (one
more is answered 503 with Retry-After), and their threads are counted by a limiter of their
own, never against the thread pool the synchronous read routes share.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import anyio
import anyio.from_thread
from fastapi import Request
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect

from ...errors import CaptureTooLarge, UsageError
from ...ingest import store_capture
from ...settings import Settings
from ...store import Database
from ...store.models import Capture
from ...text import FILE_NAME

FIELD = "file"
MAX_OTHER_BYTES = 64 * 1024  # form fields besides "file", part headers and boundaries


class MissingFile(UsageError):
    """The request carries no "file" part: a validation error naming the field."""

    http_status = 422

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.details = {"problems": [{"location": "body", "field": FIELD, "rule": "missing", "message": message}]}


class UploadTimeout(UsageError):
    """An upload that stalled or crawled, cut so that it frees its thread."""

    http_status = 408
    headers = {"Connection": "close"}  # the rest of its body is not wanted


class UploadsBusy(UsageError):
    """Every upload slot is taken; the client should come back later."""

    http_status = 503

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(retry_after)}


@asynccontextmanager
async def upload_slot(slots: anyio.CapacityLimiter, settings: Settings) -> AsyncIterator[None]:
    """Hold one of `slots` (the app's, `max_concurrent_uploads` of them) while an upload is
    received, or raise UploadsBusy at once: a waiting upload would hold its connection anyway."""
    try:
        slots.acquire_nowait()
    except anyio.WouldBlock:
        raise UploadsBusy(f"{slots.total_tokens} uploads are being received already; try again shortly",
                          retry_after=math.ceil(settings.upload_idle_timeout_seconds)) from None
    try:
        yield
    finally:
        slots.release()


class MultipartFile:
    """A push parser that keeps only the bytes of the "file" part of a multipart/form-data
    body; `feed` returns those found in each piece of the body."""

    def __init__(self, content_type: str | None) -> None:
        kind, options = parse_options_header(content_type)
        if kind != b"multipart/form-data" or not options.get(b"boundary"):
            raise MissingFile(f'send the capture as multipart/form-data with a "{FIELD}" part '
                              f"(got content type {content_type or 'none'!r})")
        self.filename: str | None = None
        self.seen_file = self.finished = False
        self._in_file = False
        self._other = 0
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._headers: dict[bytes, bytes] = {}
        self._out: list[bytes] = []
        self._parser = MultipartParser(options[b"boundary"], {
            "on_part_begin": self._part_begin, "on_header_field": self._header_field,
            "on_header_value": self._header_value_data, "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished, "on_part_data": self._part_data,
            "on_part_end": self._part_end, "on_end": self._end})

    def feed(self, data: bytes) -> list[bytes]:
        try:
            self._parser.write(data)
        except MultipartParseError as err:
            raise UsageError(f"malformed multipart body: {err}") from err
        out, self._out = self._out, []
        return out

    def _count_other(self, n: int) -> None:
        self._other += n
        if self._other > MAX_OTHER_BYTES:
            raise CaptureTooLarge(f"the form fields besides {FIELD!r} are larger than {MAX_OTHER_BYTES} bytes")

    def _part_begin(self) -> None:
        self._headers = {}

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._count_other(end - start)
        self._header_name += data[start:end]

    def _header_value_data(self, data: bytes, start: int, end: int) -> None:
        self._count_other(end - start)
        self._header_value += data[start:end]

    def _header_end(self) -> None:
        self._headers[bytes(self._header_name).lower()] = bytes(self._header_value)
        self._header_name.clear()
        self._header_value.clear()

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition"))
        if options.get(b"name") == FIELD.encode() and not self.seen_file:
            self._in_file = self.seen_file = True
            raw = options.get(b"filename", b"") or b"upload.pcap"
            name = raw.decode("utf-8", "replace").replace("\\", "/").rsplit("/", 1)[-1]  # no client paths
            self.filename = FILE_NAME.check("filename", name) or "upload.pcap"

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_file:
            self._out.append(bytes(data[start:end]))
        else:
            self._count_other(end - start)

    def _part_end(self) -> None:
        self._in_file = False

    def _end(self) -> None:
        self.finished = True


async def receive_capture(request: Request, db: Database, settings: Settings, actor: str) -> tuple[Capture, bool]:
    """Store the "file" part of the request as a capture; return (capture, created)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > settings.max_capture_bytes + MAX_OTHER_BYTES:
        raise CaptureTooLarge(f"capture is larger than the limit of {settings.max_capture_bytes} bytes "
                              f"(Content-Length {declared})")
    form = MultipartFile(request.headers.get("content-type"))
    idle, min_rate = settings.upload_idle_timeout_seconds, settings.upload_min_bytes_per_second
    body = request.stream().__aiter__()
    started, received = time.monotonic(), 0

    async def pull() -> list[bytes] | None:
        """The next file bytes from the body, [] when a piece held none, None at its end."""
        nonlocal received
        try:
            with anyio.fail_after(idle):
                piece = await body.__anext__()
        except TimeoutError:
            raise UploadTimeout(f"the upload was cut: it sent nothing for {idle:g} seconds") from None
        except StopAsyncIteration:
            return None
        except ClientDisconnect as err:
            raise UsageError("the client went away before the upload finished") from err
        received += len(piece)
        elapsed = time.monotonic() - started
        if elapsed > idle and received < min_rate * elapsed:
            raise UploadTimeout(f"the upload was cut: it averaged {received / elapsed:.0f} bytes/s over "
                                f"{elapsed:.0f} seconds, under the minimum of {min_rate} bytes/s")
        return form.feed(piece)

    # read until the file part begins: its filename names the capture
    pending: list[bytes] = []
    while not form.seen_file:
        got = await pull()
        if got is None:
            raise MissingFile(f'the request has no "{FIELD}" part')
        pending += got

    def chunks() -> Iterator[bytes]:
        yield from pending
        while (got := anyio.from_thread.run(pull)) is not None:
            yield from got
        if not form.finished:  # a body cut short must not become a shorter capture
            raise UsageError("the upload ended before the multipart body's closing boundary")

    def store() -> tuple[Capture, bool]:
        with db.session() as session:
            return store_capture(session, settings.capture_dir, chunks(), name=form.filename,
                                 uploaded_by=actor, max_bytes=settings.max_capture_bytes)

    # a limiter of its own: this thread, idle while the client sends, is not one of the shared
    # pool's; the upload slots bound how many there are
    return await anyio.to_thread.run_sync(store, limiter=anyio.CapacityLimiter(1))
