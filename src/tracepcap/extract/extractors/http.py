"""`user-agent` facts (User-Agent of HTTP/1.x requests, on the client), `http-server`
facts (Server of responses, on the responder), `served` facts (a host that sent an HTTP
response answered a request on that port, handshake seen or not) and `hostname-claim`
facts (source http-host: the Host a request named, port removed, on the host that answered).

Every message of a connection is read, on any port: the requests after the first on a
keep-alive or pipelined connection, and connections picked up mid-stream (no handshake in
the capture: reading starts at the first segment that begins like an HTTP message). Each
direction's bytes are followed in sequence order and framed by the message heads
(Content-Length, chunked transfer coding, bodiless statuses); a body whose end is unknown
(a response that ends with the connection) or lost bytes leave the direction waiting for a
segment that starts a message. Bytes that are not HTTP where a message should begin (a
stray line, a body longer than its head said, a start line that is not one, another
protocol's bytes before the first request) are skipped line by line up to the next line
that starts a message, as Zeek's line-by-line reader does; empty lines before a start line
are skipped. A direction is first read at a segment that begins with an upper-case letter or
an empty line and starts a message in one of its lines (a proxy's PROXY line may come first).
A method need not be registered (decoders/http.py). A response whose request
was not read (the capture picked the connection up late, or the request still waits on a
retransmission) is framed without knowing its method: when the bytes its Content-Length
promised begin with a status line instead, it was the answer to a HEAD, bodiless. Bounded per direction: a header block longer than
`http_header_bytes` is skipped, and past `max_http_messages_per_direction` messages the
direction is no longer read; both are counted in the manifest row. A message's witness
is the frame its head began in.

A Host header is only the client's belief about the server, so it is kept pending and
emitted at finish() for connections whose server side sent packets. Host values that are
address literals name no host and are left out.
"""

from __future__ import annotations

import ipaddress
from collections import deque

from ..decoders import Malformed, http
from ..decoders.tcp import FIN, RST
from ..extractor import Extractor
from ..kinds import HOSTNAME_CLAIM, HTTP_SERVER, SERVED, USER_AGENT
from ..segments import Followed, InOrder

# upper-case letters begin every method a request may have, and "H" a status line; empty
# lines may come before either
FIRST_BYTES = frozenset(http.UPPER) | frozenset(http.EMPTY_LINE)
START = http.MAX_METHOD + 3  # bytes `starts_http` needs to decide, past one empty line
BLANK_LINE, CRLF = b"\r\n\r\n", b"\r\n"
MAX_CHUNK_LINE = 1024  # a chunk-size line (with extensions) longer than this is not HTTP
MAX_UNANSWERED = 64  # request methods remembered per direction, to frame their answers
HEAD, BODY, CHUNK_SIZE, CHUNK_DATA, TRAILER, SEEK, DONE, SCAN = range(8)
FIRST_EMPTY = frozenset(http.EMPTY_LINE)
H2_PREFACE = b"PRI * HTTP/2.0"  # RFC 9113 3.4: a client speaking HTTP/2 from the start
SWITCHING = 101  # RFC 9110 15.2.2: after the empty line, both ways speak the upgraded protocol
ENDS = FIN | RST


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


def starts(data: bytes | memoryview, at: int = 0) -> bool:
    """Does a message start at `at` in `data`? (`http.starts_http`, reading the whole
    request line only for an unregistered method.)"""
    head = bytes(data[at:at + START])
    return http.starts_http(head) or (http.unregistered_start(head)
                                      and http.starts_http(bytes(data[at:at + http.LINE_WINDOW])))


def later_start(payload) -> bool:
    """Does a line after the first, in the first LINE_WINDOW bytes of a segment that does
    not start a message, start one?"""
    window = bytes(payload[:http.LINE_WINDOW])
    if b"HTTP/" not in window or window.startswith(H2_PREFACE):
        return False  # every start line names a version; after HTTP/2's preface come its frames
    at = window.find(b"\n") + 1
    while 0 < at < len(window):
        if starts(window, at):
            return True
        at = window.find(b"\n", at) + 1
    return False


def body_mode(msg: http.Message) -> tuple[int, int]:
    """(what follows the head, its length in bytes for BODY) by RFC 9112 6.3."""
    if not msg.request and (msg.status < 200 or msg.status in http.NO_BODY_STATUS):
        return HEAD, 0
    if "chunked" in (msg.header("transfer-encoding") or "").lower():
        return CHUNK_SIZE, 0
    length = msg.header("content-length")
    if length is None:
        return (HEAD, 0) if msg.request else (SEEK, 0)  # a response then ends with the connection
    if not (length.isascii() and length.isdigit()):
        raise Malformed("http", f"Content-Length {length[:40]!r}")
    return (BODY, int(length)) if int(length) else (HEAD, 0)


