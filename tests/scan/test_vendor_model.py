"""The vendor and model the evidence names (issue 25): the vendor-model question, and the
host-identity reason that says them beside the class; on a generated capture and on the real
IoT set."""

from __future__ import annotations

import pytest
from support.facts import context, fact, votes

from tracepcap.extract.kinds import DNS_QUERY, HOSTNAME_CLAIM, MDNS_SERVICE
from tracepcap.scan.signals.vendor_model import knowledge_base as vendor_model
from tracepcap.scan.signals.vendor_model.knowledge_base import make
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


SAYS = ("label", "weight")  #: what these tests compare of a vote


def test_make_joins_vendor_and_model_once():
    assert make("D-Link", "DSP-W215") == "D-Link DSP-W215"
    assert make("Philips Hue", "Hue Bridge") == "Philips Hue Bridge"
    assert make("Edimax", None) == "Edimax"
    assert make("TP-Link", "TP-Link HS110") == "TP-Link HS110"


def test_every_entry_of_the_vendor_supports_the_model_one_of_them_names():
    ctx = context({"h": [fact(HOSTNAME_CLAIM, "DSP-W215", 3, source="dhcp"), fact(DNS_QUERY, "r0801.dch.dlink.com", 9),
                         fact(MDNS_SERVICE, "D-Link HNAP Service._dhnap._tcp.local", 12)]})
    assert votes(vendor_model, ctx.host("h"), SAYS) == [("D-Link DSP-W215", 30), ("D-Link DSP-W215", 30),
                                                        ("D-Link DSP-W215", 25)]


def test_a_chip_maker_names_no_vendor_and_a_lone_cloud_names_the_vendor():
    assert votes(vendor_model, [fact(HOSTNAME_CLAIM, "ESP_1A2B3C", 3, source="dhcp")], SAYS) == []
    assert votes(vendor_model, [fact(DNS_QUERY, "www.myedimax.com", 5)], SAYS) == [("Edimax", 25)]


def test_a_device_makers_oui_names_the_vendor_weakly():
    from tracepcap.scan.knowledge import knowledge
    from tracepcap.scan.signals.host_identity.knowledge_base import WEAK_WEIGHT

    entry = knowledge().oui("Edimax Technology Co. Ltd.")
    assert (entry.vendor, entry.weak, entry.label, entry.chip) == ("Edimax", True, None, False)
    assert WEAK_WEIGHT == 10  # a maker of several kinds of device: the vendor, weakly, and no class


def smart_plug(path):
    """A TP-Link HS110 joining a home network: DHCP with its default name, a lookup of its
    vendor's cloud answered through a CNAME, and a TLS connection to the address it got."""
    net = Scenario()
    router = net.host("192.168.0.1", "00:1b:21:00:00:01")
    plug = net.dhcp_exchange("50:c7:bf:12:34:56", router, "192.168.0.23", router="192.168.0.1",
                             dns_servers=["192.168.0.1"], hostname="HS110")
    cloud = net.host("203.0.113.10", "00:1b:21:00:00:01")  # beyond the router
    net.udp(plug, router, 40000, 53, app.dns_query(9, "devs.tplinkcloud.com"))
    net.udp(router, plug, 53, 40000, app.dns_response(9, "devs.tplinkcloud.com", [
        ("devs.tplinkcloud.com", "CNAME", "elb-7.cloud-lb.example", 60),
        ("elb-7.cloud-lb.example", "A", "203.0.113.10", 60)]))
    net.tcp_session(plug, cloud, 41000, 443, client=[b"\x16\x03\x01\x00\x05hello"], server=[b"\x16\x03\x03\x00\x02ok"])
    return net.write_pcap(path)


def test_a_generated_smart_plug_is_named_by_vendor_and_model(analyze_json, tmp_path):
    host = analyze_json(smart_plug(tmp_path / "plug.pcap"))["192.168.0.23"]
    make_model = host["verdicts"]["vendor-model"]
    assert (make_model["primary_label"], make_model["contested"]) == ("TP-Link HS110", False)
    assert any(r.startswith("it resolves and contacts *.tplinkcloud.com (devs.tplinkcloud.com), frame ")
               for r in make_model["candidates"][0]["reasons"])
    identity = host["verdicts"]["host-identity"]
    assert identity["primary_label"] == "Smart Plug"
    assert ("Smart Plug — TP-Link HS110 (its DHCP host name and its cloud *.tplinkcloud.com) (+0)"
            in identity["candidates"][0]["reasons"])


