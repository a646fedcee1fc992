"""The Server header of a host's HTTP responses (REPORTED): IIS and the Windows HTTP API
(http.sys) run on Windows only; distribution builds of Apache and nginx add their name in
parentheses ("nginx/1.24.0 (Ubuntu)", "Apache/2.4.58 (Win64)"); printers and network gear
answer with their embedded servers. An administrator can rewrite it, and a reverse proxy
may pass its backend's through, so it weighs less than the host's SSH banner."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import HTTP_SERVER
from ...context import HostFacts
from ...vote import Vote

READS = (HTTP_SERVER,)  # it votes only from these: not run for a host with none

WEIGHT = 20
# token in the header (lower case) -> (family, what it names); first match wins
SERVER_TOKENS = (
    ("microsoft-iis", "Windows", "Microsoft IIS"),
    ("microsoft-httpapi", "Windows", "the Windows HTTP API"),
    ("(win64)", "Windows", "a Windows build"), ("(win32)", "Windows", "a Windows build"),
    ("(ubuntu)", "Linux", "Ubuntu"), ("(debian)", "Linux", "Debian"), ("(centos)", "Linux", "CentOS"),
    ("(red hat)", "Linux", "Red Hat"), ("(fedora)", "Linux", "Fedora"), ("(raspbian)", "Linux", "Raspbian"),
    ("(freebsd)", "BSD", "FreeBSD"),
    ("cisco-ios", "Network OS", "Cisco IOS"),
    ("hp http server", "Embedded", "HP's embedded web server"),
    ("rompager", "Embedded", "RomPager, an embedded web server"),
    ("goahead", "Embedded", "GoAhead, an embedded web server"),
)


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(HTTP_SERVER), key=lambda f: (f.first_frame, f.value)):
        lowered = fact.value.lower()
        found = next(((label, what) for token, label, what in SERVER_TOKENS if token in lowered), None)
        if found and found[0] not in voted:
            voted.add(found[0])
            shown = fact.value if len(fact.value) <= 80 else fact.value[:77].rsplit(" ", 1)[0] + "..."
            yield Vote(found[0], WEIGHT, f"its HTTP Server header {shown}, first in frame "
                       f"{fact.first_frame}, names {found[1]} (+{WEIGHT})", fact.grade, (fact.first_frame,))