class _Direction:
    """One direction of an HTTP connection: its bytes in order, what they are now (a head,
    a body, a chunk...), the head or line being gathered and the frame it began in."""

    __slots__ = ("order", "mode", "buf", "remaining", "frame", "ts", "messages", "unanswered",
                 "line_start", "unasked", "early")

    def __init__(self, seq: int, waiting_bytes: int) -> None:
        self.order = InOrder(seq, waiting_bytes)
        self.mode, self.remaining, self.messages = HEAD, 0, 0
        self.line_start = False  # SCAN: the bytes read so far end a line
        self.unasked = False  # BODY of a response whose request was not read (module doc)
        self.early = 0  # responses read before their requests: those requests answer nothing more
        self.buf = bytearray()
        self.frame, self.ts = 0, 0.0  # a float: compiled, the attribute is typed by its first value
        # methods of the requests sent this way and not yet answered: a response to HEAD
        # has no body whatever its Content-Length says, one to CONNECT starts a tunnel
        self.unanswered: deque[str] = deque(maxlen=MAX_UNANSWERED)


class Http(Extractor):
    NAME = "http"
    VERSION = "3"
    KINDS = (HOSTNAME_CLAIM, USER_AGENT, HTTP_SERVER, SERVED)
    EVERY_TCP = True
    TCP_FIRST_BYTES = FIRST_BYTES

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._directions: Followed[_Direction] = Followed(limits.max_followed_directions,
                                                          track_syns=False)
        # (flow, request sent a -> b, server address, host name, frame, ts)
        self._hosts: deque[tuple] = deque()
        self._hosts_evicted = 0
        self._long_heads = self._past_limit = 0

    def observe(self, pkt, flow) -> None:
        # the pipeline hands over segments of the directions marked in flow.followed and
        # those starting with one of FIRST_BYTES: a direction not followed costs a look at
        # its start only for those few
        payload = pkt.payload
        from_a = pkt.sport == flow.aport and pkt.src == flow.a
        key = (flow, from_a)
        state = self._directions.states.get(key)
        if state is None:
            if not payload or payload[0] not in FIRST_BYTES:
                return
            first = starts(payload)
            if not first and not later_start(payload):
                return
            waiting = self.limits.tcp_waiting_bytes
            state = self._directions.start(key, lambda seq: _Direction(seq, waiting), pkt)
            flow.followed |= 1 if from_a else 2
            if not first:
                state.mode = SCAN  # another protocol's line (a proxy's PROXY line) comes first
        try:
            if payload and state.mode != DONE:
                data, lost = state.order.push(pkt.seq, payload)
                if lost:
                    state.mode = SEEK  # the lost bytes held where messages begin
                    state.buf.clear()
                if data:
                    self._feed(state, data, pkt, flow, key[1])
        finally:
            if pkt.flags & ENDS:
                self._directions.end(key)

    def _feed(self, state: _Direction, data: bytes, pkt, flow, from_a: bool) -> None:
        """Walk `data` (in order, right after what came before) through the messages."""
        at, n = 0, len(data)
        while at < n:
            mode = state.mode
            if mode in (BODY, CHUNK_DATA):
                if state.unasked:
                    state.unasked = False
                    if data.startswith(http.VERSION_PREFIX, at) and starts(data, at):
                        state.mode = HEAD  # no body: the answer to a HEAD (module doc)
                        continue
                take = min(state.remaining, n - at)
                state.remaining -= take
                at += take
                if not state.remaining:
                    state.mode = HEAD if mode == BODY else CHUNK_SIZE
            elif mode == HEAD:
                buf = state.buf
                if not buf:
                    while at < n and data[at] in FIRST_EMPTY:
                        at += 1  # empty lines before a start line
                    if at == n:
                        return
                    state.frame, state.ts = pkt.frame, pkt.ts
                    if n - at >= START and not starts(data, at):
                        state.mode, state.line_start = SCAN, True  # no message begins where one should
                        continue
                before = len(buf)
                buf += data[at:at + max(0, self.limits.http_header_bytes + 4 - before)]
                line_end = buf.find(b"\n")
                if line_end >= before and not http.start_line_ok(bytes(buf[:line_end])):
                    buf.clear()  # its first line is no start line: look from the next one
                    at += line_end + 1 - before
                    state.mode, state.line_start = SCAN, True
                    continue
                found = buf.find(BLANK_LINE, max(0, before - 3))
                if found < 0:
                    if len(buf) > self.limits.http_header_bytes:
                        self._long_heads += 1
                        buf.clear()
                        state.mode = SEEK
                    return
                at += found + 4 - before
                block = bytes(buf[:found + 4])
                buf.clear()
                if not self._message(state, block, pkt, flow, from_a):
                    return
            elif mode in (CHUNK_SIZE, TRAILER):
                buf = state.buf
                before = len(buf)
                buf += data[at:at + MAX_CHUNK_LINE]
                if mode == TRAILER and buf.startswith(CRLF):
                    stop = 2  # no trailer fields: the last chunk's empty line ends the message
                else:
                    found = buf.find(CRLF if mode == CHUNK_SIZE else BLANK_LINE, max(0, before - 3))
                    if found < 0:
                        if len(buf) >= MAX_CHUNK_LINE:
                            buf.clear()
                            state.mode = SEEK
                        return
                    stop = found + (2 if mode == CHUNK_SIZE else 4)
                at += stop - before
                line = bytes(buf[:stop - 2])
                buf.clear()
                if mode == TRAILER:
                    state.mode = HEAD
                    continue
                size = line.split(b";", 1)[0].strip()
                if not size or len(size) > 16 or not all(c in http.HEX for c in size):
                    state.mode = SEEK
                elif int(size, 16):
                    state.mode, state.remaining = CHUNK_DATA, int(size, 16) + 2  # and its CRLF
                else:
                    state.mode = TRAILER
            elif mode == SCAN:
                if state.line_start and starts(data, at):
                    state.mode = HEAD  # a line that starts a message: framing found again
                    continue
                line_end = data.find(b"\n", at)
                if line_end < 0:
                    state.line_start = False
                    return
                at, state.line_start = line_end + 1, True
            elif mode == SEEK and at == 0 and starts(data):
                state.mode = HEAD  # a segment that starts a message: framing found again
            else:
                return  # SEEK inside a segment, or DONE

    def _message(self, state: _Direction, block: bytes, pkt, flow, from_a: bool) -> bool:
        """Read one header block; False when the direction is no longer read."""
        state.messages += 1
        if state.messages > self.limits.max_http_messages_per_direction:
            self._past_limit += 1
            state.mode = DONE
            return False
        try:
            msg, _ = http.decode_head(block)
            state.mode, state.remaining = body_mode(msg)
        except Malformed:
            state.mode, state.line_start = SCAN, True  # the next message may follow its head
            raise
        frame, ts = state.frame, state.ts
        if msg.request:
            answering = self._directions.states.get((flow, not from_a))
            if answering is not None and answering.early:
                answering.early -= 1  # its answer was read already
            else:
                state.unanswered.append(msg.method)
            if agent := msg.header("user-agent"):
                self.emit.fact(pkt.src, USER_AGENT, agent, frame, ts)
            if name := host_name(msg.header("host")):
                if len(self._hosts) >= self.limits.max_pending:
                    self._hosts.popleft()
                    self._hosts_evicted += 1
                self._hosts.append((flow, from_a, pkt.dst, name, frame, ts))
            return True
        if msg.status == SWITCHING:  # the connection now speaks the protocol asked for
            asking = self._directions.states.get((flow, not from_a))
            if asking is not None:
                if asking.unanswered:
                    asking.unanswered.popleft()
                asking.mode = DONE
            state.mode = DONE
        elif msg.status >= 200:  # the final answer to the oldest request unanswered
            asking = self._directions.states.get((flow, not from_a))
            method = asking.unanswered.popleft() if asking is not None and asking.unanswered else None
            if method is None:
                state.unasked = state.mode == BODY
                state.early = min(state.early + 1, MAX_UNANSWERED)
            elif method == "HEAD":
                state.mode, state.remaining = HEAD, 0
            elif method == "CONNECT" and msg.status < 300 and asking is not None:
                state.mode = asking.mode = DONE  # what follows both ways is the tunnelled protocol
        initiator = flow.initiator
        if initiator is None or initiator != ("a" if from_a else "b"):  # an initiator answers nothing
            self.emit.fact(pkt.src, SERVED, f"tcp/{pkt.sport}", frame, ts)
        if server := msg.header("server"):
            self.emit.fact(pkt.src, HTTP_SERVER, server, frame, ts)
        return True

    def finish(self) -> None:
        for flow, from_a, server, name, frame, ts in self._hosts:
            if flow.pkts_ba if from_a else flow.pkts_ab:
                self.emit.fact(server, HOSTNAME_CLAIM, name, frame, ts, source="http-host")
        self.evicted = self._hosts_evicted + self._directions.evicted
        parts = []
        if self._long_heads:
            parts.append(f"{self._long_heads} header blocks longer than "
                         f"{self.limits.http_header_bytes} bytes skipped")
        if self._past_limit:
            parts.append(f"{self._past_limit} connection directions not read past "
                         f"{self.limits.max_http_messages_per_direction} messages")
        self.note = "; ".join(parts) or None
