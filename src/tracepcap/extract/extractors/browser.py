"""Facts from Windows Browser host and local-master announcements (udp/138): the host's
NetBIOS name (`hostname-claim`, source browser), the OS version it reports (`os-version`,
source browser, e.g. "Windows 10.0") and its server-type bits (`browser-server-type`,
e.g. "workstation,server,nt-workstation"), all on the sender. REPORTED: a host
describes itself, and Samba announces a Windows version too."""

from __future__ import annotations

from ..decoders import browser
from ..extractor import Extractor
from ..kinds import BROWSER_SERVER_TYPE, HOSTNAME_CLAIM, OS_VERSION

NAME, VERSION = "browser", "1"
DATAGRAM_PORT = 138


class Browser(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, OS_VERSION, BROWSER_SERVER_TYPE)
    UDP_PORTS = frozenset((DATAGRAM_PORT,))

    def observe(self, pkt, flow) -> None:
        if pkt.sport != DATAGRAM_PORT:
            return
        found = browser.decode(pkt.payload)
        if found is None or not found.name:
            return
        self.emit.fact(pkt.src, HOSTNAME_CLAIM, found.name, pkt.frame, pkt.ts, source="browser")
        if found.os_major:
            self.emit.fact(pkt.src, OS_VERSION, f"Windows {found.os_major}.{found.os_minor}",
                           pkt.frame, pkt.ts, source="browser")
        if found.roles:
            self.emit.fact(pkt.src, BROWSER_SERVER_TYPE, ",".join(found.roles), pkt.frame, pkt.ts)
