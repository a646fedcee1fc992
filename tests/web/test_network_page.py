"""The network page in the browser: create a network from the list page, then (two synthetic
weeks put in through the API, week 1's kiosk answered by a human, its MAC moved in week 2) walk
the change timeline and the presence grid, re-affirm the stale carried answer and mark a change
reviewed. The page puts its summary first and each long list behind a disclosure (issue 28)."""

from __future__ import annotations

from dataclasses import replace

from playwright.sync_api import expect
from support.office_weeks import BASE, Week, write_week

KIOSK = "10.9.0.10"
OLD, NEW = "mac-00-11-22-00-00-10", "mac-00-11-22-00-00-99"  # the kiosk's device before and after its MAC moved


def test_network_page_timeline_grid_reaffirm_and_review(web, tmp_path):
    api, pages = web
    page = pages.open("/networks")
    page.get_by_label("Name").fill("hq")
    page.get_by_role("button", name="Create").click()
    link = page.locator("#network-list").get_by_role("link", name="hq")
    expect(link).to_be_visible()

    moved = [replace(d, mac="00:11:22:00:00:99") if d.ip == KIOSK else d for d in BASE]
    with api.client() as client:
        nid = client.get("/networks").json()[0]["id"]
        w0 = api.analyzed(client, write_week(tmp_path / "w0.pcap", 0, Week(BASE)))
        w1 = api.analyzed(client, write_week(tmp_path / "w1.pcap", 1, Week(moved)))
        for cid in (w0, w1):
            assert client.post(f"/networks/{nid}/captures", json={"capture_id": cid}).status_code == 200
        assert client.put(f"/captures/{w0}/adjudications/host-identity/{KIOSK}/override",
                          json={"label": "Kiosk", "rationale": "seen on site"}).status_code == 200

    link.click()
    expect(page.locator("h1")).to_have_text("Network hq")
    expect(page.locator("#network-captures li")).to_have_count(2)
    # issue 28: the summary first; the timeline, the grid and the inventory closed below it
    summary = page.locator("#change-summary")
    expect(summary).to_be_visible()
    for name in ("timeline", "presence", "inventory"):
        expect(page.locator(f"#{name}-list")).not_to_have_attribute("open", "")
        assert summary.bounding_box()["y"] < page.locator(f"#{name}-list").bounding_box()["y"]
    expect(page.locator("#presence")).to_be_hidden()
    expect(page.locator("#network-inventory")).to_be_hidden()
    page.locator("#timeline-list > summary").click()
    # the timeline: week 2's changes, the kiosk's MAC move among them
    step = page.locator(f".timeline-step[data-capture='{w1}']")
    moved_change = step.locator(".change[data-kind='address-moved']", has_text=KIOSK)
    expect(moved_change).to_contain_text("00:11:22:00:00:99")
    # the presence grid, one row per device (its MAC's key): the kiosk's old MAC present in week 1
    # only; its new MAC, holding the kiosk's address in week 2, changed there (the address moved)
    page.locator("#presence-list > summary").click()
    expect(page.locator("#presence")).to_be_visible()
    old = page.locator(f"#presence tr[data-entity='{OLD}']")
    expect(old.locator("th")).to_contain_text(KIOSK)
    expect(old.locator("td").nth(0)).to_have_class("cell-present")
    expect(old.locator("td").nth(1)).to_have_class("cell-absent")
    cells = page.locator(f"#presence tr[data-entity='{NEW}'] td")
    expect(cells).to_have_count(2)
    expect(cells.nth(0)).to_have_class("cell-absent")
    expect(cells.nth(1)).to_have_class("cell-changed")
    # the inventory: the carried answer is stale, saying what moved; re-affirm it
    page.locator("#inventory-list > summary").click()
    answer = page.locator(f"#network-inventory tr[data-entity='{NEW}'] li[data-question='host-identity']")
    expect(answer.locator(".state-stale")).to_have_text("stale")
    expect(answer).to_contain_text("Device type: Kiosk")  # the question's title, not its key
    expect(answer.locator(".stale-text")).to_contain_text("00:11:22:00:00:99 new (frame")
    answer.get_by_role("button", name="Re-affirm").click()
    answer = page.locator(f"#network-inventory tr[data-entity='{NEW}'] li[data-question='host-identity']")
    expect(answer.locator(".state-carried")).to_have_text("carried")
    expect(answer.locator(".stale-text")).to_have_count(0)
    # the page came back from the server: the lists open before stay open
    for name in ("timeline", "presence", "inventory"):
        expect(page.locator(f"#{name}-list")).to_have_attribute("open", "")
    # mark the MAC move reviewed
    moved_change = page.locator(f".timeline-step[data-capture='{w1}'] .change[data-kind='address-moved']",
                                has_text=KIOSK)
    moved_change.get_by_role("button", name="Mark reviewed").click()
    expect(moved_change.locator(".reviewed")).to_have_text("reviewed by unattributed")
    page.reload()
    page.locator("#timeline-list > summary").click()
    expect(page.locator(f".timeline-step[data-capture='{w1}'] .change[data-kind='address-moved']",
                        has_text=KIOSK).locator(".reviewed")).to_be_visible()
    with api.client() as client:
        verdict = client.get(f"/captures/{w1}/adjudications/host-identity/{KIOSK}").json()
    assert verdict["primary_label"] == "Kiosk" and not verdict.get("stale_since")
    # a pager link of the grid or the inventory comes back with that list open, the others closed
    page.goto(f"/networks/{nid}?devices=0")
    expect(page.locator("#network-inventory")).to_be_visible()
    expect(page.locator("#presence")).to_be_hidden()
    page.goto(f"/networks/{nid}?grid=0")
    expect(page.locator("#presence")).to_be_visible()
    expect(page.locator("#network-inventory")).to_be_hidden()
