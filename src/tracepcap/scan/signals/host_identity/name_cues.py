"""The name a device gives itself often follows its maker's default scheme, and that scheme
names the kind of device: Apple names a device after its owner and model ("Gabrieles-iPad",
"Lucas-iMac"), Windows generates "DESKTOP-" or "LAPTOP-" plus seven characters, Android's
DHCP client sends "android-<id>", Samsung phones "Galaxy-<model>", printers their maker and
MAC ("NPI" and "HP" plus six hex digits for HP, "BRN"/"BRW" plus the MAC for Brother), desk
phones theirs ("SEP" plus the MAC for Cisco, the model for Yealink).
A user can rename anything and a name is only a claim (REPORTED), so the weight is modest;
only names the host gave itself count (a DNS answer about it says nothing of its make).
os_family/name_cues.py reads the same table for the OS the scheme implies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from ....extract.kinds import HOSTNAME_CLAIM
from ....patterns import compile_lazily
from ...context import Fact, HostFacts
from ...names import SELF_SOURCES
from ...vote import Vote

READS = (HOSTNAME_CLAIM,)  # it votes only from these: not run for a host with none

WEIGHT = 20


@dataclass(frozen=True, slots=True)
class Cue:
    pattern: re.Pattern[str]  # searched in the name's first label, case-insensitive
    scheme: str  # whose naming it follows, for the reason
    device: str
    os: str | None  # the OS family the scheme implies, if one


def _cue(pattern: str, scheme: str, device: str, os: str | None = None) -> Cue:
    return Cue(compile_lazily(pattern, re.I), scheme, device, os)


# a model word stands alone: "Gabrieles-iPad-2" is an iPad, "Hypadrome" is not
CUES = (
    _cue(r"(?<![a-z])iphone(?![a-z])", "an iPhone's naming", "Mobile", "iOS"),
    _cue(r"(?<![a-z])ipad(?![a-z])", "an iPad's naming", "Mobile", "iOS"),  # iPadOS is iOS
    _cue(r"(?<![a-z])(imac|macbook|mac-?mini|mac-?pro|mac-?studio)(?![a-z])", "a Mac's naming",
         "Workstation", "macOS"),
    _cue(r"^(desktop|laptop)-[a-z0-9]{7}$", "Windows' generated computer name", "Workstation", "Windows"),
    _cue(r"^android[-_]", "Android's default name", "Mobile", "Android"),
    _cue(r"^galaxy[-_ ]", "a Samsung Galaxy phone's default name", "Mobile", "Android"),
    _cue(r"^tl-s[gx]\d", "a TP-Link managed switch model (TL-SG, TL-SX)", "Switch", "Network OS"),
    _cue(r"^ps[45]-", "a PlayStation's default name", "IoT Device", "BSD"),  # Orbis OS: FreeBSD
    # appliances: their firmware is the os-family's Embedded
    _cue(r"^npi[0-9a-f]{6}$", "an HP JetDirect printer's default name", "Printer", "Embedded"),
    _cue(r"^hp[0-9a-f]{6}$", "an HP printer's default name", "Printer", "Embedded"),
    _cue(r"^br[nw][0-9a-f]{6,12}$", "a Brother printer's default name", "Printer", "Embedded"),
    _cue(r"^epson[0-9a-f]{6}$", "an Epson printer's default name", "Printer", "Embedded"),
    _cue(r"^axis-[0-9a-f]{12}$", "an Axis camera's default name", "IP Camera", "Embedded"),
    _cue(r"^sep[0-9a-f]{12}$", "a Cisco IP phone's default name (SEP and its MAC)", "VoIP Phone", "Embedded"),
    _cue(r"^sip-t\d{2}", "a Yealink desk phone's default name (its model)", "VoIP Phone", "Embedded"),
)
SOURCE_NAMES = {"mdns": "mDNS", "dhcp": "DHCP", "dhcpv6": "DHCPv6", "nbns": "NBNS", "llmnr": "LLMNR",
                "browser": "a Browser announcement", "dns-update": "a DNS update", "lldp": "LLDP",
                "cdp": "CDP", "ntlm": "NTLM", "snmp": "SNMP"}


def cues(host: HostFacts) -> Iterator[tuple[Fact, Cue]]:
    """(claim, cue) for each name the host gave itself that follows a known scheme, earliest first."""
    claims = [f for f in host.facts(HOSTNAME_CLAIM) if f.source in SELF_SOURCES]
    for fact in sorted(claims, key=lambda f: (f.first_frame, f.value)):
        if cue := cue_of(fact.value.split(".", 1)[0]):
            yield fact, cue


@lru_cache(maxsize=1 << 14)  # two questions ask it of every host's names: each label is matched once
def cue_of(label: str) -> Cue | None:
    """The first scheme the name's first label follows, or None."""
    return next((c for c in CUES if c.pattern.search(label)), None)


def reason(fact: Fact, cue: Cue) -> str:
    said = SOURCE_NAMES.get(fact.source, fact.source)
    return f"it calls itself {fact.value} over {said}, frame {fact.first_frame}: {cue.scheme} (+{WEIGHT})"


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact, cue in cues(host):
        if cue.device not in voted:
            voted.add(cue.device)
            yield Vote(cue.device, WEIGHT, reason(fact, cue), fact.grade, (fact.first_frame,))
