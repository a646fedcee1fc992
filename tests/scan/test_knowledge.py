"""The device knowledge base (scan/knowledge): its data, an operator's local file, and the
signals that weigh appliance evidence by what it means (issue 25)."""

from __future__ import annotations

import pytest
from support.facts import SAID, context, fact, votes

from tracepcap.extract.kinds import (DHCP_VENDOR_CLASS, DNS_QUERY, HOSTNAME_CLAIM, HTTP_SERVER, MAC,
                                     OUI_VENDOR, SERVED, SSDP_SERVER, TTL, USER_AGENT)
from tracepcap.scan import knowledge as kb
from tracepcap.scan.context import Traffic
from tracepcap.scan.signals.host_identity import (knowledge_base, router, services_answered, traffic_pattern,
                                                  ttl_class, user_agent_device)
from tracepcap.scan.signals.os_family import ttl as os_ttl
from tracepcap.scan.signals.os_family import user_agent as os_user_agent

ESP = "24:0a:c4:01:02:03"


@pytest.fixture(autouse=True)
def no_local_file(monkeypatch):
    monkeypatch.delenv(kb.SETTING, raising=False)


def test_every_shipped_entry_has_its_provenance_and_loads_once():
    base = kb.knowledge()
    assert base is kb.knowledge()  # read once per process
    assert len(base.entries) > 50
    assert {e.table for e in base.entries} == set(kb.TABLES)
    for entry in base.entries:
        assert entry.source and entry.licence != "unstated", entry
        assert entry.label in (None, "IoT Device", "IP Camera", "Smart Plug", "Smart Hub", "Sensor",
                               "Smart Lock", "Smart Appliance", "Media Device"), entry


def test_a_local_file_adds_entries_that_win_over_the_shipped_ones(tmp_path, monkeypatch):
    local = tmp_path / "site.toml"
    local.write_text('[[cloud]]\nsuffix = "acme-iot.example"\nvendor = "Acme"\nclass = "Sensor"\n'
                     'source = "our asset register"\n\n'
                     '[[hostname]]\npattern = \'^(DCS-\\d+)\'\nvendor = "Our cameras"\nclass = "IP Camera"\n'
                     'model = "{1}"\nsource = "site inventory"\n')
    monkeypatch.setenv(kb.SETTING, str(local))
    base = kb.knowledge()
    assert base.cloud("eu.api.acme-iot.example").vendor == "Acme"
    entry, model = base.hostname("DCS-930LB")
    assert (entry.vendor, model, entry.origin) == ("Our cameras", "DCS-930", str(local))
    ctx = context({"h": [fact(DNS_QUERY, "api.acme-iot.example", 4)]})
    [(label, weight, reason)] = votes(knowledge_base, ctx.host("h"), SAID)
    assert (label, weight) == ("Sensor", 25)
    assert "Acme" in reason and "our asset register" in reason


@pytest.mark.parametrize("text, says", [
    ("[[cloud]]\nvendor = 'x'\nsource = 'y'\n", "needs 'suffix'"),
    ("[[cloud]]\nsuffix = 'x.example'\n", "needs a 'source'"),
    ("[[clouds]]\nsuffix = 'x.example'\nsource = 'y'\n", "unknown table(s) clouds"),
    ("[[hostname]]\npattern = '(('\nsource = 'y'\n", "is not a regular expression"),
    ("[[cloud]]\nsuffix = 'x.example'\nsource = 'y'\ncolour = 'red'\n", "unknown field(s) colour"),
    ("[[cloud]\n", "is not TOML"),
])
def test_a_bad_local_file_is_refused_with_its_name_and_entry(tmp_path, monkeypatch, text, says):
    local = tmp_path / "bad.toml"
    local.write_text(text)
    monkeypatch.setenv(kb.SETTING, str(local))
    with pytest.raises(kb.KnowledgeError) as err:
        kb.knowledge()
    assert str(local) in str(err.value) and says in str(err.value)
    assert err.value.exit_code == 2  # a usage error, not a crash


def test_a_missing_local_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(kb.SETTING, str(tmp_path / "absent.toml"))
    with pytest.raises(kb.KnowledgeError, match="cannot be read"):
        kb.knowledge()


def test_registrable_domain():
    assert kb.registrable("r0801.dch.dlink.com.") == "dlink.com"
    assert kb.registrable("api.example.co.uk") == "example.co.uk"


def test_a_default_model_name_and_the_vendor_cloud_name_the_class_vendor_and_model():
    ctx = context({"plug": [fact(HOSTNAME_CLAIM, "DSP-W215", 3, source="dhcp"),
                            fact(DNS_QUERY, "r0801.dch.dlink.com", 9)]})
    found = votes(knowledge_base, ctx.host("plug"), SAID)
    assert [(label, weight) for label, weight, _ in found] == [("Smart Plug", 25), ("Smart Plug", 30)]
    assert "D-Link DSP-W215" in found[1][2] and "frame 3" in found[1][2]
    assert "D-Link" in found[0][2] and "with the evidence naming a Smart Plug" in found[0][2]


