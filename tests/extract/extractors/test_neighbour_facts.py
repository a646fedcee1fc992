"""`ip-mac-binding` and `gratuitous-announcement` facts from ARP and IPv6 neighbor discovery."""

from __future__ import annotations

from tracepcap.extract.extractors.arp import Arp
from tracepcap.extract.extractors.ndp import Ndp
from tracepcap.testing import discovery as d
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Scenario

MAC, OTHER = "00:1b:21:0a:0b:0c", "00:50:56:aa:bb:cc"


def test_real_arp_replies(run, rows, manifest, captures):
    # monitor_large_week1_baseline.pcap: 178 ARP frames, all replies, one per address
    # (tshark: arp.opcode == 2); frame 1 is the gateway's, addressed to 0.0.0.0
    result = run(captures / "monitor_large_week1_baseline.pcap", Arp)
    facts = rows(result)
    assert len(facts) == 178 and {r[1] for r in facts} == {"ip-mac-binding"}
    assert ("10.0.1.1", "ip-mac-binding", "00:aa:bb:cc:dd:01", "arp", 1, 1, 1) in facts
    assert ("10.0.2.10", "ip-mac-binding", "00:aa:bb:cc:dd:10", "arp", 2, 2, 1) in facts
    assert manifest(result, "arp").status == "completed"


def test_a_request_binds_nothing_its_reply_does(run, rows, captures):
    # telegram_voice.pcapng frame 331: who has 192.168.12.67, tell 192.168.12.1; 333: the reply
    assert rows(run(captures / "telegram_voice.pcapng", Arp)) == {
        ("192.168.12.67", "ip-mac-binding", "62:13:b6:7a:c0:69", "arp", 333, 333, 1)}


def test_gratuitous_arp(run, rows):
    net = Scenario()
    net.emit(d.gratuitous_arp(MAC, "10.0.0.5"))  # frame 1: an announcement (request form)
    net.emit(d.gratuitous_arp(MAC, "10.0.0.5", reply=True))  # 2: the reply form
    spoof = f.arp(f.ARP_REPLY, OTHER, "10.0.0.5", OTHER, "10.0.0.5")  # 3: another MAC claims it
    net.emit(f.ethernet(MAC, f.BROADCAST_MAC, f.ETH_ARP, spoof, pad=True))
    probe = f.arp(f.ARP_REQUEST, MAC, "0.0.0.0", "00:00:00:00:00:00", "10.0.0.9")  # 4: RFC 5227 probe
    net.emit(f.ethernet(MAC, f.BROADCAST_MAC, f.ETH_ARP, probe, pad=True))
    group = f.arp(f.ARP_REPLY, "01:00:5e:00:00:01", "10.0.0.7", MAC, "10.0.0.1")  # 5: a group MAC
    net.emit(f.ethernet(MAC, f.BROADCAST_MAC, f.ETH_ARP, group, pad=True))
    assert rows(run(net, Arp)) == {
        ("10.0.0.5", "ip-mac-binding", MAC, "arp", 1, 2, 2),
        ("10.0.0.5", "ip-mac-binding", OTHER, "arp", 3, 3, 1),
        ("10.0.0.5", "gratuitous-announcement", MAC, "arp", 1, 3, 3),  # frame 3 was sent by MAC
    }


def nd(net, message, src="fe80::21b:21ff:fe0a:b0c", dst="ff02::1", hop_limit=255):
    net.emit(d.nd_frame(MAC, "33:33:00:00:00:01", src, dst, message, hop_limit))


def test_neighbor_discovery(run, rows):
    net = Scenario()
    me = "fe80::21b:21ff:fe0a:b0c"
    nd(net, d.neighbor_advert(me, "ff02::1", "2001:db8::5", MAC, solicited=False))  # 1: unsolicited
    nd(net, d.neighbor_advert(me, "fe80::1", "2001:db8::5", MAC), dst="fe80::1")  # 2: solicited
    nd(net, d.neighbor_advert(me, "fe80::1", "2001:db8::6", None), dst="fe80::1")  # 3: no TLLA
    nd(net, d.router_advert(me, "ff02::1", MAC))  # 4: a router's link-local address
    nd(net, d.neighbor_advert(me, "ff02::1", "2001:db8::7", OTHER), hop_limit=64)  # 5: forwarded
    assert rows(run(net, Ndp)) == {
        ("2001:db8::5", "ip-mac-binding", MAC, "ndp", 1, 2, 2),
        ("2001:db8::5", "gratuitous-announcement", MAC, "ndp", 1, 1, 1),
        (me, "ip-mac-binding", MAC, "ndp", 4, 4, 1),
    }
