"""`ssh-banner` facts: the identification line ("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3") each side
of an SSH connection sent, on the sender. Detected from content, not the port: a direction
whose first bytes are "SSH-". (A server may send other lines first, RFC 4253 4.2; those
rare servers are not searched.)"""

from __future__ import annotations

from ..decoders import ssh
from ..extractor import Extractor, StreamHead
from ..kinds import SSH_BANNER

NAME, VERSION = "ssh", "1"


class Ssh(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (SSH_BANNER,)
    TCP_STREAMS = True

    def observe_stream(self, head: StreamHead) -> None:
        data = head.data
        if not data.startswith(ssh.PREFIX) or (len(data) < ssh.MAX_LINE and b"\n" not in data):
            return  # not SSH, or the line was cut off with the capture
        banner = ssh.decode(data)
        self.emit.fact(head.src, SSH_BANNER, banner.line, head.first_frame, head.first_ts)
