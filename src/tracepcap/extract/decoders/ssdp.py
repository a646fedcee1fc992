"""SSDP (UPnP Device Architecture 2.0, section 1): HTTP-shaped messages over udp/1900.

Announcements are `NOTIFY * HTTP/1.1` with NT/USN/SERVER headers; answers to a search are
`HTTP/1.1 200 OK` with ST/USN/SERVER. Searches (`M-SEARCH`) say what a host looks for, not
what it is.
"""

from __future__ import annotations

from typing import NamedTuple

from . import Malformed

MAX_HEADERS = 64


class SsdpMessage(NamedTuple):
    start_line: str
    headers: dict[str, str]  # lower-cased names

    @property
    def kind(self) -> str:
        """"notify", "response" or "search"."""
        line = self.start_line.upper()
        if line.startswith("NOTIFY"):
            return "notify"
        if line.startswith("HTTP/"):
            return "response"
        return "search"


def decode(buf) -> SsdpMessage:
    text = bytes(buf).decode("latin-1")
    head = text.split("\r\n\r\n", 1)[0]
    lines = head.split("\r\n") if "\r\n" in head else head.split("\n")
    start = lines[0].strip()
    if not (start.upper().startswith(("NOTIFY ", "M-SEARCH ", "HTTP/1."))):
        raise Malformed("ssdp", f"start line {start[:40]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:MAX_HEADERS + 1]:
        name, sep, value = line.partition(":")
        if sep:
            headers.setdefault(name.strip().lower(), value.strip())
    return SsdpMessage(start, headers)
