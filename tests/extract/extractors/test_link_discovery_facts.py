"""LLDP and CDP facts: names, software, platform and capabilities, landed on the
management address or, without one, on the address the sender's MAC claimed in ARP."""

from __future__ import annotations

from tracepcap.extract.extractors.cdp import Cdp
from tracepcap.extract.extractors.lldp import Lldp
from tracepcap.limits import Limits
from tracepcap.testing import discovery as d
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Scenario

SWITCH_MAC, PHONE_MAC, AP_MAC = "00:00:0c:aa:bb:01", "00:1b:21:0a:0b:0c", "00:11:22:33:44:55"
IOS = ("Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version 12.2(50)SE5, RELEASE SOFTWARE (fc1)\n"
       "Technical Support: http://www.cisco.com/techsupport\nCopyright (c) 1986-2010 by Cisco Systems, Inc.")


def arp_reply(mac, ip):
    return f.ethernet(mac, "00:00:00:00:00:01", f.ETH_ARP, f.arp(f.ARP_REPLY, mac, ip, "00:00:00:00:00:01",
                                                                 "10.0.0.1"), pad=True)


def test_lldp_on_the_management_address(run, rows, manifest):
    net = Scenario()
    switch = d.lldp_frame(SWITCH_MAC, system_name="sw-access-3", description=IOS,
                          capabilities=["bridge", "router"], enabled=["bridge", "router"],
                          management=["10.0.0.2"])
    net.emit(switch)  # frame 1
    net.emit(switch)  # 2: every 30 seconds, the same
    result = run(net, Lldp)
    assert rows(result) == {
        ("10.0.0.2", "hostname-claim", "sw-access-3", "lldp", 1, 2, 2),
        ("10.0.0.2", "lldp-software", "Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version "
         "12.2(50)SE5, RELEASE SOFTWARE (fc1) Technical Support: http://www.cisco.com/techsupport Copyright "
         "(c) 1986-2010 by Cisco Systems, Inc.", "lldp", 1, 2, 2),
        ("10.0.0.2", "lldp-capabilities", "bridge,router", "lldp", 1, 2, 2)}
    assert manifest(result, "lldp").status == "completed"


def test_lldp_med_phone_landed_through_arp(run, rows, manifest):
    net = Scenario()
    net.emit(arp_reply(PHONE_MAC, "10.0.5.21"))  # frame 1: the phone's address, before
    phone = d.lldp_frame(PHONE_MAC, system_name="SEP001B210A0B0C", capabilities=["bridge", "telephone"],
                         med={d.MED_SOFTWARE: "sip88xx.14-1-1", d.MED_MANUFACTURER: "Cisco Systems, Inc.",
                              d.MED_MODEL: "CP-8845"})
    net.emit(phone)  # 2
    net.emit(phone)  # 3
    access_point = d.lldp_frame(AP_MAC, system_name="ap-lobby", capabilities=["bridge", "wlan-ap"],
                                enabled=["wlan-ap"])
    net.emit(access_point)  # 4: its ARP comes after
    net.emit(arp_reply(AP_MAC, "10.0.6.9"))  # 5
    net.emit(d.lldp_frame("00:99:99:99:99:99", system_name="nobody"))  # 6: never in ARP
    result = run(net, Lldp)
    assert manifest(result, "lldp").error == ("1 senders named no management address and claimed "
                                              "none in ARP: their facts landed on their MAC")
    assert rows(result) == {
        # never in ARP: a device known by its MAC alone (scan makes it a MAC-only device)
        ("mac-00-99-99-99-99-99", "hostname-claim", "nobody", "lldp", 6, 6, 1),
        ("mac-00-99-99-99-99-99", "mac", "00:99:99:99:99:99", "lldp", 6, 6, 1),
        ("10.0.5.21", "hostname-claim", "SEP001B210A0B0C", "lldp", 2, 3, 2),
        ("10.0.5.21", "lldp-software", "sip88xx.14-1-1", "lldp", 2, 3, 2),
        ("10.0.5.21", "lldp-platform", "Cisco Systems, Inc. CP-8845", "lldp", 2, 3, 2),
        ("10.0.5.21", "lldp-capabilities", "bridge,telephone", "lldp", 2, 3, 2),
        ("10.0.6.9", "hostname-claim", "ap-lobby", "lldp", 4, 4, 1),
        ("10.0.6.9", "lldp-capabilities", "wlan-ap", "lldp", 4, 4, 1)}


def test_waiting_senders_are_bounded(run, manifest):
    net = Scenario()
    for i in range(5):
        net.emit(d.lldp_frame(f"00:99:99:99:99:0{i}", system_name=f"sw{i}"))
    result = run(net, Lldp, limits=Limits(max_pending=3))
    assert manifest(result, "lldp").error.startswith("2 entries evicted from a bounded table; 3 senders")


def test_cdp(run, rows):
    net = Scenario()
    net.emit(d.cdp_frame(SWITCH_MAC, device_id="sw-core-1.corp.example", capabilities=["router", "switch", "igmp"],
                         software=IOS, platform="cisco WS-C3750X-48P", addresses=["10.0.0.1"]))  # 1
    old_ios = "Cisco Internetwork Operating System Software \nIOS (tm) C2950 Software (C2950-I6Q4L2-M), Version 12.1(22)EA14"
    net.emit(arp_reply("00:00:0c:aa:bb:02", "10.0.0.3"))  # 2
    net.emit(d.cdp_frame("00:00:0c:aa:bb:02", device_id="sw-old", capabilities=["trans-bridge"],
                         software=old_ios, platform="cisco WS-C2950-24"))  # 3: no address of its own
    stp = f.ethernet(SWITCH_MAC, "01:80:c2:00:00:00", 38, b"\x42\x42\x03" + bytes(35), pad=True)
    net.emit(stp)  # 4: spanning tree, LLC but not CDP
    assert rows(run(net, Cdp)) == {
        ("10.0.0.1", "hostname-claim", "sw-core-1.corp.example", "cdp", 1, 1, 1),
        ("10.0.0.1", "lldp-software", "Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version "
         "12.2(50)SE5, RELEASE SOFTWARE (fc1)", "cdp", 1, 1, 1),
        ("10.0.0.1", "lldp-platform", "cisco WS-C3750X-48P", "cdp", 1, 1, 1),
        ("10.0.0.1", "lldp-capabilities", "bridge,router,igmp", "cdp", 1, 1, 1),
        ("10.0.0.3", "hostname-claim", "sw-old", "cdp", 3, 3, 1),
        ("10.0.0.3", "lldp-software", "IOS (tm) C2950 Software (C2950-I6Q4L2-M), Version 12.1(22)EA14", "cdp", 3, 3, 1),
        ("10.0.0.3", "lldp-platform", "cisco WS-C2950-24", "cdp", 3, 3, 1),
        ("10.0.0.3", "lldp-capabilities", "bridge", "cdp", 3, 3, 1)}


def test_broken_lldp_is_recorded(run, manifest):
    net = Scenario()
    net.emit(d.lldp_frame(SWITCH_MAC, system_name="sw")[:30])  # cut inside the TLVs
    result = run(net, Lldp)
    row = manifest(result, "lldp")
    assert (row.status, row.error) == ("completed", "1 notice (lldp-truncated 1)")
    assert [(n.kind, n.entity, n.frame) for n in result.notices] == [("lldp-truncated", SWITCH_MAC, 1)]
