"""`os-version` facts (source smb: the native OS string an SMB1 SESSION_SETUP_ANDX request
or response carries, e.g. "Windows 5.1", "Windows Server 2003 3790 Service Pack 2",
"Unix") and `smb-lanman` facts (its native LAN manager, e.g. "Samba 4.15.13"), on the
sender. REPORTED. Read from the first bytes of tcp/445 and tcp/139 connections.
"""

from __future__ import annotations

from ..decoders import smb
from ..extractor import Extractor, StreamHead
from ..kinds import OS_VERSION, SMB_LANMAN

NAME, VERSION = "smb", "1"
PORTS = frozenset((139, 445))


class Smb(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (OS_VERSION, SMB_LANMAN)
    TCP_STREAMS = True

    def observe_stream(self, head: StreamHead) -> None:
        if head.sport not in PORTS and head.dport not in PORTS:
            return
        for message in smb.messages(head.data):
            setup = smb.session_setup(message)
            if setup is None:
                continue
            if setup.native_os:
                self.emit.fact(head.src, OS_VERSION, setup.native_os, head.first_frame,
                               head.first_ts, source="smb")
            if setup.native_lanman:
                self.emit.fact(head.src, SMB_LANMAN, setup.native_lanman, head.first_frame,
                               head.first_ts)
