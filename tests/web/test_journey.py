"""The analyst's journey through the browser, as the issue tells it: upload dns_demo.pcap,
wait for the analysis, open the DNS server's host page, read the reasons, override
host-identity, add evidence (there and on another host), dismiss a candidate, revert the
override, read the actions in the trail with their times. Then: a contested verdict resolved
in one click, and failed actions showing the server's message."""

from __future__ import annotations

import re
from contextlib import suppress

from web_helpers import DNS_DEMO, DNS_SERVER, OTHER_HOST, expect_time, panel
from playwright.sync_api import Error, expect

from tracepcap.store.models import AuditEvent


def test_upload_analyze_override_evidence_dismiss_revert_trail(web, captures):
    api, pages = web
    page = pages.open("/")

    # upload with the file picker: the upload bar, then the analysis bar, then a link
    page.set_input_files("#upload-file", str(captures / DNS_DEMO))
    row = page.locator(".upload-row").first
    expect(row.locator(".upload-name")).to_have_text(DNS_DEMO)
    expect(row.locator(".p-upload-text")).to_have_text("done")
    expect(row.locator(".p-upload")).to_have_js_property("value", 100)
    opened = row.get_by_role("link", name=f"Open {DNS_DEMO}")
    expect(opened).to_be_visible(timeout=60_000)
    expect(row.locator(".p-analysis")).to_have_js_property("value", 100)
    expect(row.locator(".p-analysis-text")).to_have_text("done")
    listed = page.locator("#capture-list tbody tr", has_text=DNS_DEMO)
    expect(listed.locator(".status")).to_have_text("done")
    expect(listed.locator("td").nth(4)).to_have_text("5")  # hosts

    # the capture page: five hosts; open the DNS server
    opened.click()
    expect(page.locator("h1")).to_have_text(DNS_DEMO)
    expect(page.locator("#hosts tbody tr")).to_have_count(5)
    page.locator("#hosts").get_by_role("link", name=DNS_SERVER, exact=True).click()
    expect(page.locator("h1")).to_have_text(DNS_SERVER)

    # read the reasons
    identity = panel(page, "host-identity")
    expect(identity.locator(".badge")).to_have_text("DNS Server")
    first = identity.locator(".candidate").first
    expect(first.locator(".cand-label")).to_have_text("DNS Server")
    expect(first.locator(".reason").first).to_contain_text(
        "answered DNS on udp/53 for 3 clients, first in frame 2 (+60)")
    expect(first.locator(".reason .frames").first).to_have_text("frame 2")
    expect(identity.locator(".candidate", has_text="Router").locator(".reason")).to_contain_text(
        "also carries 192.168.1.53")

    # I disagree: the badge turns human at once
    identity.get_by_text("I disagree…").click()
    identity.get_by_label("It is").select_option("Server")
    identity.get_by_label("Rationale").fill("the rack diagram calls it the infrastructure server")
    identity.get_by_role("button", name="Save answer").click()
    expect(identity.locator(".badge")).to_have_text("Server")
    expect(identity.locator(".badge")).to_have_class(re.compile(r"\bbadge-human\b"))
    expect(identity.locator(".badge-line .pill-human")).to_have_text("human")
    expect(identity.locator(".override-note")).to_contain_text("the rack diagram calls it the infrastructure server")
    expect(identity.locator(".candidate").first.locator(".cand-label")).to_have_text("DNS Server")  # still explained
    expect(page.locator(".headline li").first).to_have_text(re.compile(r"Device type:\s*Server\s*human"))

    # evidence while the override holds: in the reasons, tagged with its author
    identity.get_by_text("Add evidence…").click()
    identity.get_by_label("Evidence for").select_option("DNS Server")
    expect(identity.get_by_label("Weight")).to_have_value("40")  # the default
    identity.get_by_label("Weight").fill("50")
    identity.get_by_label("Reason (required)").fill("every client's resolver setting points here")
    identity.get_by_role("button", name="Add evidence").click()
    analyst = identity.locator(".reason-analyst")
    expect(analyst).to_contain_text("analyst-provided · unattributed")
    expect(analyst).to_contain_text("every client's resolver setting points here (+50)")
    expect(identity.locator(".candidate").first.locator(".score")).to_have_text("110")
    evidence = identity.locator(".evidence-item")
    expect(evidence.get_by_text("edit")).to_be_visible()  # the author may edit or delete it
    expect(evidence.get_by_role("button", name="delete")).to_be_visible()

    # evidence on another host: it enters that host's race and its reasons
    page.locator(".host-facts").get_by_role("link", name=OTHER_HOST).click()
    expect(page.locator("h1")).to_have_text(OTHER_HOST)
    other = panel(page, "host-identity")
    expect(other.locator(".badge")).to_have_text("Unknown")
    other.get_by_text("Add evidence…").click()
    other.get_by_label("Evidence for").select_option("Workstation")
    other.get_by_label("Weight").fill("55")
    other.get_by_label("Reason (required)").fill("the asset list says it is a desk PC")
    other.get_by_role("button", name="Add evidence").click()
    expect(other.locator(".badge")).to_have_text("Workstation")
    expect(other.locator(".candidate").first.locator(".reason-analyst")).to_contain_text(
        "analyst-provided · unattributed")
    expect(other.locator(".candidate").first.locator(".reason-analyst")).to_contain_text(
        "the asset list says it is a desk PC (+55)")
    page.go_back()
    expect(page.locator("h1")).to_have_text(DNS_SERVER)
    identity = panel(page, "host-identity")

    # dismiss a candidate: struck through, with who and why
    router = identity.locator(".candidate", has_text="Router")
    router.get_by_text("not this…").click()
    router.get_by_label("Why is it not Router?").fill("the shared MAC is its own second address, not routing")
    router.get_by_role("button", name="Dismiss Router").click()
    dismissed = identity.locator(".dismissed li")
    expect(dismissed.locator("s")).to_have_text("Router")
    expect(dismissed).to_contain_text("dismissed by unattributed")
    expect(dismissed).to_contain_text("the shared MAC is its own second address, not routing")
    expect(identity.locator(".candidate", has_text="Router")).to_have_count(0)

    # revert to machine
    identity.get_by_role("button", name="Revert to machine").click()
    expect(identity.locator(".badge")).to_have_text("DNS Server")
    expect(identity.locator(".badge")).not_to_have_class(re.compile(r"\bbadge-human\b"))
    expect(identity.locator(".override-note")).to_have_count(0)
    expect(page.locator(".headline li").first).to_have_text(re.compile(r"Device type:\s*DNS Server\s*100%$"))  # with its confidence

    # the trail: the four actions on this (question, host), newest first, who and when
    trail = identity.locator(".trail-item")
    expect(trail).to_have_count(4)
    expect(trail.locator(".trail-action")).to_have_text(
        ["override.cleared", "dismissal.added", "evidence.added", "override.set"])
    expect(trail.locator(".trail-who")).to_have_text(["unattributed"] * 4)
    expect(trail.nth(0)).to_contain_text("reverted “Server” to the machine's answer")
    expect(trail.nth(1)).to_contain_text("dismissed “Router”")
    expect(trail.nth(2)).to_contain_text("added evidence for “DNS Server” (+50)")
    expect(trail.nth(3)).to_contain_text("set the answer to “Server”")
    for i in range(4):
        expect_time(trail.nth(i))
    # and the other host's: the evidence added there
    page.goto(f"/captures/{page.url.split('/captures/')[1].split('/')[0]}/hosts/{OTHER_HOST}")
    other_trail = panel(page, "host-identity").locator(".trail-item")
    expect(other_trail.locator(".trail-action")).to_have_text(["evidence.added"])
    expect_time(other_trail.first)

    with api.db.session() as s:  # what the page showed is what the audit log holds
        actions = [(e.entity_key, e.action, e.actor) for e in s.query(AuditEvent).order_by(AuditEvent.id)]
    dns, other = "mac-52-54-00-aa-00-01", _device(OTHER_HOST)  # the audit log carries entity keys (issue 11)
    assert actions == [(dns, "override.set", "system"), (dns, "evidence.added", "system"),
                       (other, "evidence.added", "system"), (dns, "dismissal.added", "system"),
                       (dns, "override.cleared", "system")]


