"""host-identity from Windows Browser announcement type bits, on facts made by hand."""

from __future__ import annotations

import pytest
from support.facts import EVERYTHING, fact, votes

from tracepcap.extract.kinds import BROWSER_SERVER_TYPE
from tracepcap.scan.signals import discover
from tracepcap.scan.signals.host_identity import browser_role


def test_browser_role_is_discovered():
    assert browser_role.vote in discover("host_identity")


@pytest.mark.parametrize("bits, label, what", [
    ("workstation,server,nt-workstation", "Workstation", "a Windows desktop edition"),
    ("workstation,server,domain-controller,nt-server", "Directory Server", "a domain controller"),
    ("workstation,server,backup-domain-controller,nt-server", "Directory Server", "a backup domain controller"),
    ("workstation,server,nt-server", "Server", "a Windows Server edition"),
    ("workstation,server,windows-95+", "Workstation", "a workstation"),
])
def test_the_bits_that_name_a_device_type(bits, label, what):
    assert votes(browser_role, [fact(BROWSER_SERVER_TYPE, bits, 612, source="browser")], EVERYTHING) == [
        (label, 25, f"its Browser announcement, frame 612, sets the type bits {bits}: {what} (+25)",
         "REPORTED", (612,))]


def test_the_server_service_bit_alone_names_nothing():
    assert votes(browser_role, [fact(BROWSER_SERVER_TYPE, "server,print-server", source="browser")], EVERYTHING) == []
