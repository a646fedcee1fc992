"""Issue 28 on the capture page (demo_all_rules.pcap): its summary first, above the fold at
1366x900 (packets, conversations, hosts, findings, the time span of its packets, the findings
banner, the applications line and the answers per question), and its long lists in tabs that
open on a click or the keyboard (hosts shown first; credentials loaded when their tab opens; a
link to the findings opening theirs)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

DEMO = "demo_all_rules.pcap"


def test_the_summary_comes_first_and_the_long_lists_open_in_tabs(web, captures):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / DEMO)
        detail = client.get(f"/captures/{cid}").json()
    page = pages.new()
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"/captures/{cid}")

    summary = page.locator("#capture-summary")
    stats = summary.locator(".summary-stats")
    expect(stats.locator("div", has_text="Packets").locator("dd")).to_have_text(f"{detail['packets']:,}")
    expect(stats.locator("div", has_text="Findings").locator("dd")).to_have_text(str(len(detail["findings"])))
    # the demo's packets run from 2020-05-06 15:39:56 to 2026-06-12 10:50:17 UTC
    expect(page.locator("#capture-span")).to_contain_text("2020-05-06 15:39:56 → 2026-06-12 10:50:17 UTC")
    apps = page.locator("#applications-summary")  # filled when the applications panel loads
    expect(apps).to_contain_text(re.compile(r"^\d+ · "))
    expect(apps.locator(".app-top")).to_have_count(5)
    expect(summary.locator("#findings-banner")).to_contain_text("dns-spoofing")
    expect(summary.locator(".count-card").first).to_be_visible()

    # above the fold: every part of the summary ends within the first 900 px, the tabs after it
    for part in (stats, summary.locator("#findings-banner"), apps, summary.locator(".counts")):
        box = part.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, (part, box)
    tabs = page.get_by_role("tablist", name="Capture details")
    assert tabs.bounding_box()["y"] >= summary.bounding_box()["y"] + summary.bounding_box()["height"]

    # the long lists: hosts shown, the others behind their tabs
    hosts_tab = page.get_by_role("tab", name=re.compile("^Hosts"))
    expect(hosts_tab).to_have_attribute("aria-selected", "true")
    expect(page.locator("#hosts")).to_be_visible()
    expect(page.locator("#applications")).to_be_hidden()
    page.get_by_role("tab", name="Applications").click()
    expect(page.locator("#applications")).to_be_visible()
    expect(page.locator("#applications tr[data-application='SSH'] td").nth(1)).to_have_text("by payload")
    expect(page.locator("#hosts")).to_be_hidden()
    expect(hosts_tab).to_have_attribute("aria-selected", "false")

    page.get_by_role("tab", name="Credentials").click()  # loaded when first shown
    logins = page.locator("#panel-credentials #credentials tbody tr")
    expect(logins).to_have_count(3)
    expect(page.locator("#panel-credentials #secrets-note")).to_contain_text("Secrets are never stored")
    page.keyboard.press("ArrowRight")  # the keyboard moves between tabs
    expect(page.get_by_role("tab", name="Software")).to_be_focused()
    expect(page.locator("#panel-software #software tbody tr").filter(has_text="OpenSSH")).to_have_count(1)

    page.get_by_role("link", name="all findings ↓").click()  # a link into a hidden tab opens it
    findings = page.locator("section[aria-labelledby='findings-title'] .finding")
    expect(findings.first).to_be_visible()
    expect(findings).to_have_count(len(detail["findings"]))
    expect(page.get_by_role("tab", name=re.compile("^Findings"))).to_have_attribute("aria-selected", "true")

    page.get_by_role("tab", name="Manifest").click()
    expect(page.locator("#manifest-title")).to_be_visible()
    page.get_by_role("tab", name=re.compile("^Hosts")).click()
    expect(page.locator("#hosts")).to_be_visible()
