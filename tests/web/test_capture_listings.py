"""Browser walk of a capture's listings on demo_all_rules.pcap: the captures list (the
capture's own time span and its findings count), the credentials page (frames 1725, 1730 and
1737 listed, secrets masked and said never stored; Reveal reads one again from the stored
capture and the audit page lists the reveal), the software page (every device's, and a host's
own from its page) and the applications panel of the capture page. With auth on, a viewer sees
no Reveal; an analyst's reveal is audited under their name."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from playwright.sync_api import expect

DEMO = "demo_all_rules.pcap"
MAC_SSH = "10.10.0.1"  # demo: runs OpenSSH 8.9 (frame 1660), recognised by payload on tcp/22


def test_listings_walk(web, captures):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / DEMO)
        findings = len(client.get(f"/captures/{cid}").json()["findings"])
    assert findings > 0

    page = pages.open("/")
    row = page.locator("#capture-list tbody tr", has=page.get_by_role("link", name=DEMO))
    # the demo's packets run from 2020-05-06 15:39:56 to 2026-06-12 10:50:17 UTC
    expect(row.locator("td.capture-span")).to_contain_text("2020-05-06 15:39:56 → 2026-06-12 10:50:17")
    expect(row.locator("td.capture-findings")).to_have_text(str(findings))

    row.get_by_role("link", name=DEMO).click()
    page.get_by_role("tab", name="Applications").click()
    panel = page.locator("#applications-panel")
    expect(panel.locator("#applications")).to_be_visible()
    ssh = panel.locator("tr[data-application='SSH']")
    expect(ssh.locator("td").nth(1)).to_have_text("by payload")
    expect(ssh.get_by_role("link", name=MAC_SSH)).to_be_visible()
    expect(panel.locator("tr[data-application='HTTP'] td").nth(1)).to_have_text("by port")
    expect(panel.locator("tr[data-application='ICMP'] td").nth(1)).to_have_text("by protocol")

    page.locator(".page-actions").get_by_role("link", name="Credentials").click()
    expect(page).to_have_url(re.compile(f"/captures/{cid}/credentials$"))
    expect(page.locator("#secrets-note")).to_contain_text("Secrets are never stored")
    logins = page.locator("#credentials tbody tr")
    expect(logins).to_have_count(3)
    expect(logins.locator("td:last-child a.frame-link")).to_have_text(["1725", "1730", "1737"])
    expect(logins.locator("td.cred-user")).to_have_text(["admin", "admin", "user"])
    expect(logins.locator("td.cred-secret .masked")).to_have_text(["secret ******", "secret ******", "password ******"])
    # auth off: the local actor holds every role, so each secret offers Reveal
    reveals = page.get_by_role("button", name=re.compile("^Reveal", re.IGNORECASE))
    expect(reveals).to_have_count(3)
    expect(page.locator(".revealed-secret")).to_have_count(0)
    # tshark reads frame 1725's body as username=admin&password=secret123
    logins.first.get_by_role("button", name=re.compile("^Reveal")).click()
    expect(logins.first.locator(".revealed-secret")).to_have_text("password=secret123")
    expect(logins.first.locator(".revealed-note")).to_contain_text("audit log")
    expect(logins.nth(1).locator(".revealed-secret")).to_have_count(0)  # the others stay masked
    audit = pages.open(f"/captures/{cid}/audit")
    expect(audit.locator(".audit-change").first).to_contain_text("revealed the http-form secret of admin")
    assert "secret123" not in audit.content()
    page.reload()
    expect(page.locator(".revealed-secret")).to_have_count(0)  # masked again: nothing was stored
    with page.expect_download() as got:  # the credentials CSV: one row per login, masked
        page.locator(".page-actions").get_by_role("link", name="Export CSV").click()
    assert got.value.suggested_filename == f"tracepcap-{cid}-credentials.csv"
    exported = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text(encoding="utf-8"))))
    assert [(r["first_frame"], r["protocol"], r["secret"]) for r in exported] == [
        ("1725", "http-form", "secret ******"), ("1730", "http-json", "secret ******"), ("1737", "http", "password ******")]
    logins.first.locator("a.frame-link").click()
    expect(page).to_have_url(re.compile(f"/captures/{cid}/frames/1725$"))

    page.go_back()
    page.locator(".page-actions").get_by_role("link", name="Software").click()
    rows = page.locator("#software tbody tr")
    expect(rows.filter(has_text="OpenSSH").locator("td.sw-version")).to_have_text("8.9")
    expect(rows.filter(has_text="Chrome").locator("td.sw-version")).to_have_text("83.0.4103")
    rows.filter(has_text="OpenSSH").locator("a.frame-link").first.click()
    expect(page).to_have_url(re.compile(f"/captures/{cid}/frames/1660$"))

    host = pages.open(f"/captures/{cid}/hosts/{MAC_SSH}")
    host.locator("#host-links").get_by_role("link", name="Software of this device").click()
    expect(host.locator("h1")).to_contain_text(f"Software of {MAC_SSH}")
    expect(host.locator("#software tbody tr")).to_have_count(1)
    expect(host.locator("#software tbody tr td.sw-product")).to_have_text("OpenSSH")

    missing = pages.open(f"/captures/{cid}/software?device=10.99.99.99")
    expect(missing.locator("#content-wait")).to_contain_text("no host or device '10.99.99.99'")


def test_listings_with_oidc_load_with_the_viewers_token(oidc_web, captures):
    api, pages, issuer = oidc_web()
    with api.client(issuer.token("alice", ("analyst",))) as client:
        cid = api.analyzed(client, captures / DEMO)
    with api.client() as anonymous:
        assert anonymous.get(f"/captures/{cid}/credentials").status_code == 401
        assert anonymous.get(f"/captures/{cid}/applications").status_code == 401

    issuer.sign_in_as("carol", ("viewer",))
    page = pages.open(f"/captures/{cid}/credentials")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who-name")).to_have_text(re.compile(r"^carol \("))
    expect(page.locator("#credentials tbody tr")).to_have_count(3)
    expect(page.get_by_role("button", name=re.compile("^Reveal"))).to_have_count(0)  # a viewer may not
    expect(page.locator("#secrets-note")).to_contain_text("needs the analyst role")
    page.locator(".crumbs").get_by_role("link", name=DEMO).click()
    expect(page.locator("#applications-panel tr[data-application='SSH'] td").nth(1)).to_have_text("by payload")


def test_an_analysts_reveal_is_audited_under_their_name(oidc_web, captures):
    api, pages, issuer = oidc_web()
    with api.client(issuer.token("alice", ("analyst",))) as client:
        cid = api.analyzed(client, captures / DEMO)
    issuer.sign_in_as("alice", ("analyst",))
    page = pages.open(f"/captures/{cid}/credentials")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who-name")).to_have_text(re.compile(r"^alice \("))
    basic = page.locator("#credentials tbody tr[data-frame='1737']")
    expect(basic.locator(".masked")).to_have_text("password ******")
    basic.get_by_role("button", name=re.compile("^Reveal")).click()
    expect(basic.locator(".revealed-secret")).to_have_text("pass")  # tshark: Basic dXNlcjpwYXNz, user:pass
    with api.client(issuer.token("alice", ("analyst",))) as client:
        events = client.get(f"/captures/{cid}/audit", params={"action": "credential.revealed"}).json()
    assert [(e["actor"], e["after"]["frame"], e["after"]["protocol"]) for e in events] == [("alice", 1737, "http")]
    page.locator(".crumbs").get_by_role("link", name=DEMO).click()
    audit = pages.open(f"/captures/{cid}/audit")
    audit.get_by_role("button", name="Log in").click()
    row = audit.locator("tbody tr", has_text="revealed the http secret of user")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(1)).to_contain_text("alice")