def test_the_vendor_cloud_a_host_resolves_and_contacts_is_named_by_its_domain():
    from tracepcap.extract.kinds import RESOLVED_FROM

    ctx = context({"h": [fact(DNS_QUERY, "www.myedimax.com", 5), fact(DNS_QUERY, "pool.ntp.org", 6)],
                   "122.248.252.67": [fact(RESOLVED_FROM, "www.myedimax.com", 6)]},
                  {"h": Traffic(peers_out={"122.248.252.67"})})
    [(label, weight, reason)] = votes(knowledge_base, ctx.host("h"), SAID)
    assert (label, weight) == ("IoT Device", 25)
    assert reason == ("it resolves and contacts *.myedimax.com (www.myedimax.com), frame 5: Edimax, Edimax's cloud "
                      "for its smart plugs and cameras [knowledge base: vendor domain myedimax.com] (+25)")


def test_a_vendor_cloud_alone_says_some_iot_device():
    ctx = context({"h": [fact(DNS_QUERY, "www.myedimax.com", 5), fact(DNS_QUERY, "pool.ntp.org", 6)]})
    assert [(label, weight) for label, weight, _ in votes(knowledge_base, ctx.host("h"), SAID)] == [("IoT Device", 25)]


def test_a_browsing_client_that_resolves_a_vendor_cloud_is_not_the_vendors_device():
    phone = [fact(DNS_QUERY, "bridge.meethue.com", 5)]
    browser = phone + [fact(USER_AGENT, "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X)", 7)]
    many = phone + [fact(DNS_QUERY, f"www.site{i}.example", 10 + i) for i in range(kb.HEADLESS_DOMAINS + 1)]
    assert votes(knowledge_base, context({"h": phone}).host("h"), SAID)[0][0] == "Smart Hub"
    assert votes(knowledge_base, context({"h": browser}).host("h"), SAID) == []
    assert votes(knowledge_base, context({"h": many}).host("h"), SAID) == []


def test_a_chip_makers_oui_is_weak_iot_evidence_counted_once():
    ctx = context({"10.0.0.9": [fact(MAC, ESP, 2), fact(OUI_VENDOR, "Espressif Inc.", 2), fact(TTL, "64", 2),
                         fact(HOSTNAME_CLAIM, "ESP-EB59C4", 3, source="dhcp")]})
    found = votes(knowledge_base, ctx.host("10.0.0.9"), SAID)
    assert [(label, weight) for label, weight, _ in found] == [("IoT Device", 10)]
    # beside evidence of a class, the module counts for that class
    ctx = context({"10.0.0.9": [fact(MAC, ESP, 2), fact(OUI_VENDOR, "Espressif Inc.", 2), fact(TTL, "64", 2),
                         fact(DNS_QUERY, "plug.sciener.cn", 4)]})
    assert sorted((label, weight) for label, weight, _ in votes(knowledge_base, ctx.host("10.0.0.9"), SAID)) == [
        ("Smart Hub", 10), ("Smart Hub", 25)]


def test_an_appliance_calling_out_is_no_workstation():
    out = Traffic(peers_out={"10.0.0.1", "203.0.113.1", "203.0.113.2", "198.51.100.7", "198.51.100.8"})
    pc = context({"h": [fact(TTL, "64", 2)]}, {"h": out})
    plug = context({"h": [fact(DHCP_VENDOR_CLASS, "udhcp 1.21.1", 2)]}, {"h": out})
    assert votes(traffic_pattern, pc.host("h"), SAID)[0][0] == "Workstation"
    assert votes(traffic_pattern, plug.host("h"), SAID) == []


def test_an_embedded_user_agent_is_embedded_linux_never_a_desktop():
    ctx = context({"h": [fact(USER_AGENT, "Wget/1.13 (linux-uclibc)", 12)]})
    assert votes(user_agent_device, ctx.host("h"), SAID) == []
    [(label, weight, reason)] = votes(os_user_agent, ctx.host("h"), SAID)
    assert (label, weight) == ("Embedded", 20) and "uClibc" in reason
    curl = context({"h": [fact(USER_AGENT, "curl/7.68.0", 12)]})
    assert votes(user_agent_device, curl.host("h"), SAID) == [] and votes(os_user_agent, curl.host("h"), SAID) == []


def _web(extra, clients):
    facts = {"h": [fact(SERVED, "tcp/80", 20), *extra]}
    return context(facts, {"h": Traffic(clients={"tcp/80": {f"10.0.0.{i}" for i in range(2, 2 + clients)}})})


