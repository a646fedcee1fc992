"""Services a host announces over mDNS (DNS-SD service types) and SSDP (UPnP device types)."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import MDNS_SERVICE, SSDP_NT, SSDP_USN
from ...context import HostFacts
from ...vote import Vote

READS = (MDNS_SERVICE, SSDP_NT, SSDP_USN)  # it votes only from these: not run for a host with none

WEIGHT = 35
# DNS-SD service type (RFC 6763; IANA service names) -> device type
MDNS_SERVICES = {
    "_ipp._tcp": "Printer", "_ipps._tcp": "Printer", "_printer._tcp": "Printer",
    "_pdl-datastream._tcp": "Printer", "_scanner._tcp": "Printer", "_uscan._tcp": "Printer",
    # not _airplay or _raop: Macs, iPhones and iPads announce them as well as speakers and TVs;
    # the things people own (_googlecast, _hap, _spotify-connect, _sonos, cameras' types) are
    # the device knowledge base's (scan/knowledge/devices.toml, knowledge_base.py)
    "_apple-mobdev2._tcp": "Mobile",  # not _companion-link: Macs announce it as well as phones
    "_rfb._tcp": "Workstation", "_smb._tcp": "File Server", "_afpovertcp._tcp": "File Server",
    "_adisk._tcp": "File Server", "_rtsp._tcp": "IP Camera",
}
# UPnP device type fragments in SSDP NT/ST/USN -> device type
SSDP_TYPES = {
    "internetgatewaydevice": "Router", "wanconnectiondevice": "Router",
    "mediaserver": "File Server", "printer": "Printer",
    # media renderers, DIAL receivers and cameras: the device knowledge base's
}


def _service_type(value: str) -> str:
    """`Office Printer._ipp._tcp.local` and `_ipp._tcp.local` both give `_ipp._tcp`."""
    parts = value.lower().rstrip(".").split(".")
    for i in range(len(parts) - 1):
        if parts[i].startswith("_") and parts[i + 1] in ("_tcp", "_udp"):
            return f"{parts[i]}.{parts[i + 1]}"
    return ""


def vote(host: HostFacts) -> Iterator[Vote]:
    seen: set[str] = set()
    for fact in host.facts(MDNS_SERVICE):
        service = _service_type(fact.value)
        label = MDNS_SERVICES.get(service)
        if label and service not in seen:
            seen.add(service)
            yield Vote(label, WEIGHT, f"announces {service} over mDNS, frame {fact.first_frame} "
                       f"(+{WEIGHT})", fact.grade, (fact.first_frame,))
    for kind in (SSDP_NT, SSDP_USN):
        for fact in host.facts(kind):
            lowered = fact.value.lower()
            for fragment, label in SSDP_TYPES.items():
                if fragment in lowered and fragment not in seen:
                    seen.add(fragment)
                    yield Vote(label, WEIGHT, f"announces UPnP {fact.value} over SSDP, frame "
                               f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
