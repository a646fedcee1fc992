"""SSH protocol version exchange (RFC 4253 4.2): the identification line each side sends
first, "SSH-protoversion-softwareversion SP comments CR LF", at most 255 characters."""

from __future__ import annotations

from typing import NamedTuple

from . import Malformed, Truncated

PREFIX = b"SSH-"
MAX_LINE = 255  # RFC 4253 4.2, CR LF included


class Identification(NamedTuple):
    line: str  # the whole line without its CR LF, e.g. "SSH-2.0-OpenSSH_8.9 Ubuntu-3"
    proto: str  # "2.0" (or "1.99": a server that also speaks SSH 1)
    software: str
    comment: str


def decode(data: bytes) -> Identification:
    """The identification line at the start of `data`. A bare LF ends it too (RFC 4253
    4.2 asks implementations to accept that from old software)."""
    if not data.startswith(PREFIX):
        if PREFIX.startswith(data):
            raise Truncated("ssh", need=len(PREFIX), have=len(data))
        raise Malformed("ssh", f"identification does not start with SSH-: {data[:16]!r}")
    end = data.find(b"\n", 0, MAX_LINE)
    if end < 0:
        if len(data) < MAX_LINE:
            raise Truncated("ssh", need=len(data) + 1, have=len(data))
        raise Malformed("ssh", f"no line end within {MAX_LINE} bytes")
    line = data[:end].rstrip(b"\r").decode("utf-8", "surrogateescape")
    proto, dash, rest = line[len(PREFIX):].partition("-")
    if not dash or not proto or not rest:
        raise Malformed("ssh", f"identification {line[:60]!r}")
    software, _, comment = rest.partition(" ")
    return Identification(line, proto, software, comment)
