"""The MAC's registry vendor hints at a device type: a hint, never a walkover (INFERRED)."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import OUI_VENDOR
from ...context import HostFacts
from ...vote import Vote

WEIGHT = 25
# Vendor name fragments (lower case) -> device type, first match wins. Vendors that make
# many kinds of device (Apple: phones and computers alike) do not vote.
VENDOR_DEVICE_TYPES: tuple[tuple[str, str], ...] = (
    ("cisco", "Router"), ("juniper", "Router"), ("mikrotik", "Router"), ("routerboard", "Router"),
    ("arista", "Switch"), ("extreme networks", "Switch"), ("ubiquiti", "Access Point"),
    ("aruba", "Access Point"), ("ruckus", "Access Point"),
    ("fortinet", "Firewall"), ("palo alto", "Firewall"), ("sonicwall", "Firewall"),
    ("check point", "Firewall"), ("watchguard", "Firewall"), ("netgate", "Firewall"),
    ("brother", "Printer"), ("canon", "Printer"), ("seiko epson", "Printer"), ("lexmark", "Printer"),
    ("xerox", "Printer"), ("kyocera", "Printer"), ("ricoh", "Printer"), ("konica", "Printer"),
    ("hewlett packard", "Printer"), ("hp inc", "Printer"),
    ("axis communications", "IP Camera"), ("hikvision", "IP Camera"), ("dahua", "IP Camera"),
    ("polycom", "VoIP Phone"), ("yealink", "VoIP Phone"), ("grandstream", "VoIP Phone"),
    ("snom", "VoIP Phone"), ("avaya", "VoIP Phone"), ("mitel", "VoIP Phone"),
    ("espressif", "IoT Device"), ("raspberry pi", "IoT Device"), ("tuya", "IoT Device"),
    ("sonos", "IoT Device"), ("philips lighting", "IoT Device"), ("signify", "IoT Device"),
    ("nest labs", "IoT Device"), ("amazon technologies", "IoT Device"), ("roku", "IoT Device"),
    ("samsung", "Mobile"), ("xiaomi", "Mobile"), ("huawei device", "Mobile"), ("oneplus", "Mobile"),
    ("oppo", "Mobile"), ("vivo mobile", "Mobile"), ("motorola mobility", "Mobile"),
    ("intel", "Workstation"), ("dell", "Workstation"), ("lenovo", "Workstation"),
    ("asustek", "Workstation"), ("micro-star", "Workstation"), ("gigabyte", "Workstation"),
    ("synology", "File Server"), ("qnap", "File Server"),
)
SERVER_VENDORS = ("super micro", "supermicro", "vmware")  # servers, of no particular kind:
SERVER_WEIGHT = 15  # weaker, so a measured service names the kind


def device_type(vendor: str) -> str | None:
    lowered = vendor.lower()
    return next((kind for fragment, kind in VENDOR_DEVICE_TYPES if fragment in lowered), None)


def vote(host: HostFacts) -> Iterator[Vote]:
    if not host.owned_macs():
        return  # its frames came with a router's MAC: that vendor is the router's, not its own
    for fact in host.facts(OUI_VENDOR):
        frames = (fact.first_frame,)
        if label := device_type(fact.value):
            yield Vote(label, WEIGHT, f"MAC OUI is {fact.value} (+{WEIGHT})", fact.grade, frames)
        elif any(fragment in fact.value.lower() for fragment in SERVER_VENDORS):
            yield Vote("Server", SERVER_WEIGHT, f"MAC OUI is {fact.value}, a server maker "
                       f"(+{SERVER_WEIGHT})", fact.grade, frames)
