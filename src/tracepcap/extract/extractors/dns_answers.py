"""Who sent each DNS answer, for the dns extractor (which decodes each message once and hands
its udp/53 responses here): `dns-answer-mac` facts, the source MAC each DNS server address
answered from, on the server's address; and `dns-answer-conflict` facts, a second answer to
the same query (same client, port, id and name) that names other addresses or came from
another MAC than the first — the shape of a forged answer racing the real one.

A resolver answers from one MAC (its own, or its router's when it is remote); answers in its
name from a second MAC are what an on-path spoofer sends. Extract only records what was seen;
the dns-spoofing finding weighs it against who owns the address.
"""

from __future__ import annotations

from collections import OrderedDict

from ..decoders import dns
from ..kinds import DNS_ANSWER_CONFLICT, DNS_ANSWER_MAC

MAX_PENDING = 4096  # answered queries remembered for a second answer, oldest forgotten first
ADDRESS_TYPES = (dns.A, dns.AAAA)


class Answers:
    """The answers seen so far, keyed by query, to tell a second, different answer."""

    __slots__ = ("emit", "_answered")

    def __init__(self, emit) -> None:
        self.emit = emit
        # (server, client, client port, id, name) -> (addresses, MAC, frame) of the first answer
        self._answered: OrderedDict[tuple, tuple[tuple[str, ...], str, int]] = OrderedDict()

    def answered(self, pkt, msg: dns.Message) -> None:
        """A message a server sent from udp/53."""
        if pkt.src_mac is None or not msg.response or msg.opcode != 0 or not msg.questions:
            return
        mac = pkt.src_mac.hex(":")
        self.emit.fact(pkt.src, DNS_ANSWER_MAC, mac, pkt.frame, pkt.ts)
        name = msg.questions[0].name.lower()
        addresses = tuple(sorted({record.value for record in msg.answers
                                  if record.rtype in ADDRESS_TYPES and record.value}))
        key = (pkt.src, pkt.dst, pkt.dport, msg.ident, name)
        first = self._answered.get(key)
        if first is None:
            self._answered[key] = (addresses, mac, pkt.frame)
            if len(self._answered) > MAX_PENDING:
                self._answered.popitem(last=False)
            return
        first_addresses, first_mac, first_frame = first
        if (addresses, mac) != (first_addresses, first_mac):
            self.emit.fact(pkt.src, DNS_ANSWER_CONFLICT,
                           f"{name} to {pkt.dst}: {_answer(first_addresses)} from {first_mac} "
                           f"(frame {first_frame}), then {_answer(addresses)} from {mac} "
                           f"(frame {pkt.frame})", pkt.frame, pkt.ts)


def _answer(addresses: tuple[str, ...]) -> str:
    return ", ".join(addresses) if addresses else "no address"
