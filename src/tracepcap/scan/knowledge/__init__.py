"""The device knowledge base: what a kind of evidence says of the device that shows it (its
vendor, its class, its model, its OS), as data with provenance, not rules in code.

`devices.toml` beside this module is the shipped base (its header documents the format); an
operator adds entries in the same format with a local file named by the setting
TRACEPCAP_DEVICE_KNOWLEDGE (one path, or several separated by the OS path separator). Both
are read once per process (`knowledge()`); a file that does not parse, or an entry without
its key or its source, is refused with a `KnowledgeError` naming the file and the entry.

`matches(host)` reads one host's facts against it: its cloud endpoints (scan/clouds.py: the
names it resolves and contacts, by registrable domain) against vendor clouds, its mDNS
service types, its SSDP headers, its DHCP vendor class, the names it gives itself, its MAC's registry vendor and its User-Agents. A
host that resolves names in many registrable domains, or sends a browser's User-Agent, is a
general-purpose client: a vendor cloud among its names says it runs that vendor's app, not
that it is the vendor's device, so clouds count only for headless hosts.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from weakref import WeakKeyDictionary

from ...errors import UsageError
from ...extract.kinds import (
    DHCP_VENDOR_CLASS,
    DNS_QUERY,
    HOSTNAME_CLAIM,
    MDNS_SERVICE,
    OUI_VENDOR,
    SSDP_NT,
    SSDP_SERVER,
    SSDP_USN,
    TLS_SNI,
    USER_AGENT,
)
from ..clouds import ENDPOINT_KINDS, endpoints, registrable
from ..context import OWNED_MAC_KINDS, CaptureContext, Fact, HostFacts
from ..names import SELF_SOURCES

SHIPPED = Path(__file__).with_name("devices.toml")
SETTING = "TRACEPCAP_DEVICE_KNOWLEDGE"
#: entry table -> the key it matches on
TABLES = {"cloud": "suffix", "mdns": "service", "ssdp": "contains", "dhcp_vendor": ("prefix", "contains"),
          "hostname": "pattern", "oui": "contains", "user_agent": "pattern"}
FIELDS = frozenset(("vendor", "class", "model", "os", "chip", "embedded", "weak", "note", "source",
                    "licence", "suffix", "service", "contains", "prefix", "pattern"))
#: a host resolving names in more registrable domains than this is a general-purpose client
HEADLESS_DOMAINS = 8
BROWSER = re.compile(r"^Mozilla/\d", re.I)


class KnowledgeError(UsageError):
    """A knowledge-base file that cannot be used: the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class Entry:
    table: str  # "cloud", "mdns", ...
    key: str  # the suffix, service type, text, prefix or pattern it matches
    vendor: str | None
    label: str | None  # the host-identity class it supports
    model: str | None
    os: str | None
    chip: bool  # a module or chip maker: weak evidence of some IoT device
    embedded: bool  # an embedded client (User-Agent): never a desktop
    weak: bool
    note: str
    source: str
    licence: str
    origin: str  # the file it came from
    pattern: re.Pattern[str] | None = None

    def provenance(self) -> str:
        return f"knowledge base: {self.source}"


@dataclass(frozen=True, slots=True)
class Match:
    """One entry one fact of a host matched, with the model it names (if any)."""

    entry: Entry
    fact: Fact
    what: str  # how the reason names the evidence: "its DHCP host name DCS-935L"
    model: str | None

    def describe(self) -> str:
        e = self.entry
        who = " ".join(x for x in (e.vendor, self.model) if x)
        return f"{self.what}, frame {self.fact.first_frame}: {who + ', ' if who else ''}{e.note} [{e.provenance()}]"


