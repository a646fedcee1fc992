"""SSH banners, on the side that sent them."""

from __future__ import annotations

from tracepcap.extract.extractors.ssh import Ssh
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


def test_both_sides(run, rows):
    net = Scenario()
    admin = net.host("10.0.0.5", "00:1b:21:00:00:05")
    box = net.host("10.0.0.22", "00:1b:21:00:00:16")
    # frames 1-3 handshake; 4 client banner, 5 ACK; 6 server banner, 7 ACK
    net.tcp_session(admin, box, 50522, 2222, client=[app.ssh_banner("PuTTY_Release_0.81")],
                    server=[app.ssh_banner("OpenSSH_9.6p1", "Ubuntu-3ubuntu13")])
    assert rows(run(net, Ssh)) == {
        ("10.0.0.5", "ssh-banner", "SSH-2.0-PuTTY_Release_0.81", "ssh", 4, 4, 1),
        ("10.0.0.22", "ssh-banner", "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13", "ssh", 6, 6, 1)}


def test_other_streams_on_port_22_say_nothing(run, rows, manifest):
    net = Scenario()
    a, b = net.host("10.0.0.5", "00:1b:21:00:00:05"), net.host("10.0.0.6", "00:1b:21:00:00:06")
    net.tcp_session(a, b, 50000, 22, client=[b"hello\r\n"], server=[b"SSH-2.0-cut-off"])
    result = run(net, Ssh)
    assert rows(result) == set() and manifest(result, "ssh").status == "completed"


def test_demo_all_rules(run, rows, captures):
    # frame 1660: 10.10.0.1 -> 10.10.0.3:22 "SSH-2.0-OpenSSH_8.9"; the server answers
    # "DATA 10.10.0.3" (frame 1662), which is no SSH banner
    assert rows(run(captures / "demo_all_rules.pcap", Ssh)) == {
        ("10.10.0.1", "ssh-banner", "SSH-2.0-OpenSSH_8.9", "ssh", 1660, 1660, 1)}
