"""The MAC's registry vendor hints at a device type (INFERRED), and only where the vendor
makes essentially one kind of networked device: an Axis or Hikvision MAC is a camera's, a
Sonos MAC a speaker's. A vendor of several kinds votes weakly for its commonest one (a
Ubiquiti MAC is more often an access point than a switch or a camera); vendors of every
kind (Apple, HP, Dell, Intel, Samsung, Cisco: phones, laptops, servers, printers and
switches alike) do not vote at all, because their MAC says nothing of the device type."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import OUI_VENDOR
from ...context import OWNED_MAC_KINDS, HostFacts
from ...vote import Vote

READS = (OUI_VENDOR,)  # it votes only from these: not run for a host with none
CONSULTS = OWNED_MAC_KINDS  # read only beside a kind of READS

WEIGHT = 25  # a vendor of one kind of device
WEAK_WEIGHT = 10  # a vendor of several kinds, for its commonest
# Vendor name fragments (lower case) -> device type, first match wins.
SINGLE_CLASS_VENDORS: tuple[tuple[str, str], ...] = (
    ("mikrotik", "Router"), ("routerboard", "Router"),
    ("arista", "Switch"), ("extreme networks", "Switch"),
    ("palo alto", "Firewall"), ("sonicwall", "Firewall"), ("check point", "Firewall"),
    ("watchguard", "Firewall"), ("netgate", "Firewall"),
    ("brother", "Printer"), ("canon", "Printer"), ("seiko epson", "Printer"), ("lexmark", "Printer"),
    ("xerox", "Printer"), ("kyocera", "Printer"), ("ricoh", "Printer"), ("konica", "Printer"),
    ("axis communications", "IP Camera"), ("hikvision", "IP Camera"), ("dahua", "IP Camera"),
    ("polycom", "VoIP Phone"), ("yealink", "VoIP Phone"), ("snom", "VoIP Phone"), ("mitel", "VoIP Phone"),
    # chip and module makers (Espressif, Tuya, Texas Instruments): the device knowledge base's,
    # as weak evidence of some IoT device (scan/knowledge/devices.toml)
    ("raspberry pi", "IoT Device"),
    ("sonos", "Media Device"), ("philips lighting", "IoT Device"), ("signify", "IoT Device"),
    ("nest labs", "IoT Device"), ("roku", "Media Device"), ("sony interactive", "IoT Device"),
    ("nintendo", "IoT Device"),
    ("oneplus", "Mobile"), ("oppo", "Mobile"), ("vivo mobile", "Mobile"), ("motorola mobility", "Mobile"),
    ("synology", "File Server"), ("qnap", "File Server"),
    ("super micro", "Server"), ("supermicro", "Server"),
)
SEVERAL_CLASS_VENDORS: tuple[tuple[str, str], ...] = (
    ("juniper", "Router"), ("ubiquiti", "Access Point"), ("aruba", "Access Point"),
    ("ruckus", "Access Point"), ("fortinet", "Firewall"), ("grandstream", "VoIP Phone"),
    ("avaya", "VoIP Phone"), ("amazon technologies", "IoT Device"), ("xiaomi", "Mobile"),
    ("huawei device", "Mobile"), ("lenovo", "Workstation"), ("asustek", "Workstation"),
    ("micro-star", "Workstation"), ("gigabyte", "Workstation"),
    ("pcs systemtechnik", "Workstation"),
)
# why a weak vote is weak, where not for the usual reason
WEAK_NOTES = {"pcs systemtechnik": "VirtualBox's virtual NIC: a virtual machine, most often on a desktop"}


def device_type(vendor: str) -> tuple[str, int, str] | None:
    """(device type, weight, why it is weak or "") the vendor votes for, None if it names none."""
    lowered = vendor.lower()
    if found := next((kind for fragment, kind in SINGLE_CLASS_VENDORS if fragment in lowered), None):
        return found, WEIGHT, ""
    for fragment, kind in SEVERAL_CLASS_VENDORS:
        if fragment in lowered:
            return kind, WEAK_WEIGHT, WEAK_NOTES.get(fragment, "a maker of several device types")
    return None


def vote(host: HostFacts) -> Iterator[Vote]:
    if not host.owned_macs():
        return  # its frames came with a router's MAC: that vendor is the router's, not its own
    for fact in host.owned_vendors():  # not a spoofer's MAC it was claimed with
        if found := device_type(fact.value):
            label, weight, why = found
            yield Vote(label, weight, f"MAC OUI is {fact.value}{', ' + why if why else ''} (+{weight})",
                       fact.grade, (fact.first_frame,))
