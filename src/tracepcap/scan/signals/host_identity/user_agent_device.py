"""The device class a host's User-Agents name (REPORTED), read by Device Detector (the
Python port of Matomo's maintained device-detector rules, package `device-detector`):
smartphone, tablet, desktop, TV, console ... A browser writes the device class into its
User-Agent only through the platform it runs on, and proxies or privacy settings rewrite
it, so the weight is that of any one thing a host says of itself.

Device Detector loads its rule files on first use (seconds) and reads one User-Agent in
tens of milliseconds, so each distinct User-Agent is read once per process (cached) and
only hosts that sent one pay for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from ....extract.kinds import USER_AGENT
from ...context import HostFacts
from ...vote import Vote

WEIGHT = 20
# Device Detector's device types -> our device type, and how a reason names the class
CLASSES = {
    "smartphone": ("Mobile", "a smartphone"), "phablet": ("Mobile", "a phablet"),
    "feature phone": ("Mobile", "a feature phone"), "tablet": ("Mobile", "a tablet"),
    "portable media player": ("Mobile", "a portable media player"),
    "desktop": ("Workstation", "a desktop or laptop computer"),
    "tv": ("IoT Device", "a smart TV or streaming box"), "console": ("IoT Device", "a games console"),
    "smart speaker": ("IoT Device", "a smart speaker"), "smart display": ("IoT Device", "a smart display"),
    "car browser": ("IoT Device", "a car's head unit"), "wearable": ("IoT Device", "a wearable"),
    "camera": ("IP Camera", "a camera"),
}
SHOWN = 80  # characters of the User-Agent quoted in a reason


@lru_cache(maxsize=4096)
def device_class(user_agent: str) -> tuple[str, str, str] | None:
    """(our device type, the class in words, brand and model or "") for a User-Agent, or
    None when Device Detector names no class we map (bots, libraries such as curl)."""
    from device_detector import DeviceDetector  # its rules load on first use: only when needed

    parsed = DeviceDetector(user_agent, skip_bot_detection=True).parse()
    kind = str(getattr(parsed.device_type(), "value", parsed.device_type()) or "").lower()
    if kind not in CLASSES:
        return None
    label, words = CLASSES[kind]
    model = " ".join(p for p in (parsed.device_brand(), parsed.device_model())
                     if p and p not in ("Unknown", "UNK"))
    return label, words, model


def vote(host: HostFacts) -> Iterator[Vote]:
    said: set[str] = set()
    for fact in sorted(host.facts(USER_AGENT), key=lambda f: (f.first_frame, f.value)):
        found = device_class(fact.value)
        if found is None or found[0] in said:
            continue
        label, words, model = found
        said.add(label)
        shown = fact.value if len(fact.value) <= SHOWN else fact.value[:SHOWN - 3].rsplit(" ", 1)[0] + "..."
        what = f"{words} ({model})" if model else words
        yield Vote(label, WEIGHT, f"Device Detector reads its User-Agent as {what}: {shown}, first in "
                   f"frame {fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
