"""The software inventory: per device, the software it runs or serves, read from the facts
Extract already stored (as Zeek's software.log lists them): a User-Agent's client and OS, an
HTTP Server header, an SSH identification line, SMB's native OS and LAN manager, the Windows
version NTLM names, a DHCP client's vendor class, an SNMP agent's sysDescr and an LLDP
system description. Each entry keeps the text it was read from and its frames."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...extract.kinds import (
    DHCP_VENDOR_CLASS,
    HTTP_SERVER,
    LLDP_SOFTWARE,
    OS_VERSION,
    SMB_LANMAN,
    SNMP_SYSDESCR,
    SSH_BANNER,
    USER_AGENT,
)
from ...patterns import compile_lazily
from ...store.models import Entity, EntityMember, ObservationRow

# fact kind -> how the device showed it (the inventory's "seen as" column)
SEEN_AS = {USER_AGENT.name: "HTTP client", HTTP_SERVER.name: "HTTP server", SSH_BANNER.name: "SSH",
           OS_VERSION.name: "OS version", SMB_LANMAN.name: "SMB LAN manager",
           DHCP_VENDOR_CLASS.name: "DHCP client", SNMP_SYSDESCR.name: "SNMP agent",
           LLDP_SOFTWARE.name: "LLDP"}
PRODUCT_VERSION = compile_lazily(r"^(?P<product>[A-Za-z][\w.+ -]*?)[/_ -]v?(?P<version>\d[\w.+~-]*)")
SSH_IDENT = compile_lazily(r"^SSH-\d+\.\d+-(?P<software>\S+)(?:\s+(?P<comment>.*))?$")
VERSION_WORD = compile_lazily(r"(?i)\bversion\s+(?P<version>\d[\w.()+-]*)")
MAX_TEXT = 120


@dataclass(frozen=True, slots=True)
class Software:
    device: str  # the inventory entity's key
    product: str
    version: str | None
    platform: str | None  # the OS a client names, an SSH comment, a vendor class's rest
    seen_as: str
    evidence: str  # the fact kind
    text: str  # what it was read from
    first_frame: int
    last_frame: int
    count: int


@lru_cache(maxsize=4096)
def identify(kind: str, value: str, source: str = "") -> tuple[str, str | None, str | None]:
    """(product, version, platform) of one fact's text."""
    if kind == USER_AGENT.name:
        from ua_parser import parse  # here: its rules (and yaml) load only for a capture with User-Agents
        parsed = parse(value)
        agent, os = parsed.user_agent, parsed.os
        platform = " ".join(p for p in (os.family, os.major) if p) if os and os.family != "Other" else None
        if agent and agent.family != "Other":
            version = ".".join(p for p in (agent.major, agent.minor, agent.patch) if p) or None
            return agent.family, version, platform
        return (*_split(value.split(" (", 1)[0]), platform)
    if kind == SSH_BANNER.name and (ident := SSH_IDENT.match(value)):
        product, version = _split(ident.group("software"))
        return product, version, ident.group("comment") or None
    if kind == OS_VERSION.name and source == "ntlm":
        return "Windows", value, None  # NTLM's major.minor.build
    if kind == DHCP_VENDOR_CLASS.name and ":" in value:
        head, _, rest = value.partition(":")  # dhcpcd's "dhcpcd-6.10.1:Linux-4.9:armv7l:BCM2835"
        return (*_split(head), rest.replace(":", " ") or None)
    if kind in (SNMP_SYSDESCR.name, LLDP_SOFTWARE.name):
        found = VERSION_WORD.search(value)
        product = value.split(",", 1)[0].strip()[:MAX_TEXT]
        return product, found.group("version") if found else None, None
    product, version = _split(value)
    platform = value[value.index("(") + 1:value.rindex(")")] if "(" in value and ")" in value else None
    return product, version, platform


def _split(text: str) -> tuple[str, str | None]:
    text = text.strip()
    found = PRODUCT_VERSION.match(text)
    if found:
        return found.group("product").strip()[:MAX_TEXT], found.group("version")
    return text[:MAX_TEXT], None


def entries(device: str, facts: Iterable[tuple[str, str, str, int, int, int]]) -> list[Software]:
    """The software of one device from its facts (kind, value, source, first, last, count),
    one entry per distinct text, by product."""
    out = [Software(device, *identify(kind, value, source), SEEN_AS[kind], kind, value, first, last, count)
           for kind, value, source, first, last, count in facts if kind in SEEN_AS]
    return sorted(out, key=lambda s: (s.product.lower(), s.version or "", s.evidence, s.text))


def software(session: Session, capture_id: str, device: str | None = None) -> list[Software]:
    """Every device's software (or one device's), devices in inventory order."""
    stmt = (select(Entity.key, ObservationRow.kind, ObservationRow.value, ObservationRow.source,
                   ObservationRow.first_frame, ObservationRow.last_frame, ObservationRow.count)
            .join(EntityMember, (EntityMember.capture_id == ObservationRow.capture_id)
                  & (EntityMember.member == ObservationRow.entity))
            .join(Entity, (Entity.capture_id == EntityMember.capture_id) & (Entity.key == EntityMember.entity_key))
            .where(ObservationRow.capture_id == capture_id, ObservationRow.kind.in_(tuple(SEEN_AS)))
            .order_by(Entity.position, ObservationRow.id))
    if device is not None:
        stmt = stmt.where(Entity.key == device)
    by_device: dict[str, dict[tuple[str, str, str], list]] = {}
    for key, kind, value, source, first, last, count in session.execute(stmt):
        merged = by_device.setdefault(key, {})
        have = merged.get((kind, value, source))
        if have is None:
            merged[kind, value, source] = [kind, value, source, first, last, count]
        else:  # one device's addresses saw it alike
            have[3], have[4], have[5] = min(have[3], first), max(have[4], last), have[5] + count
    return [entry for key, merged in by_device.items() for entry in entries(key, map(tuple, merged.values()))]
