"""What marks a phone or tablet apart from a computer over mDNS (issue 25): a Cast sender
app's filtered discovery, an iPhone's Wi-Fi sync announcement; and iOS from them on an Apple
system."""

from __future__ import annotations

from support.facts import SAID, context, fact, votes

from tracepcap.extract.kinds import MDNS_QUERY, MDNS_SERVICE
from tracepcap.scan.signals.host_identity import handheld
from tracepcap.scan.signals.os_family import handheld as os_handheld


def test_a_cast_apps_filtered_discovery_is_a_phone_or_tablets():
    ctx = context({"h": [fact(MDNS_QUERY, "_googlecast._tcp", 5), fact(MDNS_QUERY, "_cc32e753._sub._googlecast._tcp", 5)]})
    said = ("browses for _cc32e753._sub._googlecast._tcp over mDNS, frame 5: the Google Cast SDK of a "
            "phone or tablet app looking for receivers that run its app CC32E753 (a desktop browser looks for every "
            "receiver) (+25)")
    assert votes(handheld, ctx.host("h"), SAID) == [("Mobile", 25, said)]
    # no Apple mark: an Android phone as well as an iPhone, so no OS
    assert votes(os_handheld, ctx.host("h"), SAID) == []


def test_the_bare_cast_type_and_other_subtypes_name_no_kind_of_client():
    ctx = context({"h": [fact(MDNS_QUERY, "_googlecast._tcp", 5), fact(MDNS_QUERY, "_printer._sub._http._tcp", 6),
                         fact(MDNS_QUERY, "_companion-link._tcp", 7)]})
    assert votes(handheld, ctx.host("h"), SAID) == [] and votes(os_handheld, ctx.host("h"), SAID) == []


def test_on_an_apple_system_the_cast_app_says_ios():
    ctx = context({"h": [fact(MDNS_QUERY, "_companion-link._tcp", 3),
                         fact(MDNS_QUERY, "_233637de._sub._googlecast._tcp", 9)]})
    [(label, weight, reason)] = votes(os_handheld, ctx.host("h"), SAID)
    assert (label, weight) == ("iOS", 20)
    assert reason.endswith("and it looks for or offers _companion-link._tcp, Apple's companion link: an iPhone "
                           "or iPad (+20)")


def test_announcing_wifi_sync_is_an_iphone_or_ipad_and_browsing_for_it_is_not():
    phone = context({"h": [fact(MDNS_SERVICE, "b0:c5:54:25:5b:0e@fe80::1._apple-mobdev2._tcp.local", 4)]})
    said = ("announces _apple-mobdev2._tcp over mDNS, frame 4: the Wi-Fi sync an iPhone or iPad offers to a "
            "computer (+{})")
    assert votes(handheld, phone.host("h"), SAID) == [("Mobile", 25, said.format(25))]
    assert votes(os_handheld, phone.host("h"), SAID) == [("iOS", 20, said.format(20))]
    computer = context({"h": [fact(MDNS_QUERY, "_apple-mobdev2._tcp", 4)]})  # a Mac looking for phones to sync
    assert votes(handheld, computer.host("h"), SAID) == [] and votes(os_handheld, computer.host("h"), SAID) == []