def test_contested_verdict_is_resolved_in_one_click(analyzed):
    _api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}/hosts/{DNS_SERVER}")
    identity = panel(page, "host-identity")
    identity.get_by_text("Add evidence…").click()
    identity.get_by_label("Evidence for").select_option("Router")
    identity.get_by_label("Weight").fill("45")
    identity.get_by_label("Reason (required)").fill("it forwards for the lab VLAN")
    identity.get_by_role("button", name="Add evidence").click()
    expect(identity.locator(".badge")).to_have_text("⚠ contested")
    expect(identity.locator(".badge-line")).to_contain_text("DNS Server (60) · Router (55)")

    identity.get_by_role("button", name="It is DNS Server").click()
    expect(identity.locator(".badge")).to_have_text("DNS Server")
    expect(identity.locator(".badge-line .pill-human")).to_be_visible()
    expect(identity.locator(".trail-item").first).to_contain_text("chose DNS Server among the contested candidates")

    # the inventory marks it: a human answer now, and no contested verdict left
    page.goto(f"/captures/{cid}")
    row = page.locator("#hosts tbody tr", has=page.get_by_role("link", name=DNS_SERVER, exact=True))
    expect(row.locator(".pill-human")).to_have_count(1)
    expect(page.locator(".count-card", has_text="Device type").locator(".pill-human")).to_have_text("human 1")