def test_an_appliances_setup_page_for_one_client_is_no_web_server():
    appliance = [fact(DHCP_VENDOR_CLASS, "udhcp 1.22.1", 2)]
    assert votes(services_answered, _web(appliance, 1).host("h"), SAID) == []
    assert votes(services_answered, _web(appliance, 2).host("h"), SAID) == []
    assert votes(services_answered, _web(appliance, 3).host("h"), SAID)[0][0] == "Web Server"  # many clients
    apache = appliance + [fact(HTTP_SERVER, "Apache/2.4.41 (Ubuntu)", 21)]
    assert votes(services_answered, _web(apache, 1).host("h"), SAID)[0][0] == "Web Server"  # says so
    assert votes(services_answered, _web([], 1).host("h"), SAID)[0][0] == "Web Server"  # no appliance marks


@pytest.mark.parametrize("ttl", ["128", "255"])
def test_ttl_128_or_255_of_an_appliance_names_no_os_and_no_class(ttl):
    module = [fact(MAC, ESP, 2), fact(OUI_VENDOR, "Espressif Inc.", 2), fact(TTL, ttl, 2, 40)]
    ctx = context({"10.0.0.5": module})
    assert votes(os_ttl, ctx.host("10.0.0.5"), SAID) == []
    assert votes(ttl_class, ctx.host("10.0.0.5"), SAID) == []
    plain = context({"10.0.0.5": [fact(MAC, "00:11:22:33:44:55", 2), fact(TTL, ttl, 2, 40)]})
    assert votes(os_ttl, plain.host("10.0.0.5"), SAID) != []


def test_a_second_local_address_on_another_subnet_zero_hops_away_is_no_router():
    mac = "74:da:38:4a:76:49"
    ctx = context({"10.10.10.186": [fact(MAC, mac, 7, 49), fact(TTL, "64", 7, 40)],
                   "192.168.20.3": [fact(MAC, mac, 60, 3), fact(TTL, "64", 60, 3)]})
    assert votes(router, ctx.host("10.10.10.186"), SAID) == []


def test_ssdp_server_of_a_camera_firmware_names_a_camera():
    ctx = context({"h": [fact(SSDP_SERVER, "Cellvision UPnP/1.0", 8)]})
    assert [label for label, _, _ in votes(knowledge_base, ctx.host("h"), SAID)] == ["IP Camera"]


def test_a_host_browsing_for_things_to_control_is_a_client_device():
    from tracepcap.extract.kinds import MDNS_QUERY
    from tracepcap.scan.signals.host_identity import mdns_browsing
    from tracepcap.scan.signals.os_family import apple_services

    phone = context({"h": [fact(MDNS_QUERY, "_homekit._tcp", 3), fact(MDNS_QUERY, "_companion-link._tcp", 4),
                           fact(MDNS_QUERY, "_googlecast._tcp", 5)]})
    [(label, weight, reason)] = votes(mdns_browsing, phone.host("h"), SAID)
    assert (label, weight) == ("Client device", 15) and "_googlecast._tcp" in reason
    [(label, weight, reason)] = votes(apple_services, phone.host("h"), SAID)
    assert (label, weight) == ("Apple", 10) and "_companion-link._tcp" in reason
    airplay_only = context({"h": [fact(MDNS_QUERY, "_airplay._tcp", 3), fact(MDNS_QUERY, "_raop._tcp", 4)]})
    assert votes(mdns_browsing, airplay_only.host("h"), SAID) == []  # one kind of thing: perhaps a bridge
    assert votes(apple_services, context({"h": [fact(MDNS_QUERY, "_homekit._tcp", 3)]}).host("h"), SAID) == []


def test_analyze_with_an_unusable_local_file_exits_2_naming_it(captures, tmp_path, monkeypatch):
    from support.cli import run_cli, sqlite_store

    local = tmp_path / "site.toml"
    local.write_text("[[cloud]]\nsuffix = 'acme.example'\n")
    monkeypatch.setenv(kb.SETTING, str(local))
    code, out, err = run_cli("analyze", captures / "dns_demo.pcap", db=sqlite_store(tmp_path), data_dir=tmp_path)
    assert code == 2 and str(local) in err and "needs a 'source'" in err
    assert "Traceback" not in err


def test_analyze_reads_the_local_file(captures, tmp_path, monkeypatch):
    import json

    from support.cli import run_cli, sqlite_store

    local = tmp_path / "site.toml"  # the demo's iPad announces _dacp._tcp: call it a Media Device here
    local.write_text("[[mdns]]\nservice = '_dacp._tcp'\nvendor = 'Our site'\nclass = 'Media Device'\n"
                     "source = 'site register'\n")
    monkeypatch.setenv(kb.SETTING, str(local))
    code, out, err = run_cli("analyze", captures / "demo_all_rules.pcap", "--json", db=sqlite_store(tmp_path),
                             data_dir=tmp_path)
    assert code == 0, err
    said = [r for h in json.loads(out)["hosts"] for c in h["verdicts"]["host-identity"]["candidates"]
            for r in c["reasons"] if "site register" in r]
    assert said and "Our site" in said[0]
