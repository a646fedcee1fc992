"""Errors to HTTP, once: every error leaves the API in one JSON shape,

    {"error": {"code": "not_found", "message": "no capture with id, prefix or sha256 'ab12'",
               "details": {...}}}

Domain errors (`tracepcap.errors`) carry their own status (`http_status`); request validation
is 422 with the field and the rule of each problem; routing errors (unknown path, method) keep
Starlette's status. A full disk (file or database) is a 507 that says so; anything else is
a 500 whose message names the error type only.
"""

from __future__ import annotations

import errno
import logging
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...errors import TracePcapError, UsageError

log = logging.getLogger(__name__)

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_HTTP_CODES = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "too_large", 415: "unsupported_media_type",
               422: "validation_error", 503: "unavailable", 507: "insufficient_storage"}


def error_response(status: int, code: str, message: str, details: object = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details if details is not None else {}}}
    return JSONResponse(body, status_code=status, headers=headers)


def error_code(err: TracePcapError) -> str:
    """`NotFound` -> "not_found", `CaptureTooLarge` -> "capture_too_large"."""
    return _CAMEL.sub("_", type(err).__name__).lower()


async def _domain(_request: Request, err: TracePcapError) -> JSONResponse:
    if err.http_status >= 500 and not isinstance(err, UsageError):  # a busy refusal is no failure
        log.error("request failed: %s: %s", type(err).__name__, err)
    return error_response(err.http_status, error_code(err), str(err), getattr(err, "details", None),
                          getattr(err, "headers", None))


async def _validation(_request: Request, err: RequestValidationError) -> JSONResponse:
    problems = [{"location": str(e["loc"][0]) if e["loc"] else "",
                 "field": ".".join(str(p) for p in e["loc"][1:]) or str(e["loc"][0] if e["loc"] else ""),
                 "rule": e["type"], "message": e["msg"]} for e in err.errors()]
    summary = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
    return error_response(422, "validation_error", f"invalid request: {summary}", {"problems": problems})


async def _http(request: Request, err: StarletteHTTPException) -> JSONResponse:
    code = _HTTP_CODES.get(err.status_code, f"http_{err.status_code}")
    message = str(err.detail)
    if err.status_code == 404 and message == "Not Found":
        message = f"no route {request.method} {request.url.path}"
    elif err.status_code == 405 and message == "Method Not Allowed":
        message = f"{request.method} is not allowed on {request.url.path}"
    return error_response(err.status_code, code, message, headers=getattr(err, "headers", None))


SQLITE_FULL = 13  #: sqlite3's extended error code family "database or disk is full"
PG_DISK_FULL = "53100"  #: PostgreSQL's SQLSTATE disk_full
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


def disk_full(err: BaseException) -> bool:
    """True when `err`, or an error it was raised from, says a disk (or quota) is full: a file
    write (ENOSPC, EDQUOT), SQLite's SQLITE_FULL or PostgreSQL's disk_full, as the database
    driver raised it or as SQLAlchemy wrapped it."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.errno in DISK_FULL_ERRNOS:
            return True
        for driver in (err, getattr(err, "orig", None)):
            if driver is not None and ((getattr(driver, "sqlite_errorcode", None) or 0) & 0xFF == SQLITE_FULL
                                       or getattr(driver, "sqlstate", None) == PG_DISK_FULL):
                return True
        err = err.__cause__ or err.__context__
    return False


def _internal(err: Exception) -> JSONResponse:
    if disk_full(err):  # the server's fault, but one an operator can act on: say so (507)
        return error_response(507, "insufficient_storage",
                              "the server's disk is full: nothing was stored; free space on the server "
                              "(captures and the database) and try again")
    return error_response(500, "internal_error", f"internal error ({type(err).__name__}); see the server log")


def _log(method: object, path: object, err: Exception) -> None:
    if disk_full(err):
        log.error("disk full on %s %s: %s", method, path, err)
    else:
        log.exception("unhandled error on %s %s", method, path)


async def _unexpected(request: Request, err: Exception) -> JSONResponse:
    _log(request.method, request.url.path, err)
    return _internal(err)


class CatchAll:
    """Answers an unexpected error with the 500 of the one shape, logged once, and does not
    raise it further: the server would otherwise close the client's keep-alive connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as err:  # noqa: BLE001 - named boundary: one request
            _log(scope.get("method"), scope.get("path"), err)
            if started:
                raise
            await _internal(err)(scope, receive, send)


def install(app: FastAPI) -> None:
    app.add_exception_handler(TracePcapError, _domain)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _unexpected)
    app.add_middleware(CatchAll)