def test_a_parent_level_answer_shows_its_children_and_narrows_in_one_click(web, captures):
    # signal.pcap's Apple host: its SYNs are Apple's stack, nothing says Mac or iPhone
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / "signal.pcap")
    page = pages.open(f"/captures/{cid}/hosts/192.168.2.17")
    family = panel(page, "os-family")
    expect(family.locator(".badge")).to_have_text("Apple")
    expect(family.locator("[data-parent-level]")).to_have_text("parent level: iOS · macOS")
    expect(family.locator(".note").first).to_contain_text("stopped at Apple: iOS (40) and macOS (40) are both Apple")
    family.get_by_role("button", name="It is macOS").click()
    expect(family.locator(".badge")).to_have_text("macOS")
    expect(family.locator("[data-parent-level]")).to_have_count(0)
    expect(family.locator(".trail-item").first).to_contain_text("chose macOS within Apple")


def test_failed_actions_show_the_servers_message(analyzed):
    api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}/hosts/{DNS_SERVER}")
    identity = panel(page, "host-identity")
    error = identity.locator("[data-panel-error]")
    expect(error).to_be_hidden()

    identity.get_by_text("Add evidence…").click()
    identity.get_by_label("Evidence for").select_option("Printer")
    identity.get_by_role("button", name="Add evidence").click()  # no reason
    expect(error).to_have_text("reason is required")
    expect(identity.get_by_label("Evidence for")).to_have_value("Printer")  # the form keeps what was typed

    slider = identity.get_by_label("Weight")
    slider.evaluate("el => { el.min = 0; el.value = 0; }")  # what a slider cannot send, a client can
    identity.get_by_label("Reason (required)").fill("a label on the case")
    identity.get_by_role("button", name="Add evidence").click()
    expect(error).to_have_text("evidence weight must be 1..100 (got 0)")

    identity.get_by_text("I disagree…").click()
    identity.get_by_label("Rationale").fill("no label chosen")
    identity.get_by_role("button", name="Save answer").click()
    expect(error).to_have_text("label is required")

    # an error that is not a panel (the capture is gone): its message, in the panel
    with api.client() as client:
        assert client.delete(f"/captures/{cid}").status_code == 204
    identity.get_by_label("It is").select_option("Server")
    identity.get_by_role("button", name="Save answer").click()
    expect(error).to_contain_text(f"no capture with id, prefix or sha256 '{cid}'")

    with api.db.session() as s:
        assert [e.action for e in s.query(AuditEvent)] == ["capture.deleted"]  # nothing else recorded


def test_drop_files_on_the_upload_zone(web, captures):
    _api, pages = web
    page = pages.open("/")

    def drop(name: str, data: bytes) -> None:
        transfer = page.evaluate_handle(
            "([name, bytes]) => { const t = new DataTransfer();"
            " t.items.add(new File([new Uint8Array(bytes)], name)); return t; }", [name, list(data)])
        page.locator("#dropzone").dispatch_event("drop", {"dataTransfer": transfer})

    drop("http_demo.pcap", (captures / "http_demo.pcap").read_bytes())
    expect(page.locator(".upload-row").first.get_by_role("link", name="Open http_demo.pcap")).to_be_visible(
        timeout=60_000)

    drop("notes.txt", b"these are not packets, just some notes\n" * 4)  # refused: the server says why
    refused = page.locator(".upload-row").first
    expect(refused.locator(".upload-name")).to_have_text("notes.txt")
    expect(refused.locator(".upload-result")).to_contain_text("The upload was refused: not a capture: first bytes")
    expect(refused.locator(".upload-result")).to_have_attribute("role", "alert")
    expect(page.locator("#capture-list tbody tr")).to_have_count(1)


