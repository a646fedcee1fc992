"""`hostname-claim` facts from name-service answers (DNS A/AAAA and PTR, mDNS and LLMNR
A/AAAA) and from dynamic updates (source dns-update: RFC 2136 UPDATEs in which a host
registers a name for its own address), `dns-query` facts: the names each host asked for
over DNS (udp/53 and tcp/53), and `mdns-service` facts: what a host announces in mDNS
responses (RFC 6763: PTR targets, service types and instance names such as
"Office._ipp._tcp.local", and the model a `_device-info._tcp` TXT record gives, e.g.
"model=MacBookPro18,3").

A claim lands on the address it names: an A/AAAA record's address (value: its owner
name), or the address a reverse PTR owner name stands for (value: the target). Names keep
the case they were sent in, without the trailing dot; queried names are lower-cased.

`resolved-from` facts: a name asked for over DNS that the answer resolved to an address only
through CNAMEs (`api.dch.dlink.com` -> CNAME `...elb.amazonaws.com` -> A 18.194.1.2), on that
address; the A record's own name is its `hostname-claim`. With both, Scan can tell the name a
host looked up from the address it then contacted (scan/clouds.py).

`dns-zone` facts: the zones a host serves, from zone maintenance: it sent a NOTIFY for the
zone (source dns-notify: its primary, RFC 1996) or answered one (dns-notify-ack: a
secondary), answered a zone transfer (dns-transfer, AXFR RFC 5936 / IXFR RFC 1995) or
asked for one (dns-transfer-request: a secondary). The A/AAAA and reverse PTR records a
transfer carries are claims like any answer's (source dns-zone-transfer); records an IXFR
deletes are left out.

DNS over TCP (tcp/53) is read message by message for the whole connection, in sequence
order: several length-prefixed messages per segment, one message over several segments,
a zone transfer of many messages. A message's witness is the frame it began in. Where
message boundaries are unknown (bytes were lost, a message was not DNS, or the connection was
picked up mid-stream, without its SYN, at a segment that does not start a message), reading
resumes at the next segment that starts one: a length, then a DNS message that decodes whole
(or, when it runs past the segment, whose header and question do), as Zeek's reader of a
resolver's long-lived connection does after a gap.
"""

from __future__ import annotations

from ..decoders import dns
from ..decoders.tcp import FIN, RST
from ..extractor import Extractor
from ..kinds import (
    DNS_ANSWER_CONFLICT,
    DNS_ANSWER_MAC,
    DNS_QUERY,
    DNS_ZONE,
    HOSTNAME_CLAIM,
    MDNS_SERVICE,
    RESOLVED_FROM,
)
from ..segments import Followed, InOrder
from .dns_answers import Answers

DNS_PORT, MDNS_PORT, LLMNR_PORT = 53, 5353, 5355
OPCODE_NOTIFY = 4
MAX_CHAIN = 8  # CNAMEs followed from the question's name (resolvers stop near this too)
AXFR, IXFR, SOA = 252, 251, 6
TRANSFER_TYPES = {AXFR: "axfr", IXFR: "ixfr"}
PROTO_TCP = 6
ADDRESS_TYPES = (dns.A, dns.AAAA)
UNSPECIFIED = ("0.0.0.0", "::")  # a sinkhole's "no such host", not a host's name
DEVICE_INFO = "._device-info._tcp."  # RFC 6763-style record Apple devices describe themselves in
MODEL_KEY = "model="


def starts_message(data) -> bool:
    """Does a segment's `data` start a length-prefixed DNS message (module doc)?"""
    if len(data) < dns.TCP_LENGTH.size:
        return False
    length = dns.TCP_LENGTH.unpack_from(data, 0)[0]
    if len(data) == dns.TCP_LENGTH.size:  # a client that writes the length on its own
        return length >= dns.HEADER.size
    message = bytes(data[dns.TCP_LENGTH.size:dns.TCP_LENGTH.size + length])
    if length < dns.HEADER.size or not dns.plausible(message):
        return False
    msg, error = dns.read(message)
    if len(message) == length:
        return error is None
    return len(msg.questions) == 1 and dns.HEADER.unpack_from(message, 0)[2] == 1


class _Transfer:
    """A zone transfer being answered: its kind, zone and the SOA records seen so far
    (in an IXFR, an even count opens deletions, an odd one additions: RFC 1995 4)."""

    __slots__ = ("qtype", "zone", "soas")

    def __init__(self, qtype: int, zone: str) -> None:
        self.qtype, self.zone, self.soas = qtype, zone, 0


class _TcpDirection:
    """One direction of a DNS-over-TCP connection: its bytes in order, the message being
    gathered and the frame it began in, the zone transfer it is answering."""

    __slots__ = ("order", "buf", "frame", "ts", "transfer", "lost")

    def __init__(self, pkt, seq: int, waiting_bytes: int) -> None:
        self.order = InOrder(seq, waiting_bytes)
        self.buf = bytearray()
        self.frame, self.ts = pkt.frame, pkt.ts
        self.transfer: _Transfer | None = None
        self.lost = False  # bytes went missing or were not DNS: no message boundary to trust


