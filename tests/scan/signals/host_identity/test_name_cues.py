"""host-identity from the names devices give themselves, on facts made by hand: each
scheme's exact vote and reason, and the names that must not vote."""

from __future__ import annotations

import pytest
from support.facts import EVERYTHING, fact, votes

from tracepcap.extract.kinds import HOSTNAME_CLAIM
from tracepcap.scan.signals import discover
from tracepcap.scan.signals.host_identity import name_cues


def test_name_cues_is_discovered():
    assert name_cues.vote in discover("host_identity")


@pytest.mark.parametrize("name, source, said, label, scheme", [
    ("Gabrieles-iPad.local", "mdns", "mDNS", "Mobile", "an iPad's naming"),
    ("Annas-iPhone", "dhcp", "DHCP", "Mobile", "an iPhone's naming"),
    ("Lucas-iMac.local", "mdns", "mDNS", "Workstation", "a Mac's naming"),
    ("Johns-MacBook-Pro.local", "mdns", "mDNS", "Workstation", "a Mac's naming"),
    ("DESKTOP-RB5T12G", "browser", "a Browser announcement", "Workstation", "Windows' generated computer name"),
    ("LAPTOP-0A1B2C3", "nbns", "NBNS", "Workstation", "Windows' generated computer name"),
    ("android-3f2a9c1d0e5b7a64", "dhcp", "DHCP", "Mobile", "Android's default name"),
    ("Galaxy-S21", "dhcp", "DHCP", "Mobile", "a Samsung Galaxy phone's default name"),
    ("TL-SG116E", "dhcp", "DHCP", "Switch", "a TP-Link managed switch model (TL-SG, TL-SX)"),
    ("NPI8A2B3C", "dhcp", "DHCP", "Printer", "an HP JetDirect printer's default name"),
    ("HP3C2A1B", "mdns", "mDNS", "Printer", "an HP printer's default name"),
    ("BRN008077A1B2C3", "nbns", "NBNS", "Printer", "a Brother printer's default name"),
    ("EPSON1A2B3C.local", "mdns", "mDNS", "Printer", "an Epson printer's default name"),
    ("axis-00408c123456", "dhcp", "DHCP", "IP Camera", "an Axis camera's default name"),
])
def test_each_scheme(name, source, said, label, scheme):
    assert votes(name_cues, [fact(HOSTNAME_CLAIM, name, 29, source=source)], EVERYTHING) == [
        (label, 20, f"it calls itself {name} over {said}, frame 29: {scheme} (+20)", "REPORTED", (29,))]


@pytest.mark.parametrize("name", ["hypadrome", "DESKTOP-PC", "fileserver01", "Gabrieles-Android-TV.lan",
                                  "printer", "HPLaserJet"])
def test_names_without_a_known_scheme_do_not_vote(name):
    assert votes(name_cues, [fact(HOSTNAME_CLAIM, name, source="dhcp")], EVERYTHING) == []


def test_what_others_say_the_host_is_called_is_no_cue():
    """A DNS answer or an HTTP Host header names a service, not the device's make."""
    assert votes(name_cues, [fact(HOSTNAME_CLAIM, "ipad.example.com", source="dns-ptr"),
                  fact(HOSTNAME_CLAIM, "iphone.example.com", source="http-host")], EVERYTHING) == []


def test_one_vote_per_device_type_from_the_earliest_name():
    assert votes(name_cues, [fact(HOSTNAME_CLAIM, "Gabrieles-iPad.local", 29, source="mdns"),
                  fact(HOSTNAME_CLAIM, "Gabrieles-iPad", 5, source="dhcp")], EVERYTHING) == [
        ("Mobile", 20, "it calls itself Gabrieles-iPad over DHCP, frame 5: an iPad's naming (+20)",
         "REPORTED", (5,))]
