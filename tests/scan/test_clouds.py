"""The cloud endpoints a host resolves and contacts, grouped by registrable domain (issue 25)."""

from __future__ import annotations

from support.facts import context, fact

from tracepcap.extract.kinds import DNS_QUERY, HOSTNAME_CLAIM, RESOLVED_FROM, TLS_SNI
from tracepcap.scan.clouds import Endpoint, endpoints, public_name, registrable
from tracepcap.scan.context import Traffic


def test_names_group_by_registrable_domain_and_contact_is_told_from_lookup():
    ctx = context({
        "10.0.0.5": [fact(DNS_QUERY, "api.dch.vendor.example", 3), fact(DNS_QUERY, "ntp.vendor.example", 5),
                     fact(DNS_QUERY, "www.shop.example.co.uk", 7), fact(DNS_QUERY, "printer.local", 2),
                     fact(TLS_SNI, "Signal.Camcloud.example", 9)],
        # api.dch.vendor.example reached this address through a CNAME; ntp's answer named itself
        "192.0.2.7": [fact(RESOLVED_FROM, "api.dch.vendor.example", 4),
                      fact(HOSTNAME_CLAIM, "elb-1.cdn.example", 4, source="dns-a")],
        "192.0.2.8": [fact(HOSTNAME_CLAIM, "ntp.vendor.example", 6, source="dns-a")],
        "192.0.2.9": [fact(HOSTNAME_CLAIM, "fw.updates.example", 11, source="http-host")],
    }, {"10.0.0.5": Traffic(peers_out={"192.0.2.7", "192.0.2.9"})})
    found = endpoints(ctx.host("10.0.0.5"))
    assert [(e.domain, e.names, e.contacted, e.first_frame) for e in found] == [
        ("vendor.example", ("api.dch.vendor.example", "ntp.vendor.example"), True, 3),
        ("example.co.uk", ("www.shop.example.co.uk",), False, 7),
        ("camcloud.example", ("signal.camcloud.example",), True, 9),
        ("updates.example", ("fw.updates.example",), True, 11),
    ]
    assert found[0].describe() == "it resolves and contacts *.vendor.example (api.dch.vendor.example, ntp.vendor.example)"
    assert found[1].describe() == "it resolves *.example.co.uk (www.shop.example.co.uk)"


def test_a_lookup_another_host_made_is_not_this_hosts_endpoint():
    ctx = context({"10.0.0.5": [], "10.0.0.6": [fact(DNS_QUERY, "api.vendor.example", 3)],
                   "192.0.2.7": [fact(HOSTNAME_CLAIM, "api.vendor.example", 4, source="dns-a")]},
                  {"10.0.0.5": Traffic(peers_out={"192.0.2.7"})})
    assert endpoints(ctx.host("10.0.0.5")) == []
    [only] = endpoints(ctx.host("10.0.0.6"))
    assert (only.domain, only.contacted) == ("vendor.example", False)  # it asked, never connected


def test_registrable_domain_and_public_names():
    assert registrable("r0801.dch.dlink.com.") == "dlink.com"
    assert registrable("api.example.co.uk") == "example.co.uk"
    assert registrable("example.com") == "example.com"
    assert public_name("api.example.com") and not public_name("printer.local")
    assert not public_name("1.0.0.10.in-addr.arpa") and not public_name("192.0.2.7") and not public_name("wpad")


def test_describe_shortens_long_lists():
    e = Endpoint("vendor.example", tuple(f"h{i}.vendor.example" for i in range(5)), True, 1, ())
    assert e.describe() == ("it resolves and contacts *.vendor.example (h0.vendor.example, h1.vendor.example, "
                            "h2.vendor.example and 2 more)")