@pytest.fixture(scope="module")
def dlink_plug(analyze_json, captures):
    return analyze_json(captures / "real" / "iot-sentinel" / "D-LinkSwitch" / "Setup-A-1-STA.pcap")


def test_the_real_dlink_plug_is_named_by_vendor_and_model(dlink_plug):
    # LABELS.json: 90:8d:78:a9:3d:6f is the D-Link smart plug; DHCP option 12 DSP-W215 (frame 4),
    # mDNS _dhnap._tcp (frame 8), lookups of *.dch.dlink.com and connections to them
    host = dlink_plug["mac-90-8d-78-a9-3d-6f"] if "mac-90-8d-78-a9-3d-6f" in dlink_plug else next(
        h for h in dlink_plug.values() if h["key"] == "mac-90-8d-78-a9-3d-6f")
    assert host["verdicts"]["vendor-model"]["primary_label"] == "D-Link DSP-W215"
    assert host["verdicts"]["host-identity"]["primary_label"] == "Smart Plug"
    assert ("Smart Plug — D-Link DSP-W215 (its DHCP host name, its mDNS service _dhnap._tcp and its cloud "
            "*.dlink.com) (+0)") in host["verdicts"]["host-identity"]["candidates"][0]["reasons"]


def test_a_model_of_a_one_maker_line_names_its_maker():
    from tracepcap.extract.kinds import DEVICE_MODEL
    from tracepcap.scan.signals.vendor_model import announced_model

    ctx = context({"h": [fact(DEVICE_MODEL, "iPhone12,1", 7, source="mdns-txt")],
                   "p": [fact(DEVICE_MODEL, "HP LaserJet Pro M404", 7, source="upnp")]})
    assert [(v.label, v.weight, v.reason) for v in announced_model.vote(ctx.host("h"))] == [
        ("Apple iPhone12,1", 30, "announces model iPhone12,1 over mDNS TXT, frame 7: an iPhone, made by Apple (+30)")]
    assert list(announced_model.vote(ctx.host("p"))) == []  # printers of many makers share the line


def test_the_demo_imac_and_raspberry_pi_are_named(analyze_json, captures):
    hosts = analyze_json(captures / "demo_all_rules.pcap")
    assert hosts["192.168.1.77"]["verdicts"]["vendor-model"]["primary_label"] == "Apple iMac11,3"  # TXT, frame 11
    pi = hosts["mac-00-80-8f-9a-ae-bd"]  # DHCP DISCOVER frame 597, option 60 ...:armv7l:BCM2835
    assert pi["verdicts"]["vendor-model"]["primary_label"] == "Raspberry Pi"


def test_the_summary_reason_stands_beside_a_class_only():
    from tracepcap.scan.context import Answer
    from tracepcap.scan.signals.host_identity import vendor_named

    ctx = context({"cloud": [fact(DNS_QUERY, "www.myedimax.com", 5)], "none": [fact(DNS_QUERY, "www.example.org", 5)]})
    ctx.answers["vendor-model"] = {"cloud": Answer("vendor-model", "Edimax", 42, (), ("knowledge_base",)),
                                   "none": Answer("vendor-model", "Edimax", 17, (), ("knowledge_base",))}
    assert [(v.label, v.weight, v.reason) for v in vendor_named.vote(ctx.host("cloud"))] == [
        ("IoT Device", 0, "IoT Device — Edimax (its cloud *.myedimax.com) (+0)")]
    assert list(vendor_named.vote(ctx.host("none"))) == []  # no evidence behind the answer


def test_a_makers_oui_alone_names_the_vendor_but_puts_no_class_beside_it():
    from tracepcap.extract.kinds import MAC, OUI_VENDOR
    from tracepcap.scan.context import Answer
    from tracepcap.scan.signals.host_identity import vendor_named

    ctx = context({"10.0.0.9": [fact(MAC, "74:da:38:00:00:01", 2), fact(OUI_VENDOR, "Edimax Technology Co. Ltd.", 2)]})
    assert votes(vendor_model, ctx.host("10.0.0.9"), SAYS) == [("Edimax", 10)]
    ctx.answers["vendor-model"] = {"10.0.0.9": Answer("vendor-model", "Edimax", 17, (), ("knowledge_base",))}
    assert list(vendor_named.vote(ctx.host("10.0.0.9"))) == []
