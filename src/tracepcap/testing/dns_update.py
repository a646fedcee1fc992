"""DNS dynamic updates (RFC 2136) and DNS over TCP framing (RFC 1035 4.2.2).

An UPDATE reuses the message layout with other section names: zone (the question
section, type SOA), prerequisites (answers), updates (authority), additional. Records to
add are class IN; "delete all records of a type at a name" is class ANY with no rdata.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from tracepcap.testing.names import CLASS_IN, QR, RR, _Message, _type

OPCODE_UPDATE = 5
CLASS_ANY = 255


def dns_update(ident: int, zone: str, adds: Sequence[tuple] = (),
               deletes: Sequence[tuple[str, str | int]] = (), response: bool = False) -> bytes:
    """An UPDATE for `zone`: each (name, type) in `deletes` removes that RRset, then each
    (name, type, value, ttl) in `adds` adds a record (RFC 2136 2.5.2, 2.5.1)."""
    flags = OPCODE_UPDATE << 11 | (QR if response else 0)
    msg = _Message(ident, flags, (1, 0, 0 if response else len(deletes) + len(adds), 0))
    msg.question(zone, "SOA")
    if not response:
        for name, rtype in deletes:
            msg.name(name)
            msg.buf += RR.pack(_type(rtype), CLASS_ANY, 0, 0)
        for rec in adds:
            msg.record((*rec[:4], CLASS_IN))
    return msg.done()


def dns_tcp(*messages: bytes) -> bytes:
    """Messages as written on a TCP connection, each after its 2-byte length."""
    return b"".join(struct.pack("!H", len(m)) + m for m in messages)
