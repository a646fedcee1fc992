"""What the host's OS family says of its device type: the os-family question's machine
answer, a declared cross-question input (`INPUTS`), cited in the reason.

iOS (iPadOS is iOS here) and Android run on phones and tablets: Mobile. macOS, Windows and
ChromeOS run on computers people sit at: Workstation (Windows only when it answers no
service: a Windows host answering services is a server as often as a desktop). Linux is a desktop client only when the host answers no service; a Linux server, NAS
or appliance answers something; and never when its DHCP vendor class names an ARM build
(`…:armv7l:BCM2835`): a single-board computer or an appliance as often as a desktop, nor when
it shows an appliance's marks in the device knowledge base (a plug's cloud, an embedded client). An Apple answer (macOS or iOS, not told apart) is a client
device of either kind. A network OS is a Router when it serves DHCP or DNS to the segment,
otherwise a network device of a kind its services or LLDP must tell.
An OS answer that rests only on facts host-identity's own signals read (the initial TTL,
the OUI vendor, a self-given name's scheme, an announced model) does not vote: counting one
fact twice would inflate the confidence.
The grade is INFERRED (a judgment on another answer), so alone it holds at 50; the weight is
modest because an OS runs on more device classes than the one it names (Android TVs, Apple
TVs, Windows servers), whose own evidence should win.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import DHCP_VENDOR_CLASS
from ...context import HostFacts
from ...knowledge import appliance
from ...vote import Vote

INPUTS = ("os-family",)
WEIGHT = 20
PARENT_WEIGHT = 15
UNSURE = 60  # an OS answer below this confidence votes with PARENT_WEIGHT
CLIENT_OS = {"iOS": ("Mobile", "runs on phones and tablets"),
             "Android": ("Mobile", "runs on phones and tablets"),
             "macOS": ("Workstation", "runs on desktop and laptop computers"),
             "Windows": ("Workstation", "runs mostly on desktop and laptop computers"),
             "ChromeOS": ("Workstation", "runs on laptops and desktops")}
ROUTER_SERVICES = ("udp/67", "udp/53", "tcp/53")
# os-family signals whose facts a host-identity signal of the same name already reads
# (ttl_class, oui_vendor, name_cues, device_model): an OS answer they alone carry is no
# new evidence of the device type
OWN_EVIDENCE = {"ttl", "oui_vendor", "name_cues", "device_model", "handheld"}
ARM_BUILDS = (":armv", ":aarch64", ":arm64")  # dhcpcd's vendor class ends "…:<machine>:<board>"


def _vote(label: str, weight: int, why: str) -> Vote:
    return Vote(label, weight, f"{why} (+{weight})", Grade.INFERRED, ())


def _arm_board(host: HostFacts) -> bool:
    return any(arm in value.lower() for value in host.values(DHCP_VENDOR_CLASS) for arm in ARM_BUILDS)


def vote(host: HostFacts) -> Iterator[Vote]:
    answer = host.answer("os-family")
    if answer is None or answer.backing and set(answer.backing) <= OWN_EVIDENCE:
        return  # an OS read only from facts host-identity's own signals have voted already
    weight = WEIGHT if answer.confidence >= UNSURE else PARENT_WEIGHT
    if answer.label == "Windows" and host.served():
        return  # Windows answering services: a server as often as a desktop; they decide
    if answer.label in CLIENT_OS:
        label, why = CLIENT_OS[answer.label]
        yield _vote(label, weight, f"{answer.cite()}: {answer.label} {why}")
    elif answer.label == "Linux" and not host.served() and not _arm_board(host) and not appliance(host):
        yield _vote("Workstation", PARENT_WEIGHT, f"{answer.cite()}, and it answers no service: "
                    "a desktop Linux client")
    elif answer.label == "Apple":
        yield _vote("Client device", PARENT_WEIGHT, f"{answer.cite()}: Macs, iPhones and iPads "
                    "are all client devices")
    elif answer.label == "Network OS":
        served = [p for p in ROUTER_SERVICES if p in host.served()]
        if served:
            yield _vote("Router", weight, f"{answer.cite()}, and it answers {', '.join(served)} "
                        "for the segment: a router")
        else:
            yield _vote("Network device", PARENT_WEIGHT, f"{answer.cite()}: network equipment "
                        "(which kind, its LLDP/CDP or services must tell)")
