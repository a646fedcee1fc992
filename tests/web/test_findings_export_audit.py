"""Findings first, honest state, exports and the audit page in the browser: the findings banner
leads to the spoofer's page, the table marks and filters hosts a finding names, the export
buttons download, the audit page filters, confidence shows as a bar, an unaccepted role is a
suggestion, and accepting a role shows on the Device type panel's trail."""

from __future__ import annotations

import csv
import io
import json
import re

from playwright.sync_api import expect
from web_helpers import DNS_SERVER, OTHER_HOST, panel

from fake_actor import person

from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.store.entities import resolve
from tracepcap.testing import findings as shapes

SPOOFER_MAC = shapes.SPOOFER[1]


def _key_of(client, cid: str, address: str) -> str:
    """The entity key of the host holding `address` (a device key or the address itself)."""
    hosts = client.get(f"/captures/{cid}/hosts", params={"q": address, "limit": 100}).json()
    host = next(h for h in hosts if address in h.get("addresses", [h["ip"]]))
    return host.get("key", host["ip"])


def test_the_findings_banner_leads_to_the_spoofers_page(web, tmp_path):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, shapes.build(tmp_path / "spoof.pcap", shared_names=40))
        spoofer = _key_of(client, cid, shapes.SPOOFER[0])
        gateway = _key_of(client, cid, shapes.GATEWAY[0])
    page = pages.open(f"/captures/{cid}")
    banner = page.locator("#findings-banner")
    # 40 CDN names are one grouped low line; the spoofer's forged DNS answers a second high one
    expect(banner.locator("h2")).to_have_text("4 findings")
    expect(banner.locator("[data-severity='high']")).to_have_text("2 high")
    expect(banner.locator("[data-severity='low']")).to_have_text("1 low")
    high = banner.locator(".banner-high-list li")
    expect(high).to_have_count(2)
    expect(high.filter(has_text="ip-mac-conflict")).to_have_count(1)
    expect(high.filter(has_text="dns-spoofing")).to_have_count(1)
    expect(page.locator("section[aria-labelledby='findings-title'] .finding")).to_have_count(4)
    expect(page.locator("section[aria-labelledby='findings-title']")).to_contain_text(
        "40 names are served by certificate from several hosts each (CDN/anycast name sharing")

    # the marker column, and the filter to the hosts a finding names
    # the spoofer's row is headed by its address and links its device's page
    row = page.locator("#hosts tbody tr", has=page.get_by_role("rowheader", name=shapes.SPOOFER[0], exact=True))
    expect(row.get_by_role("link", name=shapes.SPOOFER[0], exact=True)).to_have_attribute(
        "href", f"/captures/{cid}/hosts/{spoofer}")
    expect(row.locator("a.flag")).to_have_attribute("data-finding", "high")
    page.locator(".filter-marks").get_by_role("link", name="⚑ findings").click()
    expect(page.locator("#hosts-summary")).to_contain_text("of 82")  # gateway, spoofer, 80 CDN servers
    expect(page.locator("#hosts tbody tr a.flag")).to_have_count(50)
    expect(page).to_have_url(re.compile(r"mark=finding"))

    # the banner links the spoofer: its page lists the findings that name it
    page = pages.open(f"/captures/{cid}")
    page.locator("#findings-banner .banner-high-list li", has_text="ip-mac-conflict").get_by_role(
        "link", name=spoofer, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/captures/{cid}/hosts/{re.escape(spoofer)}$"))
    findings = page.locator("#host-findings")
    expect(findings.locator(".finding")).to_have_count(3)
    conflict = findings.locator(".finding", has_text="ip-mac-conflict")
    expect(conflict).to_contain_text("high ip-mac-conflict")
    expect(conflict).to_contain_text(f"{SPOOFER_MAC} (frames")
    expect(findings.locator(".finding", has_text="dns-spoofing")).to_contain_text("high dns-spoofing")
    # and from there to the victim, whose page lists the same conflict
    conflict.get_by_role("link", name=gateway, exact=True).click()
    expect(page.locator("#host-findings .finding", has_text="ip-mac-conflict")).to_have_count(1)


TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def test_export_buttons_download_json_and_csv(analyzed):
    api, pages, cid = analyzed
    with api.client() as client:
        client.post(f"/captures/{cid}/adjudications/os-family/{OTHER_HOST}/dismissals",
                    json={"label": "Windows", "reason": "=no SMB at all"}).raise_for_status()
        client.post(f"/captures/{cid}/adjudications/host-identity/{DNS_SERVER}/evidence",
                    json={"label": "Router", "weight": 30, "reason": "it forwards"}).raise_for_status()
        client.put(f"/captures/{cid}/adjudications/os-family/{DNS_SERVER}/override",
                   json={"label": "Linux", "rationale": "dnsmasq banner"}).raise_for_status()
    page = pages.open(f"/captures/{cid}")
    with page.expect_download() as got:  # the wide CSV: one row per device (issue 28)
        page.get_by_role("link", name="Export CSV", exact=True).click()
    download = got.value
    assert download.suggested_filename == f"tracepcap-{cid}.csv"
    wide = list(csv.DictReader(io.StringIO(open(download.path(), encoding="utf-8").read())))
    dns = next(r for r in wide if r["ip"] == DNS_SERVER)
    assert (dns["os-family"], dns["os-family_basis"]) == ("Linux", "HUMAN")
    assert int(dns["packets_sent"]) > 0 and len({r["key"] for r in wide}) == len(wide)
    with page.expect_download() as got:
        page.get_by_role("link", name="Export CSV (long)").click()
    download = got.value
    assert download.suggested_filename == f"tracepcap-{cid}-long.csv"
    reader = csv.DictReader(io.StringIO(open(download.path(), encoding="utf-8").read()))
    rows = list(reader)
    # the answer, its evidence, the dismissals with their reasons, the actor and the time of
    # every human row (issue 15)
    assert reader.fieldnames == [
        "capture_id", "ip", "macs", "names", "question", "primary_label", "basis", "confidence", "contested",
        "candidates", "reasons", "override_label", "override_actor", "override_rationale", "dismissed",
        "override_at", "evidence", "dismissal_reasons", "actors", "last_human_at"]
    row = next(r for r in rows if r["ip"] == OTHER_HOST and r["question"] == "os-family")
    assert row["dismissal_reasons"].startswith("Windows by system at ") and row["dismissal_reasons"].endswith(
        ": =no SMB at all")  # a formula-looking reason, kept as text
    assert row["actors"] == "system" and TIMESTAMP.match(row["last_human_at"])
    row = next(r for r in rows if r["ip"] == DNS_SERVER and r["question"] == "host-identity")
    assert re.fullmatch(r"Router \(\+30\) by system at \S+: it forwards", row["evidence"])
    assert row["actors"] == "system" and TIMESTAMP.match(row["last_human_at"])
    row = next(r for r in rows if r["ip"] == DNS_SERVER and r["question"] == "os-family")
    assert (row["primary_label"], row["basis"], row["override_label"], row["override_actor"],
            row["override_rationale"]) == ("Linux", "HUMAN", "Linux", "system", "dnsmasq banner")
    assert TIMESTAMP.match(row["override_at"]) and TIMESTAMP.match(row["last_human_at"])
    assert {r["question"] for r in rows if r["ip"] == DNS_SERVER} >= {"host-identity", "os-family", "node-role"}
    with page.expect_download() as got:
        page.get_by_role("link", name="Export JSON").click()
    download = got.value
    assert download.suggested_filename == f"tracepcap-{cid}.json"
    document = json.loads(open(download.path(), encoding="utf-8").read())
    assert document["capture"]["id"] == cid and TIMESTAMP.match(document["capture"]["uploaded_at"])
    human = document["human"]
    assert set(human) == {"overrides", "evidence", "dismissals", "audit"}
    assert human["dismissals"][0]["reason"] == "=no SMB at all" and human["dismissals"][0]["actor"] == "system"
    assert [(e["label"], e["weight"]) for e in human["evidence"]] == [("Router", 30)]
    assert [(o["label"], o["rationale"]) for o in human["overrides"]] == [("Linux", "dnsmasq banner")]
    assert sorted(e["action"] for e in human["audit"]) == ["dismissal.added", "evidence.added", "override.set"]
    assert {h["ip"] for h in document["hosts"]} >= {DNS_SERVER, OTHER_HOST}


def test_the_audit_page_filters_by_actor_action_and_question(analyzed):
    api, pages, cid = analyzed
    entity = f"/captures/{cid}/adjudications"
    with api.client() as client:
        for method, path, body in (
                ("PUT", f"{entity}/host-identity/{DNS_SERVER}/override", {"label": "Router", "rationale": "diagram"}),
                ("POST", f"{entity}/os-family/{DNS_SERVER}/evidence", {"label": "Linux", "weight": 30, "reason": "dnsmasq"}),
                ("POST", f"{entity}/host-identity/{OTHER_HOST}/dismissals", {"label": "Printer", "reason": "a laptop"}),
                ("DELETE", f"{entity}/host-identity/{DNS_SERVER}/override", None)):
            client.request(method, path, json=body).raise_for_status()
    page = pages.open(f"/captures/{cid}")
    page.get_by_role("link", name="Audit log").click()
    expect(page.locator("h1")).to_have_text("Audit log")
    events = page.locator("tr.audit-event")
    expect(events).to_have_count(4)
    expect(events.first).to_contain_text("reverted “Router” to the machine's answer")  # newest first
    expect(page.locator("#audit-summary")).to_have_text("4 events")

    page.get_by_label("Question").select_option(label="Device type")
    page.get_by_role("button", name="Filter").click()
    expect(events).to_have_count(3)
    expect(page.locator("#audit-summary")).to_have_text("3 events matching")
    page.get_by_label("Action").select_option("dismissal.added")
    page.get_by_role("button", name="Filter").click()
    expect(events).to_have_count(1)
    expect(events.first).to_contain_text("dismissed “Printer”: a laptop")
    other = "mac-52-54-00-bb-00-20"  # the device holding OTHER_HOST: the audit log carries entity keys (issue 11)
    link = events.first.get_by_role("link", name=OTHER_HOST, exact=True)  # shown by its address
    expect(link).to_have_attribute("href", f"/captures/{cid}/hosts/{other}")
    expect(link).to_have_attribute("title", other)
    expect(page).to_have_url(re.compile(r"action=dismissal.added"))
    page.get_by_role("link", name="clear ✕").click()
    expect(events).to_have_count(4)
    page.get_by_label("Actor").select_option(label="unattributed")
    page.get_by_role("button", name="Filter").click()
    expect(events).to_have_count(4)


def test_the_audit_page_filters_by_a_named_actor_and_pages(analyzed):
    """Two named analysts (the service called as each, as a verified token would name them):
    the actor filter keeps one's events; 60 events page by 50 and the filter survives paging."""
    api, pages, cid = analyzed
    registry = get_registry()
    alice, bob = person("alice"), person("bob")
    with api.db.session(write=True) as s:
        key = Key("os-family", cid, resolve(s, cid, OTHER_HOST))
        for i in range(29):  # 58 events of bob's
            annotations.dismiss(s, registry, key, "Windows", f"round {i}", actor=bob)
            annotations.undismiss(s, registry, key, "Windows", actor=bob)
        identity = Key("host-identity", cid, resolve(s, cid, DNS_SERVER))
        annotations.add_evidence(s, registry, identity, "Router", 20, "it forwards", actor=alice)
        annotations.set_override(s, registry, identity, "Router", "the rack diagram", actor=alice)
    page = pages.open(f"/captures/{cid}/audit")
    events = page.locator("tr.audit-event")
    expect(page.locator("#audit-summary")).to_have_text("60 events")
    expect(events).to_have_count(50)
    expect(events.first.locator(".audit-actor")).to_have_text("alice")  # newest first
    pager = page.get_by_role("navigation", name="Pages of the audit log")
    expect(pager).to_contain_text("page 1 of 2")
    pager.get_by_role("link", name="next page").click()
    expect(events).to_have_count(10)
    expect(page.locator(".pager")).to_contain_text("page 2 of 2")
    expect(events.last).to_contain_text("dismissed “Windows”: round 0")  # the oldest event last
    expect(events.locator(".audit-actor")).to_have_text(["bob"] * 10)

    page.get_by_label("Actor").select_option(label="alice")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#audit-summary")).to_have_text("2 events matching")
    expect(events.locator(".audit-actor")).to_have_text(["alice", "alice"])
    expect(events.locator("code")).to_have_text(["override.set", "evidence.added"])
    expect(page.locator(".pager")).to_have_count(0)

    page.get_by_label("Actor").select_option(label="bob")
    page.get_by_label("Action").select_option("dismissal.removed")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#audit-summary")).to_have_text("29 events matching")
    expect(events).to_have_count(29)
    page.get_by_label("Action").select_option("dismissal.added")
    page.get_by_label("Question").select_option(label="OS family")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#audit-summary")).to_have_text("29 events matching")
    page.get_by_label("Question").select_option(label="Device type")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#audit-summary")).to_have_text("0 events matching")
    expect(page.locator("tbody")).to_contain_text("No event matches.")


def test_confidence_suggestions_and_an_accepted_role_on_the_device_type_trail(analyzed):
    _api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}")
    row = page.locator("#hosts tbody tr", has=page.get_by_role("link", name=DNS_SERVER, exact=True))
    cells = row.locator("td")
    # Device type: the machine's answer with its confidence as a bar read out as a percentage
    identity = cells.filter(has_text="DNS Server")
    expect(identity.locator("meter.conf-bar")).to_have_attribute("aria-label", re.compile(r"^\d+% confidence$"))
    # Role: a machine suggestion nobody accepted is styled and labelled as one
    expect(row.locator(".answer-suggestion")).to_have_text("DNS Resolver")
    expect(row.locator(".pill-suggestion")).to_have_text("suggested")

    page = pages.open(f"/captures/{cid}/hosts/{DNS_SERVER}")
    role = panel(page, "node-role")
    expect(role.locator(".badge-line .pill-suggestion")).to_have_text("suggestion · not accepted")
    role.get_by_role("button", name="Accept “DNS Resolver”").click()
    expect(role.locator(".badge-line .pill-human")).to_have_text("human")
    identity = panel(page, "host-identity")  # refreshed by the accept: it follows the role
    expect(identity.locator(".badge-line .pill-human")).to_have_text("human")
    trail = identity.locator(".trail-item")
    expect(trail).to_have_count(1)
    expect(trail.first).to_contain_text("on Role")
    expect(trail.first).to_contain_text("set the answer to “DNS Resolver” — accepted suggestion — "
                                        "this answer follows it: DNS Server")
