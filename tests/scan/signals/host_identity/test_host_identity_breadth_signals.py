"""host-identity signals on LLDP/CDP capabilities and SNMP system descriptions, on facts
made by hand: each one's exact votes and reasons."""

from __future__ import annotations

import pytest
from support.facts import EVERYTHING, fact, votes

from tracepcap.extract.kinds import LLDP_CAPABILITIES, LLDP_PLATFORM, SNMP_SYSDESCR
from tracepcap.scan.signals import discover
from tracepcap.scan.signals.host_identity import link_discovery, snmp_sysdescr


def test_both_signals_are_discovered():
    names = {f.__module__.rsplit(".", 1)[-1] for f in discover("host_identity")}
    assert {"link_discovery", "snmp_sysdescr"} <= names


@pytest.mark.parametrize("capabilities, label", [
    ("bridge,telephone", "VoIP Phone"), ("bridge,wlan-ap", "Access Point"), ("wlan-ap", "Access Point"),
    ("bridge", "Switch"), ("router", "Router"), ("repeater,router", "Router"),
])
def test_capabilities(capabilities, label):
    assert votes(link_discovery, [fact(LLDP_CAPABILITIES, capabilities, 7, source="lldp")], EVERYTHING) == [
        (label, 70, f"announces capabilities {capabilities} over LLDP, frame 7 (+70)", "REPORTED", (7,))]


def test_a_routing_bridge_is_a_switch_that_also_routes():
    assert votes(link_discovery, [fact(LLDP_CAPABILITIES, "bridge,router,igmp", 12, source="cdp")], EVERYTHING) == [
        ("Switch", 70, "announces capabilities bridge,router,igmp over CDP, frame 12 (+70)", "REPORTED", (12,)),
        ("Router", 35, "also routes (router capability over CDP), frame 12 (+35)", "REPORTED", (12,))]


def test_an_aironet_is_an_access_point_whatever_it_bridges():
    facts = [fact(LLDP_CAPABILITIES, "bridge,router", 3, source="cdp"),
             fact(LLDP_PLATFORM, "cisco AIR-CAP3702I-E-K9", 3, source="cdp")]
    assert votes(link_discovery, facts, EVERYTHING) == [
        ("Access Point", 70, "announces capabilities bridge,router over CDP and its platform is cisco "
         "AIR-CAP3702I-E-K9, frame 3 (+70)", "REPORTED", (3,))]


def test_lldp_and_cdp_saying_the_same_vote_once():
    facts = [fact(LLDP_CAPABILITIES, "bridge", 9, source="cdp"), fact(LLDP_CAPABILITIES, "bridge", 4, source="lldp")]
    assert [v[:2] for v in votes(link_discovery, facts, EVERYTHING)] == [("Switch", 70)]


def test_station_and_other_capabilities_say_nothing():
    assert votes(link_discovery, [fact(LLDP_CAPABILITIES, "station", 1, source="lldp"),
                                  fact(LLDP_CAPABILITIES, "other", 2, source="lldp")], EVERYTHING) == []


@pytest.mark.parametrize("descr, label", [
    ("HP ETHERNET MULTI-ENVIRONMENT,ROM none,JETDIRECT,JD153,EEPROM JSI24090012", "Printer"),
    ("AXIS 211 Network Camera", "IP Camera"),
    ("Cisco Adaptive Security Appliance Version 9.8(4)", "Firewall"),
    ("Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version 15.0(2)SE11", "Switch"),
    ("RouterOS RB4011iGS+", "Router"),
    ("Cisco AP Software, ap3g2-k9w7-M, Version 15.3(3)JF5 Aironet", "Access Point"),
])
def test_sysdescr(descr, label):
    shown = descr if len(descr) <= 80 else descr[:77] + "..."
    assert votes(snmp_sysdescr, [fact(SNMP_SYSDESCR, descr, 5, source="snmp")], EVERYTHING) == [
        (label, 45, f"its SNMP sysDescr reads \"{shown}\", frame 5 (+45)", "REPORTED", (5,))]


def test_sysdescr_that_names_no_device_type():
    nas = fact(SNMP_SYSDESCR, "Linux nas 5.10.0 #1 SMP x86_64", 5, source="snmp")
    assert votes(snmp_sysdescr, [nas], EVERYTHING) == []
    long = "Hardware: Intel64 Family 6 Model 85 Stepping 7 AT/AT COMPATIBLE - Software: Windows Version 6.3"
    assert votes(snmp_sysdescr, [fact(SNMP_SYSDESCR, long, 5, source="snmp")], EVERYTHING) == []


def test_whole_capture_switch_phone_and_printer(analyze_json, tmp_path):
    """LLDP, CDP and SNMP facts flow from a capture through Extract into the verdicts."""
    from tracepcap.testing import app
    from tracepcap.testing import discovery as d
    from tracepcap.testing import snmp as s
    from tracepcap.testing.scenario import Scenario

    net = Scenario()
    switch = net.host("10.0.0.2", "00:00:0c:aa:bb:01", ttl=255)
    phone = net.host("10.0.5.21", "00:1b:21:0a:0b:0c")
    printer = net.host("10.0.0.30", "3c:d9:2b:0a:0b:30")  # Hewlett Packard
    manager = net.host("10.0.0.250", "00:1b:21:0a:0b:fa")
    net.emit(d.lldp_frame(switch.mac, system_name="sw-access-3", capabilities=["bridge", "router"],
                          enabled=["bridge"], management=[switch.ip]))
    net.emit(d.cdp_frame(phone.mac, device_id="SEP001B210A0B0C", capabilities=["host", "phone"],
                         platform="Cisco IP Phone 7975", addresses=[phone.ip]))
    net.udp(manager, switch, 50161, 161, s.get_request(1, [s.SYS_DESCR]))
    net.udp(switch, manager, 161, 50161, s.get_response(1, [(s.SYS_DESCR, "Cisco IOS Software, C2960 Software")]))
    net.udp(manager, printer, 50162, 161, s.get_request(2, [s.SYS_DESCR]))
    net.udp(printer, manager, 161, 50162, s.get_response(2, [(s.SYS_DESCR, "HP ETHERNET MULTI-ENVIRONMENT")]))
    net.udp(phone, manager, 50000, 53, app.dns_query(3, "cucm.corp.example"))
    hosts = {ip: h["verdicts"]["host-identity"] for ip, h in analyze_json(net.write_pcap(tmp_path / "c.pcap")).items()}
    assert {ip: hosts[ip]["primary_label"] for ip in (switch.ip, phone.ip, printer.ip)} == {
        switch.ip: "Switch", phone.ip: "VoIP Phone", printer.ip: "Printer"}
    reasons = [r for c in hosts[switch.ip]["candidates"] if c["label"] == "Switch" for r in c["reasons"]]
    assert "announces capabilities bridge over LLDP, frame 1 (+70)" in reasons
