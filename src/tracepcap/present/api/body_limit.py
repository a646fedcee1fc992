"""Request bodies of every route but the uploads are small, and are held to it (issue 23).

A JSON or form body (an override, a piece of evidence, a network name) is a few hundred
bytes; without a cap a 300 MB body was read and parsed whole before any rule looked at it,
and stalled every other request meanwhile. Here, before any route runs:

* **Size.** A body larger than `TRACEPCAP_MAX_BODY_BYTES` (1 MiB) is answered 413: at once
  when its `Content-Length` says so, else (chunked) as soon as the bytes received pass the
  cap; what was read is dropped and nothing is parsed. Uploads (multipart bodies posted to the
  capture upload routes) are exempt: they stream to disk under their own limits (upload.py).
* **Nesting.** A JSON body nested deeper than `MAX_JSON_DEPTH` is answered 422 before it is
  parsed (the parser would otherwise recurse until Python's recursion limit: a 500).

The body that passes is handed on as it arrived. JSON is then parsed by FastAPI on the event
loop: the cap bounds that (a real body, a few hundred bytes, parses in microseconds; a full
1 MiB body of the worst shapes measured in 12-55 ms), where before it was unbounded (300 MB:
41 s). The depth check runs in C (`re` and `bytes.replace`), never a Python loop over the
bytes, and off the loop in a worker thread for bodies over 64 KiB.
"""

from __future__ import annotations

import re

import anyio
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...adjudicate.annotations.bulk import MAX_BODY_BYTES as MAX_BULK_BYTES
from .errors import error_response

MAX_JSON_DEPTH = 32  #: our deepest body (a list of objects holding lists) needs 4
INLINE_CHECK_BYTES = 64 * 1024  #: bodies up to this are depth-checked on the loop (< 1 ms)
#: routes whose multipart body is a capture, streamed under the upload limits instead
UPLOAD_PATHS = (re.compile(r"/api/captures/?"), re.compile(r"/api/networks/[^/]+/captures/?"))
#: a JSON string; one left open runs to the end, so no text makes this scan more than once
#: the bulk annotation import: an asset list of thousands of rows, capped by the bulk service
BULK_PATH = re.compile(r"/api/captures/[^/]+/annotations:bulk")
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.S)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def is_upload(method: str, path: str, content_type: str) -> bool:
    return (method == "POST" and content_type.startswith("multipart/form-data")
            and any(p.fullmatch(path) for p in UPLOAD_PATHS))


def too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the JSON text `body` nests arrays/objects more than `limit` deep. Brackets
    inside strings do not count. Each round removes the innermost pairs, so `limit` rounds
    remove all pairs of a text nested at most `limit` deep; a text whose brackets do not pair
    up is left to the parser (invalid JSON) unless more than `limit` are left unpaired."""
    if body.count(b"[") + body.count(b"{") <= limit:  # cannot open more than that
        return False
    brackets = (_STRING.sub(b"", body) if b'"' in body else body).translate(None, _NOT_BRACKET)
    for _ in range(limit):
        if not brackets:
            return False
        inner = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if inner == brackets:  # they do not pair up: invalid JSON, which the parser says,
            return len(brackets) > limit  # unless it would first recurse past the limit
        brackets = inner
    return bool(brackets)  # pairs remain after `limit` rounds, or more than `limit` unpaired


async def _too_deep(body: bytes) -> bool:
    """`too_deep`, in a worker thread for a body large enough to take milliseconds."""
    if len(body) <= INLINE_CHECK_BYTES:
        return too_deep(body)
    return await anyio.to_thread.run_sync(too_deep, body)


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip()
    return kind in ("", "application/json") or (kind.startswith("application/") and kind.endswith("+json"))


class BodyLimit:
    """ASGI middleware: reads a non-upload body up to `max_bytes` (413 past it), refuses JSON
    nested past MAX_JSON_DEPTH (422), and replays the body to the app."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _limit(self, scope: Scope) -> int:
        return max(self.max_bytes, MAX_BULK_BYTES) if BULK_PATH.fullmatch(scope["path"]) else self.max_bytes

    def _too_large(self, scope: Scope, size: str):
        return error_response(
            413, "body_too_large",
            f"the body of {scope['method']} {scope['path']} is {size}: at most {self._limit(scope)} bytes are "
            "accepted here (TRACEPCAP_MAX_BODY_BYTES); captures are uploaded to POST /api/captures")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        content_type = (headers.get("content-type") or "").lower()
        if is_upload(scope["method"], scope["path"], content_type):
            await self.app(scope, receive, send)
            return
        limit = self._limit(scope)
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isascii() or not declared.strip().isdigit():
                await error_response(400, "bad_request", f"invalid Content-Length {declared[:40]!r}")(
                    scope, receive, send)
                return
            if int(declared) > limit:
                await self._too_large(scope, f"{int(declared)} bytes (Content-Length)")(scope, receive, send)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: nothing to answer
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                chunks.clear()
                await self._too_large(scope, f"more than {limit} bytes")(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and _is_json(content_type) and await _too_deep(body):
            await error_response(422, "validation_error",
                                 f"invalid request: the JSON body nests more than {MAX_JSON_DEPTH} levels deep",
                                 {"problems": [{"location": "body", "field": "body", "rule": "json_depth",
                                                "message": f"nested more than {MAX_JSON_DEPTH} levels"}]})(
                scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
