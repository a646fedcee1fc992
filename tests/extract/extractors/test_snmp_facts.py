"""What SNMP agents say about themselves: sysName, sysDescr, sysObjectID."""

from __future__ import annotations

from tracepcap.extract.extractors.snmp import Snmp
from tracepcap.testing import snmp as s
from tracepcap.testing.scenario import Scenario

DESCR = "Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version 15.0(2)SE11, RELEASE SOFTWARE (fc3)"


def test_answers_and_traps(run, rows, manifest):
    net = Scenario()
    manager = net.host("10.0.0.250", "00:50:56:00:00:fa")
    switch = net.host("10.0.0.2", "00:00:0c:aa:bb:01")
    printer = net.host("10.0.0.30", "3c:d9:2b:00:00:30")
    oids = [s.SYS_DESCR, s.SYS_OBJECT_ID, s.SYS_NAME]
    net.udp(manager, switch, 50161, 161, s.get_request(1, oids))  # frame 1: a request names nothing
    net.udp(switch, manager, 161, 50161, s.get_response(1, [(s.SYS_DESCR, DESCR), (s.SYS_NAME, "sw-access-3"),
                                                            (s.SYS_OBJECT_ID, ("oid", "1.3.6.1.4.1.9.1.1208"))]))
    net.udp(printer, manager, 161, 50162, s.get_response(2, [(s.SYS_DESCR, "HP ETHERNET MULTI-ENVIRONMENT"),
                                                             (s.SYS_NAME, "")]))  # 3: an empty name
    net.udp(switch, manager, 50999, 162, s.trap_v2(7, "1.3.6.1.6.3.1.1.5.3", [(s.SYS_NAME, "sw-access-3")]))  # 4
    net.udp(printer, manager, 161, 50163, s.message(s.pdu(s.RESPONSE, 3, [(s.SYS_NAME, 42)])))  # 5: not a string
    net.udp(switch, manager, 161, 50164, s.v3_message(None))  # 6: encrypted
    result = run(net, Snmp)
    assert rows(result) == {
        ("10.0.0.2", "snmp-sysdescr", DESCR, "snmp", 2, 2, 1),
        ("10.0.0.2", "hostname-claim", "sw-access-3", "snmp", 2, 4, 2),
        ("10.0.0.2", "snmp-sysobjectid", "1.3.6.1.4.1.9.1.1208", "snmp", 2, 2, 1),
        ("10.0.0.30", "snmp-sysdescr", "HP ETHERNET MULTI-ENVIRONMENT", "snmp", 3, 3, 1)}
    assert manifest(result, "snmp").status == "completed"


def test_not_snmp_on_its_port_is_recorded(run, manifest):
    net = Scenario()
    a, b = net.host("10.0.0.1", "00:00:0c:00:00:01"), net.host("10.0.0.2", "00:00:0c:00:00:02")
    net.udp(a, b, 161, 40000, b"\x30\x05\x02\x01")
    result = run(net, Snmp)
    row = manifest(result, "snmp")
    assert (row.status, row.error) == ("completed", "1 notice (snmp-truncated 1)")
    assert [(n.kind, n.entity, n.frame) for n in result.notices] == [("snmp-truncated", "10.0.0.1", 1)]
    assert result.notice_counts == {"snmp-truncated": 1}
