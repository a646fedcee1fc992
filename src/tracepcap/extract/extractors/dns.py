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
DNS over TCP is read from the first bytes of each tcp/53 direction: several length-
prefixed messages per segment, one message over several segments.
"""

from __future__ import annotations

from ..decoders import Truncated, dns
from ..extractor import Extractor, StreamHead
from ..kinds import DNS_QUERY, HOSTNAME_CLAIM, MDNS_SERVICE

NAME, VERSION = "dns", "2"
DNS_PORT, MDNS_PORT, LLMNR_PORT = 53, 5353, 5355
ADDRESS_TYPES = (dns.A, dns.AAAA)
UNSPECIFIED = ("0.0.0.0", "::")  # a sinkhole's "no such host", not a host's name
DEVICE_INFO = "._device-info._tcp."  # RFC 6763-style record Apple devices describe themselves in
MODEL_KEY = "model="


class Dns(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, DNS_QUERY, MDNS_SERVICE)
    UDP_PORTS = frozenset((DNS_PORT, MDNS_PORT, LLMNR_PORT))
    TCP_STREAMS = True

    def observe(self, pkt, flow) -> None:
        if not dns.plausible(pkt.payload):
            return  # udp/53 also carries tunnels and probes that are not DNS
        self._read(dns.decode(pkt.payload), pkt.src, pkt.sport, pkt.dport, pkt.frame, pkt.ts)

    def observe_stream(self, head: StreamHead) -> None:
        if DNS_PORT not in (head.sport, head.dport):
            return
        for message in dns.tcp_messages(head.data):
            if not dns.plausible(message):
                return  # not DNS after all: stop rather than read the rest as DNS
            try:
                msg = dns.decode(message)
            except Truncated:
                if len(head.data) < self.limits.stream_head_bytes:
                    raise
                return  # the head ends inside this message
            self._read(msg, head.src, head.sport, head.dport, head.first_frame, head.first_ts)

    def _read(self, msg: dns.Message, src: str, sport: int, dport: int, frame: int,
              ts: float) -> None:
        if msg.opcode == dns.OPCODE_UPDATE:
            if not msg.response and dport == DNS_PORT:
                self._update(msg, src, frame, ts)
            return
        if msg.opcode != dns.OPCODE_QUERY:
            return
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
            for record in msg.answers:
                if record.rtype == dns.PTR and record.value:
                    address = dns.reverse_address(record.name)
                    if address and address not in UNSPECIFIED:
                        self.emit.fact(address, HOSTNAME_CLAIM, record.value.rstrip("."),
                                       frame, ts, source="dns-ptr")

    def _addresses(self, records, source: str, frame: int, ts: float) -> None:
        for record in records:
            if record.rtype in ADDRESS_TYPES and record.name and record.value \
                    and record.value not in UNSPECIFIED:
                self.emit.fact(record.value, HOSTNAME_CLAIM, record.name.rstrip("."),
                               frame, ts, source=source)

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
