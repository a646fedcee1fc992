"""The shape of a host's TCP SYNs (`tcp-syn-signature`, MEASURED): which TCP stack sent them.

The layouts are the option orders p0f v3 documents in p0f.fp ([tcp:request]), checked
against the stacks' defaults: Windows writes mss,nop,ws,nop,nop,sok (window 8192 on 7/8,
64240 on 10/11, 65535 on XP; mss,nop,nop,sok when window scaling is off); the Linux kernel
mss,sok,ts,nop,ws (mss,nop,nop,sok,nop,ws without timestamps) with a window that varies by
version and MSS; Apple's XNU mss,nop,ws,nop,nop,ts,sok,eol with window 65535; FreeBSD
mss,nop,ws,sok,ts and OpenBSD mss,nop,nop,sok,nop,ws,nop,nop,ts. The window scale is left
free, as in p0f's catch-alls: it follows the receive buffer (memory, tuning), not the
stack. Packet crafters (scapy's bare 8192-byte SYN) match nothing and do not vote.

A stack can run under several families (Android and ChromeOS run the Linux kernel, iOS
and macOS share XNU): the signature then votes for each, and reported facts decide.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import TCP_SYN_SIGNATURE
from ...context import HostFacts
from ...vote import Vote

WEIGHT = 40  # measured from the packets themselves: outweighs any one thing a host says
WINDOWS, LINUX_KERNEL, APPLE = ("Windows",), ("Linux", "Android", "ChromeOS"), ("macOS", "iOS")
WINDOWS_WINDOWS = (8192, 16384, 64240, 65535)
# (option layout, windows it comes with or None for any, families, stack, remark)
SIGNATURES = (
    ("mss,nop,ws,nop,nop,sok", WINDOWS_WINDOWS, WINDOWS, "the Windows stack", ""),
    ("mss,nop,nop,sok", WINDOWS_WINDOWS, WINDOWS, "the Windows stack", " with window scaling off"),
    ("mss,sok,ts,nop,ws", None, LINUX_KERNEL, "the Linux kernel", ""),
    ("mss,nop,nop,sok,nop,ws", None, LINUX_KERNEL, "the Linux kernel", " with timestamps off"),
    ("mss,nop,ws,nop,nop,ts,sok,eol", (65535,), APPLE, "the Apple (XNU) stack", ""),
    ("mss,nop,ws,sok,ts", (65535,), ("BSD",), "FreeBSD", ""),
    ("mss,nop,nop,sok,nop,ws,nop,nop,ts", (16384,), ("BSD",), "OpenBSD", ""),
)


def stack_of(signature: str) -> tuple[tuple[str, ...], str, str] | None:
    """(families, stack, remark) for a "window:mss:wscale:options" value, None if unknown."""
    window, _mss, _wscale, layout = (signature.split(":", 3) + ["", "", ""])[:4]
    for options, windows, families, stack, remark in SIGNATURES:
        if layout == options and (windows is None or window.isdigit() and int(window) in windows):
            return families, stack, remark
    return None


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(TCP_SYN_SIGNATURE), key=lambda f: (f.first_frame, f.value)):
        if (stack := stack_of(fact.value)) is None:
            continue
        families, name, remark = stack
        shared = f", which {', '.join(families[:-1])} and {families[-1]} share" if len(families) > 1 else ""
        for label in families:
            if label not in voted:
                voted.add(label)
                yield Vote(label, WEIGHT, f"its TCP SYN signature {fact.value}, first in frame "
                           f"{fact.first_frame}, is {name}'s{remark}{shared} (+{WEIGHT})", fact.grade,
                           (fact.first_frame,))
