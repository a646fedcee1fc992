"""Issue 28 in the browser: the inventory's traffic columns on a shared capture, sorted by
clicking their headers and filtered by a minimum packet count and a served port, the numbers
the API gives."""

from __future__ import annotations

import re

from playwright.sync_api import expect

CAPTURE = "http_demo.pcap"


def _values(page, column: str) -> list[int]:
    return [int(v) for v in page.locator(f"#hosts tbody td[data-col='{column}']").evaluate_all(
        "cells => cells.map(c => c.dataset.value)")]


def _keys(page) -> list[str]:
    return page.locator("#hosts tbody th[scope='row'] a").evaluate_all(
        "links => links.map(a => a.getAttribute('href').split('/').pop())")


def test_traffic_columns_sort_and_filter_in_the_browser(web, captures):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / CAPTURE)
        hosts = client.get(f"/captures/{cid}/hosts", params={"limit": 1000}).json()
    traffic = {h["key"]: h["traffic"] for h in hosts}
    packets = {k: t["packets_sent"] + t["packets_received"] for k, t in traffic.items()}
    size = {k: t["bytes_sent"] + t["bytes_received"] for k, t in traffic.items()}
    page = pages.open(f"/captures/{cid}")
    rows = page.locator("#hosts tbody tr")
    expect(rows).to_have_count(len(hosts))
    # the cells carry the API's numbers
    assert dict(zip(_keys(page), _values(page, "packets"))) == packets
    server = page.locator("#hosts tbody tr", has=page.get_by_role("link", name="10.0.0.70", exact=True))
    expect(server.locator("td[data-col='ports_served']")).to_contain_text("tcp/80")

    head = page.locator("#hosts thead")
    head.get_by_role("link", name=re.compile("^Bytes")).click()
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("Bytes")
    expect(page).to_have_url(re.compile(r"sort=bytes"))
    shown = _values(page, "bytes")
    assert shown == sorted(size.values(), reverse=True) and shown[0] > shown[-1]  # largest first
    head.get_by_role("link", name=re.compile("^Bytes")).click()
    expect(page.locator("#hosts thead th[aria-sort='descending']")).to_contain_text("Bytes")
    expect(page).to_have_url(re.compile(r"desc=1"))
    assert _values(page, "bytes") == sorted(size.values())
    head.get_by_role("link", name=re.compile("^Packets")).click()
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("Packets")
    assert _values(page, "packets") == sorted(packets.values(), reverse=True)

    threshold = sorted(set(packets.values()))[1]  # leaves out the quietest hosts
    kept = sum(n >= threshold for n in packets.values())
    page.get_by_label("Min packets").fill(str(threshold))
    page.get_by_label("Min packets").press("Enter")
    expect(page.locator("#hosts-summary")).to_contain_text(f"of {kept} (filtered from {len(hosts)})")
    assert all(n >= threshold for n in _values(page, "packets"))
    assert _values(page, "packets") == sorted(_values(page, "packets"), reverse=True)  # the sort kept

    page.get_by_label("Min packets").fill("")
    page.get_by_label("Min packets").press("Enter")
    expect(page.locator("#hosts-summary")).to_contain_text(f"of {len(hosts)}")
    expect(page.locator("#hosts-summary")).not_to_contain_text("filtered")
    page.get_by_label("Serves port").fill("80")
    page.get_by_label("Serves port").press("Enter")
    servers = {k for k, t in traffic.items() if "tcp/80" in t["ports_served"]}
    expect(page.locator("#hosts-summary")).to_contain_text(f"of {len(servers)} (filtered from {len(hosts)})")
    assert set(_keys(page)) == servers
    page.reload()  # the view is in the address
    expect(rows).to_have_count(len(servers))
    expect(page.get_by_label("Serves port")).to_have_value("80")
