"""NBNS facts: unique workstation/server names on the address their NB record gives."""

from __future__ import annotations

from tracepcap.extract.extractors.nbns import Nbns
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


def test_registrations_and_answers(run, rows):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    srv = net.host("10.0.0.6", "00:1b:21:00:00:06")
    bcast = "10.0.0.255"
    net.udp(pc, bcast, 137, 137, app.nbns_registration(1, "DESKTOP-7", "10.0.0.5"))  # 1
    net.udp(pc, bcast, 137, 137, app.nbns_registration(2, "DESKTOP-7", "10.0.0.5", 0x20))  # 2
    net.udp(pc, bcast, 137, 137, app.nbns_registration(3, "WORKGROUP", "10.0.0.5", group=True))
    net.udp(pc, bcast, 137, 137, app.nbns_registration(4, "WORKGROUP", "10.0.0.5", 0x1D))
    net.udp(pc, bcast, 137, 137, app.nbns_query(5, "FILESRV", 0x20))  # 5: a question only
    net.udp(srv, pc, 137, 137, app.nbns_query_response(5, "FILESRV", "10.0.0.6", 0x20))  # 6
    assert rows(run(net, Nbns)) == {
        ("10.0.0.5", "hostname-claim", "DESKTOP-7", "nbns", 1, 2, 2),
        ("10.0.0.6", "hostname-claim", "FILESRV", "nbns", 6, 6, 1)}


def test_demo_all_rules_has_queries_only(run, rows, manifest, captures):
    # frames 613-615: 192.168.1.77 asks for WORKGROUP<1d>; nobody answers
    result = run(captures / "demo_all_rules.pcap", Nbns)
    assert rows(result) == set() and manifest(result, "nbns").status == "completed"