def test_a_write_wins_over_a_refresh_in_flight(analyzed):
    """A panel refreshes when another panel's write changes verdicts. If the analyst acts
    on it while that refresh is still in flight, the refresh must give way: before, its
    stale answer could replace the panel first, and the write's answer then went to the
    panel it had replaced, so the badge never showed the accepted answer."""
    _api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}/hosts/{DNS_SERVER}")
    identity, role = panel(page, "host-identity"), panel(page, "node-role")
    held = []  # the node-role refresh and accept requests, let through when the test says
    page.route(re.compile(r"/panels/node-role(/accept)?$"), lambda route: held.append(route))

    identity.get_by_text("Add evidence…").click()
    identity.get_by_label("Evidence for").select_option("Server")
    identity.get_by_label("Reason (required)").fill("the rack diagram")
    identity.get_by_role("button", name="Add evidence").click()  # node-role refreshes
    expect(identity.locator(".evidence-item")).to_have_count(1)
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    role.get_by_role("button", name="Accept “DNS Resolver”").click()
    for _ in range(100):
        if len(held) == 2:
            break
        page.wait_for_timeout(50)
    refresh, accept = held
    assert refresh.request.method == "GET" and accept.request.method == "POST"
    with suppress(Error):  # a refresh the page already gave up on cannot be answered
        refresh.fulfill(response=refresh.fetch())  # the answer from before the accept
    accept.continue_()
    expect(role.locator(".badge")).to_have_class(re.compile(r"\bbadge-human\b"))
    expect(role.locator(".badge-line .pill-human")).to_have_text("human")
    page.unroute(re.compile(r"/panels/node-role(/accept)?$"))


def test_edit_delete_restore_and_accept(analyzed):
    _api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}/hosts/{DNS_SERVER}")
    identity = panel(page, "host-identity")

    # the author edits, then deletes, their evidence
    identity.get_by_text("Add evidence…").click()
    identity.get_by_label("Evidence for").select_option("__other__")
    identity.get_by_label("Other label").fill("Lab Resolver")
    identity.get_by_label("Reason (required)").fill("sticker on the box")
    identity.get_by_role("button", name="Add evidence").click()
    expect(identity.locator(".candidate", has_text="Lab Resolver").locator(".score")).to_have_text("40")
    item = identity.locator(".evidence-item")
    item.get_by_text("edit").click()
    item.get_by_label("Weight").fill("70")
    item.get_by_label("Reason (required)").fill("sticker on the box, and the asset list")
    item.get_by_role("button", name="Save evidence").click()
    expect(identity.locator(".candidate").first.locator(".cand-label")).to_have_text("Lab Resolver")
    expect(identity.locator(".candidate").first.locator(".score")).to_have_text("70")
    expect(identity.locator(".trail-item").first).to_contain_text("weight 40 → 70")
    page.once("dialog", lambda dialog: dialog.accept())
    identity.locator(".evidence-item").get_by_role("button", name="delete").click()
    expect(identity.locator(".evidence-item")).to_have_count(0)
    expect(identity.locator(".candidate", has_text="Lab Resolver")).to_have_count(0)

    # a dismissal taken back
    router = identity.locator(".candidate", has_text="Router")
    router.get_by_text("not this…").click()
    router.get_by_label("Why is it not Router?").fill("no routing seen")
    router.get_by_role("button", name="Dismiss Router").click()
    identity.locator(".dismissed").get_by_role("button", name="restore").click()
    expect(identity.locator(".dismissed")).to_have_count(0)
    expect(identity.locator(".candidate", has_text="Router")).to_have_count(1)
    expect(identity.locator(".trail-item .trail-action")).to_have_text(
        ["dismissal.removed", "dismissal.added", "evidence.deleted", "evidence.edited", "evidence.added"])

    # accepting the role suggestion answers the device type too: that panel follows at once
    role = panel(page, "node-role")
    role.get_by_role("button", name="Accept “DNS Resolver”").click()
    expect(role.locator(".badge")).to_have_class(re.compile(r"\bbadge-human\b"))
    expect(identity.locator(".badge")).to_have_class(re.compile(r"\bbadge-human\b"))
    expect(identity.locator(".note")).to_contain_text("confirmed by system as DNS Resolver")
    # the device type's trail says why it is now a human answer: the accept, on the Role panel
    expect(identity.locator(".trail-item")).to_have_count(6)
    expect(identity.locator(".trail-item").first).to_contain_text("on Role")
    expect(identity.locator(".trail-item").first).to_contain_text("this answer follows it: DNS Server")


def _device(ip: str) -> str:
    """dns_demo.pcap's entity key of an address: its device's (every client owns its MAC) or the address."""
    return {"192.168.1.1": "mac-52-54-00-aa-00-01", "192.168.1.20": "mac-52-54-00-bb-00-20",
            "192.168.1.21": "mac-52-54-00-bb-00-21", "192.168.1.22": "mac-52-54-00-bb-00-22"}.get(ip, ip)
