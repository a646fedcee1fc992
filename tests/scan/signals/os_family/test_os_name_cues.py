"""os-family from the names devices give themselves: the OS each naming scheme implies."""

from __future__ import annotations

import pytest
from support.facts import EVERYTHING, fact, votes

from tracepcap.extract.kinds import HOSTNAME_CLAIM
from tracepcap.scan.signals import discover
from tracepcap.scan.signals.os_family import name_cues


def test_name_cues_is_discovered():
    assert name_cues.vote in discover("os_family")


@pytest.mark.parametrize("name, family, scheme", [
    ("Gabrieles-iPad.local", "iOS", "an iPad's naming"),
    ("Lucas-iMac.local", "macOS", "a Mac's naming"),
    ("DESKTOP-RB5T12G", "Windows", "Windows' generated computer name"),
    ("android-3f2a9c1d0e5b7a64", "Android", "Android's default name"),
    ("TL-SG116E", "Network OS", "a TP-Link managed switch model (TL-SG, TL-SX)"),
])
def test_the_family_each_scheme_implies(name, family, scheme):
    assert votes(name_cues, [fact(HOSTNAME_CLAIM, name, 11, source="mdns")], EVERYTHING) == [
        (family, 20, f"it calls itself {name} over mDNS, frame 11: {scheme} (+20)", "REPORTED", (11,))]


def test_a_printer_name_names_embedded_firmware():
    assert votes(name_cues, [fact(HOSTNAME_CLAIM, "NPI8A2B3C", source="dhcp")], EVERYTHING) == [
        ("Embedded", 20, "it calls itself NPI8A2B3C over DHCP, frame 1: an HP JetDirect printer's default name "
         "(+20)", "REPORTED", (1,))]
