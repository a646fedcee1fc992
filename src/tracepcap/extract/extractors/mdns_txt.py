"""`device-model` facts (source mdns-txt) from the DNS-SD TXT records a host announces
over mDNS (RFC 6763 6): the hardware model its services state about it ("iMac11,3" from
`_device-info._tcp` model=, "AppleTV5,3" from AirPlay/RAOP model=/am=, "Chromecast" from
`_googlecast._tcp` md=, a printer's ty= and product=), `device-name` facts (the friendly
name a Chromecast gives in fn=), and `os-version` facts ("Darwin 17" from osxvers=), on
the sender. REPORTED: the device describes itself.

Only the keys each service type defines are read: `md` means model in HomeKit and Cast
TXT records, and nothing in services that do not define it.
"""

from __future__ import annotations

from ..decoders import dns
from ..extractor import Extractor
from ..facts import FactKind
from ..kinds import DEVICE_MODEL, DEVICE_NAME, OS_VERSION

NAME, VERSION = "mdns-txt", "1"
MDNS_PORT = 5353
PRINTER_KEYS = {"ty": DEVICE_MODEL, "product": DEVICE_MODEL}  # Bonjour Printing 1.2 (Apple)
# service type -> {TXT key: fact kind}
KEYS_BY_SERVICE = {
    "_device-info._tcp": {"model": DEVICE_MODEL, "osxvers": OS_VERSION},
    "_airplay._tcp": {"model": DEVICE_MODEL},
    "_raop._tcp": {"am": DEVICE_MODEL},
    "_hap._tcp": {"md": DEVICE_MODEL},
    "_googlecast._tcp": {"md": DEVICE_MODEL, "fn": DEVICE_NAME},
    "_ipp._tcp": PRINTER_KEYS, "_ipps._tcp": PRINTER_KEYS, "_printer._tcp": PRINTER_KEYS,
    "_pdl-datastream._tcp": PRINTER_KEYS,
}


def service_type(name: str) -> str:
    """`Office._ipp._tcp.local` -> `_ipp._tcp`; "" when the name is no service instance."""
    labels = name.rstrip(".").lower().split(".")
    if len(labels) >= 4 and labels[-1] == "local" and labels[-2] in ("_tcp", "_udp"):
        return f"{labels[-3]}.{labels[-2]}"
    return ""


def readings(service: str, strings: list[str]) -> list[tuple[FactKind, str]]:
    """(kind, value) of the identifying keys in one TXT record of `service`."""
    keys = KEYS_BY_SERVICE.get(service, {})
    out = []
    for entry in strings:
        key, sep, value = entry.partition("=")
        kind = keys.get(key.lower())
        value = value.strip().strip("()").strip()  # IPP product is "(HP LaserJet 400)"
        if not (sep and kind and value):
            continue
        if key.lower() == "osxvers":
            value = f"Darwin {value}"  # osxvers is the Darwin major version (17: macOS 10.13)
        out.append((kind, value))
    return out


class MdnsTxt(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (DEVICE_MODEL, DEVICE_NAME, OS_VERSION)
    UDP_PORTS = frozenset((MDNS_PORT,))

    def observe(self, pkt, flow) -> None:
        if pkt.sport != MDNS_PORT or not dns.plausible(pkt.payload):
            return
        msg = dns.decode(pkt.payload)
        if not msg.response:
            return  # a query's known-answer TXT records describe someone else
        for record in msg.answers + msg.additional:
            if record.rtype == dns.TXT and (service := service_type(record.name)):
                for kind, value in readings(service, dns.txt_strings(record.rdata)):
                    self.emit.fact(pkt.src, kind, value, pkt.frame, pkt.ts, source="mdns-txt")
