"""HTTP/1.x messages (RFC 9112): the start line and header fields of each request or
response in the first bytes of one direction of a connection, bodies skipped by
Content-Length or chunked framing (RFC 9112 6, 7.1).

A request's method is any token (RFC 9110 9.1: methods are extensible), as Zeek reads them:
the registered ones below start a request by themselves; any other upper-case token
(letters, digits, "-", "_": CCM_POST, RPC_IN_DATA, VERSION-CONTROL) only in a whole request
line that ends with an HTTP version, so that other text protocols' commands (SMTP's "EHLO
host", FTP's "USER name", IMAP's tagged commands) are not taken for requests. Empty lines
before a start line are skipped (RFC 9112 2.2)."""

from __future__ import annotations

from typing import NamedTuple

from . import Malformed, Truncated

METHODS = frozenset((b"GET", b"POST", b"HEAD", b"PUT", b"DELETE", b"OPTIONS", b"PATCH",
                     b"CONNECT", b"TRACE", b"PROPFIND", b"PROPPATCH", b"MKCOL", b"COPY",
                     b"MOVE", b"LOCK", b"UNLOCK", b"REPORT", b"SEARCH", b"NOTIFY",
                     b"SUBSCRIBE", b"UNSUBSCRIBE", b"M-SEARCH"))
VERSION_PREFIX = b"HTTP/1."
MAX_METHOD = 20  # bytes in the longest method taken (UPDATEREDIRECTREF is 17)
LINE_WINDOW = 2048  # bytes in which a request line with an unregistered method must end
TOKEN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
UPPER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
EMPTY_LINE = b"\r\n"
NO_BODY_STATUS = (204, 304)  # and every 1xx (RFC 9112 6.3)
HEX = b"0123456789abcdefABCDEF"  # chunk-size digits (RFC 9112 7.1)


class Message(NamedTuple):
    request: bool
    method: str  # requests only, else ""
    target: str  # requests only, else ""
    status: int  # responses only, else 0
    headers: tuple[tuple[str, str], ...]  # (lower-cased name, value) in wire order

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)


def is_method(token: bytes) -> bool:
    """A registered method, or an upper-case token that may be one (module doc)."""
    return token in METHODS or (3 <= len(token) <= MAX_METHOD and token[0] in UPPER
                                and all(c in TOKEN for c in token))


def start_line_ok(line: bytes) -> bool:
    """Is `line` (without its line end) a status line, or a request line with a method, a
    target and an HTTP version?"""
    line = line.rstrip(b"\r")
    if line.startswith(VERSION_PREFIX):
        code = line.partition(b" ")[2][:3]
        return len(code) == 3 and code.isdigit()
    method, space, rest = line.partition(b" ")
    target, _, version = rest.rpartition(b" ")
    return bool(space and target) and version[:5] == b"HTTP/" and version[5:6] in (b"0", b"1") \
        and is_method(method)  # HTTP/2's connection preface ("PRI * HTTP/2.0") is no request


def unregistered_start(data: bytes) -> bool:
    """Could `data` begin a request whose method is not registered (its line must then be
    read whole: `starts_http` with LINE_WINDOW bytes)?"""
    data = data.lstrip(EMPTY_LINE)
    space = data.find(b" ", 0, MAX_METHOD + 1)
    return space > 0 and data[:space] not in METHODS and is_method(data[:space])


def starts_http(data: bytes) -> bool:
    """Does `data` start like an HTTP/1.x request or response, after any empty lines? A
    registered method or a status line is enough; an unregistered method needs its whole
    request line in `data`."""
    data = data.lstrip(EMPTY_LINE)
    if data.startswith(VERSION_PREFIX):
        return True
    space = data.find(b" ", 0, MAX_METHOD + 1)
    if space <= 0:
        return False
    if data[:space] in METHODS:
        return True
    end = data.find(b"\n", space)
    return end > 0 and start_line_ok(data[:end])


def decode_head(data: bytes, at: int = 0) -> tuple[Message, int]:
    """The message head starting at `at` (after any empty lines), and the offset just past
    its blank line."""
    while data.startswith(b"\n", at) or data.startswith(EMPTY_LINE, at):
        at += 1 if data[at] == 10 else 2
    end = data.find(b"\r\n\r\n", at)
    if end < 0:
        raise Truncated("http", need=len(data) - at + 1, have=len(data) - at)
    lines = data[at:end].split(b"\r\n")
    first, _, rest = lines[0].partition(b" ")
    raw_target, _, version = rest.rpartition(b" ")  # a sloppy client may leave spaces in the target
    if first.startswith(VERSION_PREFIX):
        code = rest[:3]
        if not (len(code) == 3 and code.isdigit()):
            raise Malformed("http", f"status line {lines[0][:60]!r}")
        request, method, target, status = False, "", "", int(code)
    elif is_method(first) and version.startswith(b"HTTP/") and raw_target:
        request, status = True, 0
        method, target = first.decode("ascii"), raw_target.decode("utf-8", "surrogateescape")
    else:
        raise Malformed("http", f"start line {lines[0][:60]!r}")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if colon and name and not name[:1].isspace():  # obsolete folding and junk are skipped
            headers.append((name.decode("latin-1").strip().lower(),
                            value.strip().decode("utf-8", "surrogateescape")))
    return Message(request, method, target, status, tuple(headers)), end + 4


def body_end(data: bytes, msg: Message, at: int) -> int | None:
    """Where the body that starts at `at` ends, or None when that is not in `data` (a
    response framed by closing the connection, a chunk cut off)."""
    if not msg.request and (msg.status < 200 or msg.status in NO_BODY_STATUS):
        return at
    if "chunked" in (msg.header("transfer-encoding") or "").lower():
        while True:
            eol = data.find(b"\r\n", at)
            size = data[at:eol].split(b";", 1)[0].strip()
            if eol < 0 or not size or len(size) > 16 or not all(c in HEX for c in size):
                return None
            if int(size, 16) == 0:
                trailer = data.find(b"\r\n\r\n", eol)  # trailers end with a blank line
                return trailer + 4 if trailer >= 0 else None
            at = eol + 2 + int(size, 16) + 2
    length = msg.header("content-length")
    if length is None:
        return at if msg.request else None
    if not (length.isascii() and length.isdigit()):
        raise Malformed("http", f"Content-Length {length[:40]!r}")
    end = at + int(length)
    return end if end <= len(data) else None


def messages(data: bytes) -> list[Message]:
    """Every message whose head is complete in `data`, in order; stops at a head cut off,
    at a body of unknown extent, or at bytes after a body that are not HTTP."""
    out: list[Message] = []
    at = 0
    while at < len(data) and (not out or starts_http(data[at:at + MAX_METHOD + 1])):
        if data.find(b"\r\n\r\n", at) < 0:
            break
        msg, at = decode_head(data, at)
        out.append(msg)
        end = body_end(data, msg, at)
        if end is None:
            break
        at = end
    return out