class Dns(Extractor):
    NAME = "dns"
    VERSION = "6"
    KINDS = (HOSTNAME_CLAIM, DNS_QUERY, MDNS_SERVICE, DNS_ZONE, RESOLVED_FROM, DNS_ANSWER_MAC, DNS_ANSWER_CONFLICT)
    UDP_PORTS = frozenset((DNS_PORT, MDNS_PORT, LLMNR_PORT))
    TCP_PORTS = frozenset((DNS_PORT,))

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        self._tcp: Followed[_TcpDirection] = Followed(limits.max_followed_directions)
        self._answers = Answers(self.emit)

    def observe(self, pkt, flow) -> None:
        if pkt.proto == PROTO_TCP:
            self._segment(pkt, flow)
            return
        if not dns.plausible(pkt.payload):
            return  # udp/53 also carries tunnels and probes that are not DNS
        msg = dns.decode(pkt.payload)
        if pkt.sport == DNS_PORT:
            self._answers.answered(pkt, msg)
        self._read(msg, pkt.src, pkt.sport, pkt.dport, pkt.frame, pkt.ts, None)

    def _segment(self, pkt, flow) -> None:
        key, state = self._tcp.find(pkt, flow)
        try:
            if pkt.payload:
                if state is None:
                    waiting = self.limits.tcp_waiting_bytes
                    mid_stream = key not in self._tcp.syns
                    state = self._tcp.start(key, lambda seq: _TcpDirection(pkt, seq, waiting), pkt)
                    self.evicted = self._tcp.evicted
                    if mid_stream and not starts_message(pkt.payload):
                        state.lost = True  # picked up inside a message: wait for one to start
                elif state.lost and starts_message(pkt.payload):
                    state.order = InOrder(pkt.seq, self.limits.tcp_waiting_bytes)  # boundary found again
                    state.buf.clear()
                    state.transfer, state.lost = None, False
                if not state.lost:
                    data, lost = state.order.push(pkt.seq, pkt.payload)
                    if lost:
                        state.lost = True  # a message boundary went with the lost bytes
                    elif data:
                        self._messages(state, data, pkt)
        finally:
            if pkt.flags & (FIN | RST):
                self._tcp.end(key)

    def _messages(self, state: _TcpDirection, data: bytes, pkt) -> None:
        """Read each message `data` completes (RFC 1035 4.2.2: each after its length)."""
        if not state.buf:
            state.frame, state.ts = pkt.frame, pkt.ts
        buf = state.buf
        buf += data
        while len(buf) >= dns.TCP_LENGTH.size:
            length = dns.TCP_LENGTH.unpack_from(buf, 0)[0]
            end = dns.TCP_LENGTH.size + length
            if len(buf) < end:
                return
            message = bytes(buf[dns.TCP_LENGTH.size:end])
            del buf[:end]
            frame, ts = state.frame, state.ts
            state.frame, state.ts = pkt.frame, pkt.ts  # the next message begins in this segment
            if not dns.plausible(message):
                state.lost = True  # not DNS after all: stop rather than read the rest as DNS
                buf.clear()
                return
            self._read(dns.decode(message), pkt.src, pkt.sport, pkt.dport, frame, ts, state)

    def _read(self, msg: dns.Message, src: str, sport: int, dport: int, frame: int,
              ts: float, tcp: _TcpDirection | None) -> None:
        if msg.opcode == dns.OPCODE_UPDATE:
            if not msg.response and dport == DNS_PORT:
                self._update(msg, src, frame, ts)
            return
        if msg.opcode == OPCODE_NOTIFY:
            zone = msg.questions[0].name.rstrip(".") if msg.questions else ""
            if zone:
                source = "dns-notify-ack" if msg.response else "dns-notify"
                self.emit.fact(src, DNS_ZONE, zone, frame, ts, source=source)
            return
        if msg.opcode != dns.OPCODE_QUERY:
            return
        if msg.response and sport == DNS_PORT:
            transfer = tcp.transfer if tcp is not None and not msg.questions else None
            if msg.questions and msg.questions[0].qtype in TRANSFER_TYPES:
                transfer = _Transfer(msg.questions[0].qtype, msg.questions[0].name.rstrip("."))
            if tcp is not None:
                tcp.transfer = transfer
            if transfer is not None:
                self._transfer(msg, src, transfer, frame, ts)
                return
        elif not msg.response and dport == DNS_PORT and msg.questions \
                and msg.questions[0].qtype in TRANSFER_TYPES and msg.questions[0].name:
            self.emit.fact(src, DNS_ZONE, msg.questions[0].name.rstrip("."), frame, ts,
                           source="dns-transfer-request")
        if MDNS_PORT in (sport, dport):
            if msg.response:  # RFC 6762 6: answers and additional records are all asserted
                self._addresses(msg.answers + msg.additional, "mdns", frame, ts)
                self._services(msg.answers + msg.additional, src, frame, ts)
        elif LLMNR_PORT in (sport, dport):
            if msg.response:
                self._addresses(msg.answers, "llmnr", frame, ts)
        elif not msg.response:
            if dport == DNS_PORT:
                for question in msg.questions:
                    if question.name:
                        self.emit.fact(src, DNS_QUERY, question.name.lower().rstrip("."), frame, ts)
        elif sport == DNS_PORT:
            self._addresses(msg.answers, "dns-a", frame, ts)
            self._aliased(msg, frame, ts)
            for record in msg.answers:
                if record.rtype == dns.PTR and record.value:
                    address = dns.reverse_address(record.name)
                    if address and address not in UNSPECIFIED:
                        self.emit.fact(address, HOSTNAME_CLAIM, record.value.rstrip("."),
                                       frame, ts, source="dns-ptr")

    def _transfer(self, msg: dns.Message, server: str, transfer: _Transfer, frame: int,
                  ts: float) -> None:
        """One message of a zone transfer's answer: the server holds the zone, and the
        records it adds are claims."""
        if msg.rcode or not msg.answers:
            return  # refused, not authoritative, or nothing to transfer
        if transfer.zone:
            self.emit.fact(server, DNS_ZONE, transfer.zone, frame, ts, source="dns-transfer")
        added = []
        for record in msg.answers:
            if record.rtype == SOA:
                transfer.soas += 1
            elif transfer.qtype == AXFR or transfer.soas % 2:
                added.append(record)
        self._addresses(added, "dns-zone-transfer", frame, ts)
        for record in added:
            if record.rtype == dns.PTR and record.value:
                address = dns.reverse_address(record.name)
                if address and address not in UNSPECIFIED:
                    self.emit.fact(address, HOSTNAME_CLAIM, record.value.rstrip("."), frame, ts,
                                   source="dns-zone-transfer")

    def _addresses(self, records, source: str, frame: int, ts: float) -> None:
        for record in records:
            if record.rtype in ADDRESS_TYPES and record.name and record.value \
                    and record.value not in UNSPECIFIED:
                self.emit.fact(record.value, HOSTNAME_CLAIM, record.name.rstrip("."),
                               frame, ts, source=source)

    def _aliased(self, msg: dns.Message, frame: int, ts: float) -> None:
        """The question's name on each address its answer reached only through CNAMEs."""
        if not msg.questions or not msg.questions[0].name:
            return
        asked = msg.questions[0].name.lower().rstrip(".")
        names = {asked}
        for _ in range(MAX_CHAIN):  # a chain, in any order; a loop ends here
            more = {r.value.lower().rstrip(".") for r in msg.answers
                    if r.rtype == dns.CNAME and r.value and r.name and r.name.lower().rstrip(".") in names}
            if more <= names:
                break
            names |= more
        if len(names) == 1:
            return
        for record in msg.answers:
            if (record.rtype in ADDRESS_TYPES and record.name and record.value and record.value not in UNSPECIFIED
                    and record.name.lower().rstrip(".") in names and record.name.lower().rstrip(".") != asked):
                self.emit.fact(record.value, RESOLVED_FROM, asked, frame, ts, source="dns")

    def _services(self, records, src: str, frame: int, ts: float) -> None:
        for record in records:
            if record.rtype == dns.PTR and record.value and dns.reverse_address(record.name) is None:
                self.emit.fact(src, MDNS_SERVICE, record.value.rstrip("."), frame, ts)
            elif record.rtype == dns.TXT and DEVICE_INFO in record.name.lower() + ".":
                for entry in dns.txt_strings(record.rdata):
                    if entry.lower().startswith(MODEL_KEY) and len(entry) > len(MODEL_KEY):
                        self.emit.fact(src, MDNS_SERVICE, entry, frame, ts)

    def _update(self, msg: dns.Message, src: str, frame: int, ts: float) -> None:
        """RFC 2136 2.5: the update section rides where answers' authority would; records
        of class IN add. A name a host adds for its own address is the host's claim."""
        for record in msg.authority:
            if record.rclass != dns.CLASS_IN or not record.value:
                continue
            if record.rtype in ADDRESS_TYPES and record.value == src and record.name:
                self.emit.fact(src, HOSTNAME_CLAIM, record.name.rstrip("."), frame, ts,
                               source="dns-update")
            elif record.rtype == dns.PTR and dns.reverse_address(record.name) == src:
                self.emit.fact(src, HOSTNAME_CLAIM, record.value.rstrip("."), frame, ts,
                               source="dns-update")
