"""`user-agent` facts (User-Agent of HTTP/1.x requests, on the client), `http-server`
facts (Server of responses, on the responder), `served` facts (a host that sent an HTTP
response answered a request on that port, handshake seen or not) and `hostname-claim`
facts (source http-host: the Host a request named, port removed, on the host that answered).

A Host header is only the client's belief about the server, so it is kept pending and
emitted at finish() for connections whose server side sent packets. Host values that are
address literals name no host and are left out.
"""

from __future__ import annotations

import ipaddress
from collections import deque

from ..decoders import http
from ..extractor import Extractor, StreamHead
from ..kinds import HOSTNAME_CLAIM, HTTP_SERVER, SERVED, USER_AGENT

NAME, VERSION = "http", "1"


def host_name(header: str | None) -> str | None:
    """The name in a Host header without its port ("www.example.com:8080" -> name), None
    for an empty value or an IPv4/IPv6 literal."""
    if not header:
        return None
    if header.startswith("["):
        return None  # "[2001:db8::1]:8080" (RFC 9110 7.2, RFC 3986 3.2.2)
    name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    name = name.strip().rstrip(".")
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return name or None
    return None


class Http(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, USER_AGENT, HTTP_SERVER, SERVED)
    TCP_STREAMS = True

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        # (flow, request sent a -> b, server address, host name, frame, ts); not the head
        # itself, which holds up to 16 KiB of data
        self._hosts: deque[tuple] = deque()

    def observe_stream(self, head: StreamHead) -> None:
        if not http.starts_http(head.data):
            return
        for msg in http.messages(head.data):
            if not msg.request and head.from_initiator is not True:  # an initiator answers nothing
                self.emit.fact(head.src, SERVED, f"tcp/{head.sport}", head.first_frame, head.first_ts)
            if msg.request:
                if agent := msg.header("user-agent"):
                    self.emit.fact(head.src, USER_AGENT, agent, head.first_frame, head.first_ts)
                if name := host_name(msg.header("host")):
                    if len(self._hosts) >= self.limits.max_pending:
                        self._hosts.popleft()
                        self.evicted += 1
                    from_a = head.src == head.flow.a and head.sport == head.flow.aport
                    self._hosts.append((head.flow, from_a, head.dst, name, head.first_frame,
                                        head.first_ts))
            elif server := msg.header("server"):
                self.emit.fact(head.src, HTTP_SERVER, server, head.first_frame, head.first_ts)

    def finish(self) -> None:
        for flow, from_a, server, name, frame, ts in self._hosts:
            if flow.pkts_ba if from_a else flow.pkts_ab:
                self.emit.fact(server, HOSTNAME_CLAIM, name, frame, ts, source="http-host")
