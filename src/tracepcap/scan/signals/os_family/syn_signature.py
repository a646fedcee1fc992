"""The shape of a host's TCP SYNs and SYN+ACKs (`tcp-syn-signature`, `tcp-synack-signature`,
MEASURED), matched against p0f's signature database (scan/p0f.py: Debian's p0f package,
LGPL-2.1, read from /etc/p0f/p0f.fp; no file, no vote, one log line): which TCP stack sent
them. The SYNs a host opens with are matched against p0f's [tcp:request] signatures, the
SYN+ACKs it answers with against [tcp:response]; its initial TTL (from its main TTL) must
agree with the signature's when known. Packet crafters (scapy's bare 8192-byte SYN, nmap)
match nothing that names a system and do not vote.

A stack can run under several families (Android and ChromeOS run the Linux kernel, iOS
and macOS share XNU): the signature then votes for each, so what the host reports decides
among them, and when nothing does the answer is their parent (Linux-based, Apple).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from ....extract.kinds import TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE, TTL
from ...context import Fact, HostFacts, initial_ttl
from ...p0f import Database, Signature, database, split_signature
from ...vote import Vote

READS = (TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE)  # it votes only from these: not run for a host with none
CONSULTS = (TTL,)  # read only beside a kind of READS

WEIGHT = 40  # measured from the packets themselves: outweighs any one thing a host says
LINUX_KERNEL, APPLE = ("Linux", "Android", "ChromeOS"), ("macOS", "iOS")
# p0f's system names -> the os-family labels that run that stack, and the stack in words
FAMILIES = {
    "Linux": (LINUX_KERNEL, "the Linux kernel"),
    "Windows": (("Windows",), "the Windows stack"),
    "Mac OS X": (APPLE, "the Apple (XNU) stack"),
    "MacOS X": (APPLE, "the Apple (XNU) stack"),
    "iOS": (APPLE, "the Apple (XNU) stack"),
    "FreeBSD": (("BSD",), "FreeBSD"),
    "OpenBSD": (("BSD",), "OpenBSD"),
    "NetBSD": (("BSD",), "NetBSD"),
}
KINDS = ((TCP_SYN_SIGNATURE, "syn", "TCP SYN"), (TCP_SYNACK_SIGNATURE, "synack", "TCP SYN+ACK"))


def stack_of(signature: str, ittl: int | None = None, direction: str = "syn"
             ) -> tuple[tuple[str, ...], str, Signature] | None:
    """(families, stack, p0f signature) for a "window:mss:wscale:options" value, or None:
    unknown, a tool, a system outside the os-family vocabulary, or no p0f database."""
    db = database()
    return None if db is None else _stack_in(db, signature, ittl, direction)


@lru_cache(maxsize=1 << 12)  # a capture's hosts share a few stacks: each signature matched once
def _stack_in(db: Database, signature: str, ittl: int | None, direction: str
              ) -> tuple[tuple[str, ...], str, Signature] | None:
    parts = split_signature(signature)
    if parts is None:
        return None
    found = db.match(direction, *parts, ittl)
    if found is None or found.label.name not in FAMILIES:
        return None
    families, stack = FAMILIES[found.label.name]
    return families, stack, found


def stacks(host: HostFacts) -> Iterator[tuple[Fact, str, tuple[str, ...], str, Signature]]:
    """(fact, what it is, families, stack, p0f signature) for each signature that matched,
    SYNs first, each kind earliest first."""
    main = host.main_ttl
    ittl = initial_ttl(int(main.value)) if main is not None else None
    for kind, direction, what in KINDS:
        for fact in sorted(host.facts(kind), key=lambda f: (f.first_frame, f.value)):
            if found := stack_of(fact.value, ittl, direction):
                yield fact, what, *found


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact, what, families, stack, sig in stacks(host):
        shared = f", which {', '.join(families[:-1])} and {families[-1]} share" if len(families) > 1 else ""
        for label in families:
            if label not in voted:
                voted.add(label)
                yield Vote(label, WEIGHT, f"its {what} signature {fact.value}, first in frame "
                           f"{fact.first_frame}, is {stack}'s{shared} (p0f: {sig.label}) (+{WEIGHT})",
                           fact.grade, (fact.first_frame,))
