"""Windows Browser announcements through NetBIOS datagram, SMB1 TRANSACTION and mailslot."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, browser
from tracepcap.testing import identity


def test_real_host_announcement(payload):
    # demo_all_rules.pcap frame 612: 192.168.1.43 announces DESKTOP-RB5T12G to WORKGROUP<1d>,
    # OS 10.0, server type 0x00001003 (tshark: Workstation, Server, NT Workstation)
    found = browser.decode(memoryview(payload("demo_all_rules.pcap", 612)))
    assert found == browser.Announcement(browser.HOST_ANNOUNCEMENT, "DESKTOP-RB5T12G", 10, 0,
                                         0x1003, "")
    assert found.roles == ("workstation", "server", "nt-workstation")


def test_synthetic_announcement_with_comment_and_domain_controller_bit():
    data = identity.browser_announcement("DC01", "10.0.0.2", os_version=(6, 3),
                                         server_type=0x1 | 0x2 | 0x8 | 0x8000, comment="corp dc")
    found = browser.decode(data)
    assert (found.name, found.os_major, found.os_minor, found.comment) == ("DC01", 6, 3, "corp dc")
    assert found.roles == ("workstation", "server", "domain-controller", "nt-server")


def test_other_datagrams_and_commands_are_not_announcements():
    data = bytearray(identity.browser_announcement("PC", "10.0.0.5"))
    assert browser.decode(bytes([0x13]) + bytes(data[1:])) is None  # datagram error
    smb_at = browser.DATAGRAM.size + 2 * 34
    data[smb_at + 4] = 0x32  # TRANSACTION2
    assert browser.decode(bytes(data)) is None


def test_user_data_that_is_not_smb_is_malformed():
    data = bytearray(identity.browser_announcement("PC", "10.0.0.5"))
    data[browser.DATAGRAM.size + 2 * 34] = 0x00
    with pytest.raises(Malformed, match="not an SMB1 message"):
        browser.decode(bytes(data))


def test_truncation_sweep(sweep, payload):
    sweep(browser.decode, payload("demo_all_rules.pcap", 612))
    sweep(browser.decode, identity.browser_announcement("DC01", "10.0.0.2", comment="x"))
