"""`device-model` facts (source upnp: "<manufacturer> <modelName> <modelNumber>", e.g.
"Sonos, Inc. Sonos One S18") and `device-name` facts (source upnp: its friendlyName) from
a UPnP device description (UPnP Device Architecture 2.0 2.3) that a device served over
HTTP in the capture, on the device that served it. REPORTED.

Read from the first bytes of each TCP direction that starts with an HTTP response: the
root device's elements are the first of their names in the document; an embedded device
repeats them later and is not read. The body is scanned with bounded patterns, never
parsed as XML (no entity expansion from a capture).
"""

from __future__ import annotations

from ...patterns import compile_lazily
from ..extractor import Extractor, StreamHead
from ..kinds import DEVICE_MODEL, DEVICE_NAME

NAME, VERSION = "upnp-description", "1"
DEVICE_SCHEMA = b"urn:schemas-upnp-org:device-1-0"
MAX_FIELD = 128  # UDA 2.0 2.3: friendlyName < 64, manufacturer < 64, modelName < 32 chars
MODEL_FIELDS = ("manufacturer", "modelName", "modelNumber")
FIELD = {name: compile_lazily(rb"<%s>\s*([^<]{1,%d}?)\s*</%s>" % (name.encode(), MAX_FIELD,
                                                                name.encode()))
         for name in (*MODEL_FIELDS, "friendlyName")}
ENTITIES = (("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"))


def _text(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    for entity, char in ENTITIES:
        text = text.replace(entity, char)
    return " ".join(text.split())


def describe(body: bytes) -> tuple[str | None, str | None]:
    """(model, friendly name) of the root device in a description document."""
    if DEVICE_SCHEMA not in body:
        return None, None
    found = {name: _text(m.group(1)) for name, pattern in FIELD.items()
             if (m := pattern.search(body))}
    model = " ".join(found[name] for name in MODEL_FIELDS if found.get(name)) or None
    return model, found.get("friendlyName") or None


class UpnpDescription(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (DEVICE_MODEL, DEVICE_NAME)
    TCP_STREAMS = True

    def observe_stream(self, head: StreamHead) -> None:
        if not head.data.startswith(b"HTTP/1."):
            return
        model, name = describe(head.data)
        if model:
            self.emit.fact(head.src, DEVICE_MODEL, model, head.first_frame, head.first_ts,
                           source="upnp")
        if name:
            self.emit.fact(head.src, DEVICE_NAME, name, head.first_frame, head.first_ts,
                           source="upnp")
