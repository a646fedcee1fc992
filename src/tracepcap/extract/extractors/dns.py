"""`hostname-claim` facts from name-service answers (DNS A/AAAA and PTR, mDNS and LLMNR
A/AAAA), `dns-query` facts: the names each host asked for over DNS (udp/53), and
`mdns-service` facts: the DNS-SD services a host announces in mDNS responses (PTR targets,
RFC 6763: service types and instance names such as "Office._ipp._tcp.local").

A claim lands on the address it names: an A/AAAA record's address (value: its owner
name), or the address a reverse PTR owner name stands for (value: the target). Names keep
the case they were sent in, without the trailing dot; queried names are lower-cased.
"""

from __future__ import annotations

from ..decoders import dns
from ..extractor import Extractor
from ..facts import FactKind, Grade

NAME, VERSION = "dns", "1"
HOSTNAME_CLAIM = FactKind("hostname-claim", Grade.REPORTED)
DNS_QUERY = FactKind("dns-query", Grade.MEASURED)
MDNS_SERVICE = FactKind("mdns-service", Grade.REPORTED)
DNS_PORT, MDNS_PORT, LLMNR_PORT = 53, 5353, 5355
OPCODE_QUERY = 0
ADDRESS_TYPES = (dns.A, dns.AAAA)
UNSPECIFIED = ("0.0.0.0", "::")  # a sinkhole's "no such host", not a host's name


class Dns(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, DNS_QUERY, MDNS_SERVICE)
    UDP_PORTS = frozenset((DNS_PORT, MDNS_PORT, LLMNR_PORT))

    def observe(self, pkt, flow) -> None:
        if not dns.plausible(pkt.payload):
            return  # udp/53 also carries tunnels and probes that are not DNS
        msg = dns.decode(pkt.payload)
        if msg.opcode != OPCODE_QUERY:
            return
        ports = (pkt.sport, pkt.dport)
        if MDNS_PORT in ports:
            if msg.response:  # RFC 6762 6: answers and additional records are all asserted
                self._addresses(pkt, msg.answers + msg.additional, "mdns")
                for record in msg.answers + msg.additional:
                    if record.rtype == dns.PTR and record.value and dns.reverse_address(record.name) is None:
                        self.emit.fact(pkt.src, MDNS_SERVICE, record.value.rstrip("."), pkt.frame, pkt.ts)
        elif LLMNR_PORT in ports:
            if msg.response:
                self._addresses(pkt, msg.answers, "llmnr")
        elif not msg.response:
            if pkt.dport == DNS_PORT:
                for question in msg.questions:
                    if question.name:
                        self.emit.fact(pkt.src, DNS_QUERY, question.name.lower().rstrip("."),
                                       pkt.frame, pkt.ts)
        elif pkt.sport == DNS_PORT:
            self._addresses(pkt, msg.answers, "dns-a")
            for record in msg.answers:
                if record.rtype == dns.PTR and record.value:
                    address = dns.reverse_address(record.name)
                    if address and address not in UNSPECIFIED:
                        self.emit.fact(address, HOSTNAME_CLAIM, record.value.rstrip("."),
                                       pkt.frame, pkt.ts, source="dns-ptr")

    def _addresses(self, pkt, records, source: str) -> None:
        for record in records:
            if record.rtype in ADDRESS_TYPES and record.name and record.value not in UNSPECIFIED:
                self.emit.fact(record.value, HOSTNAME_CLAIM, record.name.rstrip("."),
                               pkt.frame, pkt.ts, source=source)
