"""The OS a host's HTTP clients name in User-Agent (REPORTED), read by the maintained
ua-parser (uap-core's expressions): browsers copy the OS into it, but extensions, proxies
and privacy settings rewrite it, so it weighs less than what was measured. A User-Agent the
device knowledge base calls embedded firmware's (uclibc, BusyBox) votes for its os-family
(Embedded), and no desktop family is read from it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from ....extract.kinds import USER_AGENT
from ...context import HostFacts
from ...knowledge import knowledge
from ...vote import Vote

READS = (USER_AGENT,)  # it votes only from these: not run for a host with none

WEIGHT = 20
# ua-parser's OS family -> our label; distributions are Linux
FAMILIES = {"Windows": "Windows", "Mac OS X": "macOS", "Mac OS": "macOS", "iOS": "iOS",
            "Android": "Android", "Chrome OS": "ChromeOS", "FreeBSD": "BSD", "OpenBSD": "BSD",
            "NetBSD": "BSD"}
LINUX = frozenset(("Linux", "Ubuntu", "Debian", "Fedora", "Red Hat", "CentOS", "SUSE", "openSUSE",
                   "Mint", "Linux Mint", "Arch Linux", "Gentoo", "Slackware", "Kubuntu", "Mageia"))


@lru_cache(maxsize=1)
def os_parser():
    """ua-parser's OS rules alone, each compiled when first tried. Its global parser compiles
    every browser, OS and device rule before its first answer (~0.1 s a process), to answer
    the OS from these same rules in the same order. Imported at the first User-Agent."""
    from ua_parser import BasicResolver, Parser, load_lazy_builtins
    return Parser(BasicResolver(((), load_lazy_builtins()[1], ())))


@lru_cache(maxsize=4096)
def reported_family(user_agent: str) -> tuple[str, str] | None:
    """(our label, ua-parser's OS family) for a User-Agent, None if it names no OS we know."""
    os = os_parser().parse_os(user_agent)
    if os is None:
        return None
    label = "Linux" if os.family in LINUX else FAMILIES.get(os.family)
    return (label, os.family) if label else None


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    base = knowledge()
    for fact in sorted(host.facts(USER_AGENT), key=lambda f: (f.first_frame, f.value)):
        entry = base.user_agent(fact.value)
        if entry is not None and entry.embedded:
            if entry.os and entry.os not in voted:
                voted.add(entry.os)
                yield Vote(entry.os, WEIGHT, f"its User-Agent {fact.value[:60]!r}, first in frame "
                           f"{fact.first_frame}: {entry.note} [{entry.provenance()}] (+{WEIGHT})",
                           fact.grade, (fact.first_frame,))
            continue
        if (found := reported_family(fact.value)) and found[0] not in voted:
            voted.add(found[0])
            shown = fact.value if len(fact.value) <= 80 else fact.value[:77].rsplit(" ", 1)[0] + "..."
            yield Vote(found[0], WEIGHT, f"its User-Agent says {found[1]}: {shown}, first in frame "
                       f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
