"""What NTLM authentication says about the hosts taking part ([MS-NLMP]), wherever it
rides over TCP (SMB, HTTP "Authorization: NTLM", SMTP/IMAP AUTH, DCE/RPC):
`hostname-claim` facts (source ntlm) from a server's CHALLENGE (its DNS and NetBIOS
computer names, on the server) and a client's AUTHENTICATE (its workstation name, on the
client), and `os-version` facts (source ntlm: the sender's Windows version as
"major.minor.build", e.g. "10.0.19041", which Samba imitates). REPORTED.

Messages are found by their signature in the first bytes of each TCP direction, in the
clear, or base64-encoded: after an HTTP "NTLM"/"Negotiate" token (SPNEGO-wrapped or not),
or on a line of their own (SMTP, IMAP and POP3 AUTH NTLM exchanges).
"""

from __future__ import annotations

import base64
import binascii
import re

from ..decoders import Truncated, ntlmssp
from ..extractor import Extractor, StreamHead
from ..kinds import HOSTNAME_CLAIM, OS_VERSION

NAME, VERSION = "ntlmssp", "1"
HTTP_TOKEN = re.compile(rb"(?:NTLM|Negotiate) ([A-Za-z0-9+/]{16,}={0,2})")
BASE64_SIGNATURE = b"TlRMTVNTUA"  # base64 of "NTLMSSP\0" at the start of a token
RAW_TOKEN = re.compile(rb"TlRMTVNTUA[A-Za-z0-9+/]*={0,2}")  # SMTP/IMAP/POP "334 ..." lines
MAX_MESSAGES = 16  # per stream head


class Ntlmssp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, OS_VERSION)
    TCP_STREAMS = True

    def observe_stream(self, head: StreamHead) -> None:
        data = head.data
        for at in ntlmssp.find(data, MAX_MESSAGES):
            self._read(data[at:], head)
        encoded = []
        if b"NTLM " in data or b"Negotiate " in data:
            encoded += [m.group(1) for m in HTTP_TOKEN.finditer(data)]
        if BASE64_SIGNATURE in data:
            encoded += [m.group(0) for m in RAW_TOKEN.finditer(data)]
        seen = set()
        for text in encoded[:MAX_MESSAGES]:
            try:
                token = base64.b64decode(text, validate=True)
            except (binascii.Error, ValueError):
                continue  # a token cut by the end of the head, or not base64 at all
            if token in seen:
                continue  # "NTLM TlRMTVNTUA..." matches both patterns
            seen.add(token)
            for at in ntlmssp.find(token, MAX_MESSAGES):
                self._read(token[at:], head)

    def _read(self, data: bytes, head: StreamHead) -> None:
        try:
            msg = ntlmssp.decode(data)
        except Truncated:
            if len(head.data) < self.limits.stream_head_bytes:
                raise
            return  # the head ends inside this message
        if msg is None:
            return
        frame, ts = head.first_frame, head.first_ts
        names = []
        if msg.msg_type == ntlmssp.CHALLENGE:
            names = [msg.names.get(ntlmssp.AV_DNS_COMPUTER), msg.names.get(ntlmssp.AV_NB_COMPUTER)]
        elif msg.msg_type == ntlmssp.AUTHENTICATE:
            names = [msg.workstation]
        for name in names:
            if name and name.strip("\x00 "):
                self.emit.fact(head.src, HOSTNAME_CLAIM, name.strip("\x00 "), frame, ts,
                               source="ntlm")
        if msg.version_text:
            self.emit.fact(head.src, OS_VERSION, msg.version_text, frame, ts, source="ntlm")
