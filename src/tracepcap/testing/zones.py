"""Zone maintenance traffic: NOTIFY (RFC 1996), full and incremental zone transfers (AXFR
RFC 5936, IXFR RFC 1995), each message a DNS payload (wrap with `dns_update.dns_tcp` for
TCP). A transfer's answer is split over several messages, as servers send large zones.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from tracepcap.testing.names import AA, QR, Record, dns_message, encode_name

OPCODE_NOTIFY = 4
AXFR, IXFR = 252, 251


def soa(zone: str, serial: int, ttl: int = 3600) -> Record:
    """The zone's SOA record (RFC 1035 3.3.13), uncompressed rdata."""
    rdata = (encode_name("ns1." + zone) + encode_name("hostmaster." + zone)
             + struct.pack("!IIIII", serial, 7200, 3600, 1209600, 300))
    return (zone, "SOA", rdata, ttl)


def notify(ident: int, zone: str, serial: int | None = None, response: bool = False) -> bytes:
    """A NOTIFY for `zone` (its new SOA as an answer when `serial` is given), or its answer."""
    flags = OPCODE_NOTIFY << 11 | AA | (QR if response else 0)
    answers = [soa(zone, serial)] if serial is not None and not response else []
    return dns_message(ident, flags, [(zone, "SOA")], answers)


def transfer_request(ident: int, zone: str, have_serial: int | None = None) -> bytes:
    """An AXFR request, or an IXFR request from a secondary holding `have_serial`."""
    if have_serial is None:
        return dns_message(ident, 0, [(zone, AXFR)])
    return dns_message(ident, 0, [(zone, IXFR)], authority=[soa(zone, have_serial)])


def axfr_response(ident: int, zone: str, serial: int, records: Sequence[Record],
                  per_message: int = 50) -> list[bytes]:
    """The zone between two copies of its SOA, `per_message` records a message; only the
    first message repeats the question (RFC 5936 2.2)."""
    rrs = [soa(zone, serial), *records, soa(zone, serial)]
    chunks = [rrs[i:i + per_message] for i in range(0, len(rrs), per_message)]
    return [dns_message(ident, QR | AA, [(zone, AXFR)] if i == 0 else [], chunk)
            for i, chunk in enumerate(chunks)]


def ixfr_response(ident: int, zone: str, old: int, new: int, deleted: Sequence[Record],
                  added: Sequence[Record]) -> bytes:
    """One difference sequence (RFC 1995 4): new SOA, old SOA, deletions, new SOA,
    additions, new SOA."""
    rrs = [soa(zone, new), soa(zone, old), *deleted, soa(zone, new), *added, soa(zone, new)]
    return dns_message(ident, QR | AA, [(zone, IXFR)], rrs)
