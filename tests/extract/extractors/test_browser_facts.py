"""Browser announcement facts: name, reported Windows version and server-type bits."""

from __future__ import annotations

from tracepcap.extract.extractors.browser import Browser
from tracepcap.testing import identity
from tracepcap.testing.scenario import Scenario


def test_demo_all_rules_frame_612(run, rows, captures):
    result = run(captures / "demo_all_rules.pcap", Browser)
    assert rows(result) == {
        ("192.168.1.43", "hostname-claim", "DESKTOP-RB5T12G", "browser", 612, 612, 1),
        ("192.168.1.43", "os-version", "Windows 10.0", "browser", 612, 612, 1),
        ("192.168.1.43", "browser-server-type", "workstation,server,nt-workstation", "browser",
         612, 612, 1)}


def test_repeated_announcements_fold_and_only_port_138_senders_count(run, rows):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    dc = net.host("10.0.0.2", "00:1b:21:00:00:02")
    for _ in range(2):  # frames 1, 2
        net.udp(pc, "10.0.0.255", 138, 138, identity.browser_announcement("PC-5", "10.0.0.5"))
    net.udp(dc, "10.0.0.255", 138, 138, identity.browser_announcement(  # frame 3
        "DC01", "10.0.0.2", os_version=(6, 3), server_type=0x1 | 0x2 | 0x8 | 0x8000))
    net.udp(dc, pc, 50000, 138, identity.browser_announcement("FAKE", "10.0.0.2"))  # frame 4
    assert rows(run(net, Browser)) == {
        ("10.0.0.5", "hostname-claim", "PC-5", "browser", 1, 2, 2),
        ("10.0.0.5", "os-version", "Windows 10.0", "browser", 1, 2, 2),
        ("10.0.0.5", "browser-server-type", "workstation,server,nt-workstation", "browser", 1, 2, 2),
        ("10.0.0.2", "hostname-claim", "DC01", "browser", 3, 3, 1),
        ("10.0.0.2", "os-version", "Windows 6.3", "browser", 3, 3, 1),
        ("10.0.0.2", "browser-server-type", "workstation,server,domain-controller,nt-server",
         "browser", 3, 3, 1)}