class Knowledge:
    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = tuple(entries)
        self.by_table: dict[str, list[Entry]] = {t: [] for t in TABLES}
        for entry in self.entries:
            self.by_table[entry.table].append(entry)
        # longest suffix first: "dch.dlink.com" before "dlink.com"
        self.by_table["cloud"].sort(key=lambda e: -len(e.key))
        self._mdns = {e.key: e for e in reversed(self.by_table["mdns"])}  # the first entry wins

    @lru_cache(maxsize=1 << 14)  # noqa: B019 - one knowledge base per process, never freed
    def cloud(self, name: str) -> Entry | None:
        name = name.lower().rstrip(".")
        return next((e for e in self.by_table["cloud"] if name == e.key or name.endswith("." + e.key)), None)

    def mdns(self, service: str) -> Entry | None:
        return self._mdns.get(service)

    @lru_cache(maxsize=1 << 12)  # noqa: B019 - one knowledge base per process, never freed
    def ssdp(self, text: str) -> tuple[Entry, ...]:
        lowered = text.lower()
        return tuple(e for e in self.by_table["ssdp"] if e.key in lowered)

    @lru_cache(maxsize=1 << 12)  # noqa: B019 - one knowledge base per process, never freed
    def dhcp_vendor(self, value: str) -> tuple[Entry, ...]:
        lowered = value.lower()
        return tuple(e for e in self.by_table["dhcp_vendor"]
                     if (lowered.startswith(e.key) if e.pattern is None else e.key in lowered))

    @lru_cache(maxsize=1 << 14)  # noqa: B019 - one knowledge base per process, never freed
    def hostname(self, label: str) -> tuple[Entry, str | None] | None:
        for e in self.by_table["hostname"]:
            if found := e.pattern.search(label):
                model = e.model.replace("{1}", found.group(1) or "") if e.model and found.groups() else e.model
                return e, model
        return None

    @lru_cache(maxsize=1 << 12)  # noqa: B019 - one knowledge base per process, never freed
    def oui(self, vendor: str) -> Entry | None:
        lowered = vendor.lower()
        return next((e for e in self.by_table["oui"] if e.key in lowered), None)

    @lru_cache(maxsize=1 << 12)  # noqa: B019 - one knowledge base per process, never freed
    def user_agent(self, value: str) -> Entry | None:
        return next((e for e in self.by_table["user_agent"] if e.pattern.search(value)), None)


def _entry(table: str, raw: object, origin: str, index: int) -> Entry:
    where = f"{origin}: [[{table}]] entry {index + 1}"
    if not isinstance(raw, dict):
        raise KnowledgeError(f"{where} is not a table")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        raise KnowledgeError(f"{where} has unknown field(s) {', '.join(unknown)}")
    if any(not isinstance(v, (str, bool)) for v in raw.values()):
        raise KnowledgeError(f"{where}: every field is text or true/false")
    keys = TABLES[table] if isinstance(TABLES[table], tuple) else (TABLES[table],)
    key_name = next((k for k in keys if raw.get(k)), None)
    if key_name is None:
        raise KnowledgeError(f"{where} needs {' or '.join(repr(k) for k in keys)}")
    if not raw.get("source"):
        raise KnowledgeError(f"{where} needs a 'source' (where what it says can be checked)")
    key = str(raw[key_name])
    pattern = None
    if key_name == "pattern":
        try:
            pattern = re.compile(key, re.I)
        except re.error as err:
            raise KnowledgeError(f"{where}: pattern {key!r} is not a regular expression ({err})") from None
    elif key_name == "contains" and table == "dhcp_vendor":
        pattern = re.compile(re.escape(key.lower()))  # marks "anywhere in", not "starts with"
    if table != "hostname" and key_name != "pattern":
        key = key.lower()
    return Entry(table, key, raw.get("vendor") or None, raw.get("class") or None, raw.get("model") or None,
                 raw.get("os") or None, bool(raw.get("chip")), bool(raw.get("embedded")), bool(raw.get("weak")),
                 str(raw.get("note") or raw.get("vendor") or key), str(raw["source"]),
                 str(raw.get("licence") or "unstated"), origin, pattern)


