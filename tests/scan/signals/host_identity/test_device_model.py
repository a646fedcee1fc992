"""host-identity and os-family from announced device models, on facts made by hand."""

from __future__ import annotations

import pytest
from support.facts import EVERYTHING, fact, votes

from tracepcap.extract.kinds import DEVICE_MODEL
from tracepcap.scan.signals import discover
from tracepcap.scan.signals.host_identity import device_model
from tracepcap.scan.signals.os_family import device_model as os_device_model


def test_both_are_discovered():
    assert device_model.vote in discover("host_identity")
    assert os_device_model.vote in discover("os_family")


@pytest.mark.parametrize("model, line, device, family", [
    ("iMac11,3", "a Mac", "Workstation", "macOS"),
    ("MacBookPro16,1", "a Mac", "Workstation", "macOS"),
    ("Macmini9,1", "a Mac", "Workstation", "macOS"),
    ("Mac14,2", "a Mac", "Workstation", "macOS"),
    ("iPhone12,1", "an iPhone", "Mobile", "iOS"),
    ("iPad8,1", "an iPad", "Mobile", "iOS"),
    ("AppleTV6,2", "an Apple TV", "Media Device", None),
    ("AudioAccessory1,1", "a HomePod", "Media Device", None),
    ("Chromecast Ultra", "a Google cast device", "Media Device", None),
    ("HP LaserJet 400 M401dne", "a printer", "Printer", "Embedded"),
])
def test_each_model_line(model, line, device, family):
    facts = [fact(DEVICE_MODEL, model, 11, source="mdns-txt")]
    reason = f"announces model {model} over mDNS TXT, frame 11: {line} (+30)"
    assert votes(device_model, facts, EVERYTHING) == [(device, 30, reason, "REPORTED", (11,))]
    assert votes(os_device_model, facts, EVERYTHING) == ([(family, 30, reason, "REPORTED", (11,))] if family else [])


def test_a_upnp_model_names_its_source():
    assert votes(device_model, [fact(DEVICE_MODEL, "Sonos Play:1", 40, source="upnp")], EVERYTHING) == [
        ("Media Device", 30, "announces model Sonos Play:1 over its UPnP description, frame 40: a Sonos "
         "speaker (+30)", "REPORTED", (40,))]


@pytest.mark.parametrize("model", ["J42dAP", "Model X", "iMac", "RT-AX88U"])
def test_unknown_models_do_not_vote(model):
    assert votes(device_model, [fact(DEVICE_MODEL, model, source="mdns-txt")], EVERYTHING) == []
