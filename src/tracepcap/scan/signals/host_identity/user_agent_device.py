"""The device class a host's User-Agents name (REPORTED), read by Device Detector (the
Python port of Matomo's maintained device-detector rules, package `device-detector`):
smartphone, tablet, desktop, TV, console ... A browser writes the device class into its
User-Agent only through the platform it runs on, and proxies or privacy settings rewrite
it, so the weight is that of any one thing a host says of itself. A User-Agent the device
knowledge base calls an embedded client (uclibc, BusyBox, Wget, curl) is not read: Device
Detector takes those for a desktop, and they are firmware's.

Device Detector loads its rule files on first use and compiles each rule the first time a
User-Agent reaches it; a User-Agent no rule matches reaches ~2,700 of them (1.2-1.7 s with
`regex`'s pure-Python pattern parser). The compiled rules are kept once per machine
(tracepcap/derived.py, `RULES`), each distinct User-Agent is read once per process (cached),
and only hosts that sent one pay for it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import lru_cache

from ....derived import file_source, load, save
from ....extract.kinds import USER_AGENT
from ...context import HostFacts
from ...knowledge import knowledge
from ...vote import Vote

READS = (USER_AGENT,)  # it votes only from these: not run for a host with none

WEIGHT = 20
# Device Detector's device types -> our device type, and how a reason names the class
CLASSES = {
    "smartphone": ("Mobile", "a smartphone"), "phablet": ("Mobile", "a phablet"),
    "feature phone": ("Mobile", "a feature phone"), "tablet": ("Mobile", "a tablet"),
    "portable media player": ("Mobile", "a portable media player"),
    "desktop": ("Workstation", "a desktop or laptop computer"),
    "tv": ("Media Device", "a smart TV or streaming box"), "console": ("IoT Device", "a games console"),
    "smart speaker": ("Media Device", "a smart speaker"), "smart display": ("Media Device", "a smart display"),
    "car browser": ("IoT Device", "a car's head unit"), "wearable": ("IoT Device", "a wearable"),
    "camera": ("IP Camera", "a camera"),
}
SHOWN = 80  # characters of the User-Agent quoted in a reason


class CompiledRules:
    """Stands in for the `regex` module inside Device Detector's lazy rules: `compile` answers
    from the rules compiled on this machine before (derived data keyed by the versions of
    Device Detector, `regex` and Python), compiling and remembering the ones it lacks."""

    NAME = "device-detector-rules"

    def __init__(self) -> None:
        import regex

        self.regex = regex
        self.source = file_source("device-detector", "regex") + f" python {sys.version_info[:2]}"
        self.known: dict[tuple[str, int], object] = self._restore(load(self.NAME, self.source))
        self.compiled = 0  #: rules this process compiled (the cache lacked them)
        self.saved = len(self.known)

    def compile(self, pattern: str, flags: int = 0):
        key = (pattern, int(flags))
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = self.regex.compile(pattern, flags)
            self.compiled += 1
        return found

    def __getattr__(self, name: str):  # the rest of the `regex` module, as it is
        return getattr(self.regex, name)

    def _restore(self, stored) -> dict[tuple[str, int], object]:
        """The patterns a cache file holds as plain data (each pattern's compiled form, as
        `regex` itself would pickle it), rebuilt without the parser; {} if it holds none."""
        known: dict[tuple[str, int], object] = {}
        if not isinstance(stored, dict):
            return known
        build = self.regex._regex.compile
        for key, compiled in stored.items():
            try:
                pattern, flags = key
                known[(pattern, flags)] = build(*compiled)
            except Exception:  # noqa: BLE001 - a damaged entry is compiled again on use
                continue
        return known

    def save(self) -> None:
        if len(self.known) > self.saved:
            try:
                plain = {key: p._pickled_data for key, p in self.known.items()}
            except AttributeError:  # a `regex` that does not expose it: compile each process
                return
            save(self.NAME, self.source, plain)
            self.saved = len(self.known)


@lru_cache(maxsize=1)
def _rules() -> CompiledRules:
    from device_detector import lazy_regex

    rules = CompiledRules()
    lazy_regex.regex = rules  # the module's one use of `regex` is `regex.compile` on first use
    return rules


@lru_cache(maxsize=4096)
def device_class(user_agent: str) -> tuple[str, str, str] | None:
    """(our device type, the class in words, brand and model or "") for a User-Agent, or
    None when Device Detector names no class we map (bots, libraries such as curl)."""
    from device_detector import DeviceDetector  # its rules load on first use: only when needed

    rules = _rules()
    parsed = DeviceDetector(user_agent, skip_bot_detection=True).parse()
    rules.save()
    kind = str(getattr(parsed.device_type(), "value", parsed.device_type()) or "").lower()
    if kind not in CLASSES:
        return None
    label, words = CLASSES[kind]
    model = " ".join(p for p in (parsed.device_brand(), parsed.device_model())
                     if p and p not in ("Unknown", "UNK"))
    return label, words, model


def vote(host: HostFacts) -> Iterator[Vote]:
    said: set[str] = set()
    base = knowledge()
    for fact in sorted(host.facts(USER_AGENT), key=lambda f: (f.first_frame, f.value)):
        embedded = base.user_agent(fact.value)
        if embedded is not None and embedded.embedded:
            continue  # uclibc, BusyBox, Wget, curl: firmware's clients, never a desktop
        found = device_class(fact.value)
        if found is None or found[0] in said:
            continue
        label, words, model = found
        said.add(label)
        shown = fact.value if len(fact.value) <= SHOWN else fact.value[:SHOWN - 3].rsplit(" ", 1)[0] + "..."
        what = f"{words} ({model})" if model else words
        yield Vote(label, WEIGHT, f"Device Detector reads its User-Agent as {what}: {shown}, first in "
                   f"frame {fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