def parse(text: str, origin: str) -> list[Entry]:
    """The entries of one knowledge-base file's text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise KnowledgeError(f"{origin} is not TOML: {err}") from None
    unknown = sorted(set(data) - set(TABLES))
    if unknown:
        raise KnowledgeError(f"{origin}: unknown table(s) {', '.join(unknown)}; "
                             f"known: {', '.join(TABLES)}")
    out = []
    for table, rows in data.items():
        if not isinstance(rows, list):
            raise KnowledgeError(f"{origin}: {table} must be an array of tables ([[{table}]])")
        out.extend(_entry(table, raw, origin, i) for i, raw in enumerate(rows))
    return out


def load(paths: Iterable[Path]) -> Knowledge:
    """The shipped base, then each local file (its entries first: an operator's word wins)."""
    local: list[Entry] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise KnowledgeError(f"device knowledge file {path} cannot be read: {err}") from None
        local.extend(parse(text, str(path)))
    return Knowledge([*local, *parse(SHIPPED.read_text(encoding="utf-8"), SHIPPED.name)])


def local_paths() -> list[Path]:
    value = os.environ.get(SETTING, "").strip()
    return [Path(p) for p in value.split(os.pathsep) if p.strip()]


@lru_cache(maxsize=8)
def _cached(paths: tuple[Path, ...]) -> Knowledge:
    return load(paths)


def knowledge() -> Knowledge:
    """The knowledge base in force: read once per process (per value of the setting)."""
    return _cached(tuple(local_paths()))


def service_type(value: str) -> str:
    """`Office Printer._ipp._tcp.local` and `_ipp._tcp.local` both give `_ipp._tcp`."""
    parts = value.lower().rstrip(".").split(".")
    for i in range(len(parts) - 1):
        if parts[i].startswith("_") and parts[i + 1] in ("_tcp", "_udp"):
            return f"{parts[i]}.{parts[i + 1]}"
    return ""


#: the kinds `matches` (and `headless`, `appliance`) read of a host: what a signal calling them consults
MATCHED_KINDS = (*ENDPOINT_KINDS, MDNS_SERVICE, SSDP_NT, SSDP_USN, SSDP_SERVER, DHCP_VENDOR_CLASS, USER_AGENT,
                 OUI_VENDOR, *OWNED_MAC_KINDS)


def headless(host: HostFacts) -> bool:
    """No browser User-Agent, and names resolved or contacted in few registrable domains."""
    if any(BROWSER.search(ua) for ua in host.values(USER_AGENT)):
        return False
    domains = {registrable(f.value) for kind in (DNS_QUERY, TLS_SNI) for f in host.facts(kind)
               if "." in f.value and not f.value.lower().endswith((".local", ".arpa"))}
    return len(domains) <= HEADLESS_DOMAINS


#: capture -> host key -> its matches against the base in force: several signals of several
#: questions ask of every host, and each host is read once per capture
_MATCHED: WeakKeyDictionary[CaptureContext, dict[tuple[str | None, int], list[Match]]] = WeakKeyDictionary()


def matches(host: HostFacts, base: Knowledge | None = None) -> list[Match]:
    """Every entry the host's facts match, earliest evidence first within each kind."""
    base = base or knowledge()
    per_capture = _MATCHED.setdefault(host.capture, {})
    key = (host.key, id(base))
    found = per_capture.get(key)
    if found is None:
        found = per_capture[key] = _matches(host, base)
    return list(found)


def _matches(host: HostFacts, base: Knowledge) -> list[Match]:
    out: list[Match] = []
    if headless(host):
        for endpoint in endpoints(host):
            for entry in dict.fromkeys(e for name in endpoint.names if (e := base.cloud(name))):
                out.append(Match(entry, endpoint.facts[0], endpoint.describe(), entry.model))
    for f in host.facts(MDNS_SERVICE):
        service = service_type(f.value)
        if service and (entry := base.mdns(service)):
            out.append(Match(entry, f, f"it announces {service} over mDNS", entry.model))
    for kind in (SSDP_NT, SSDP_USN, SSDP_SERVER):
        for f in host.facts(kind):
            for entry in base.ssdp(f.value):
                out.append(Match(entry, f, f"it announces {f.value!r} over SSDP", entry.model))
    for f in host.facts(DHCP_VENDOR_CLASS):
        for entry in base.dhcp_vendor(f.value):
            out.append(Match(entry, f, f"its DHCP vendor class is {f.value}", entry.model))
    for f in host.facts(HOSTNAME_CLAIM):
        if f.source in SELF_SOURCES and (found := base.hostname(f.value.split(".", 1)[0])):
            out.append(Match(found[0], f, f"it calls itself {f.value} over {f.source}", found[1]))
    for f in host.owned_vendors():
        if entry := base.oui(f.value):
            out.append(Match(entry, f, f"its MAC's registry vendor is {f.value}", entry.model))
    for f in host.facts(USER_AGENT):
        if entry := base.user_agent(f.value):
            out.append(Match(entry, f, f"its User-Agent is {f.value[:60]!r}", entry.model))
    out.sort(key=lambda m: (list(TABLES).index(m.entry.table), m.fact.first_frame, m.fact.value))
    return out


def appliance(host: HostFacts, found: list[Match] | None = None) -> list[Match]:
    """The matches that say the host is an appliance (an IoT thing or embedded firmware): a
    vendor's device cloud, an IoT service or device type, a device maker's or chip maker's
    mark, an embedded DHCP client or uClibc/BusyBox User-Agent. A Wget or curl User-Agent is
    not one: administrators' machines send them as often as firmware."""
    found = matches(host) if found is None else found
    return [m for m in found if m.entry.label or m.entry.chip or m.entry.os == "Embedded"
            or (m.entry.vendor and m.entry.table != "oui")]


def first(items: Iterable[Match]) -> Iterator[Match]:
    """One match per (table, entry): the earliest."""
    seen: set[tuple[str, str]] = set()
    for m in items:
        if (m.entry.table, m.entry.key) not in seen:
            seen.add((m.entry.table, m.entry.key))
            yield m
