"""Issue 15 in the browser: the topology of 1,000 hosts (grouped, a closed group opened by a
click on it, a filter by answer, full screen), the busy indicator, a sort clicked while the
filter's debounce runs, "+N more labels", refused and duplicate uploads, and a trunk port's
capture grouped by VLAN. Issue 28: the topology (in its tab) of a generated capture of more
than 100 hosts opens with its subnet groups closed, one opens on a click; demo_all_rules.pcap's
spoofer stands out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from support import campus as support_campus
from tracepcap.testing import campus, crowd, vlans

GRAPH = "document.getElementById('topology').tpGraph"
DRAWN = f"() => {GRAPH} && !document.getElementById('topology').hasAttribute('aria-busy')"


@pytest.fixture
def big(web):
    api, pages = web
    support_campus.build(api.db)
    return api, pages


def _graph(page, expression: str):
    return page.evaluate(f"() => {{ const g = {GRAPH}; return {expression}; }}")


def _topology(page):
    """Show the capture page's Topology tab and wait for the graph it draws then."""
    page.get_by_role("tab", name="Topology").click()
    page.wait_for_function(DRAWN)


def _click_node(page, node_id: str) -> None:
    page.locator("#topology").scroll_into_view_if_needed()
    # cytoscape maps a click through where it last saw its container, and learns of a scroll
    # from the scroll event, a frame later: click once it has
    page.wait_for_function(f"() => Math.abs({GRAPH}.renderer().findContainerClientCoords()[1]"
                           " - document.getElementById('topology').getBoundingClientRect().top) < 2")
    at = page.evaluate(f"(id) => {GRAPH}.$id(id).renderedPosition()", node_id)
    page.locator("#topology").click(position={"x": at["x"], "y": at["y"]})


def test_topology_of_a_thousand_hosts_groups_and_opens_on_click(big):
    _api, pages = big
    page = pages.open(f"/captures/{campus.CID}")
    assert _graph(page, "g") is None  # in a tab not shown yet: not drawn
    _topology(page)
    note = page.locator("#topology-note")
    expect(note).to_contain_text("0 of 1000 hosts drawn one by one, in 21 groups by subnet (21 closed")
    expect(note).to_contain_text("A capture of this many hosts opens with its subnet groups closed.")
    assert _graph(page, "g.nodes(\"[kind = 'zone']\").map(n => n.data('name'))") == ["Local network", "Remote"]
    assert _graph(page, "g.nodes(\"[kind = 'host']\").length") == 0
    assert _graph(page, "g.$id('g:local:10.1.0.0/24').data('name')") == "10.1.0.0/24 · 150 hosts"
    remote = _graph(page, "g.nodes(\"[kind = 'aggregate'][zone = 'remote']\").map(n => n.data('name'))")
    assert len(remote) == 18 and all(re.fullmatch(r"\d+\.\d\.0\.0/16 · \d+ hosts", name) for name in remote)
    assert _graph(page, "g.edges().max(e => e.data('width')).value") == 8  # weighted by bytes

    group = "g:remote:52.0.0.0/16"  # a click on the closed group opens it, host by host
    _click_node(page, group)
    page.wait_for_function(f"(id) => {GRAPH}.$id(id).data('kind') === 'group'", arg=group)
    assert _graph(page, f"g.$id('{group}').children().map(n => n.id()).sort()") == sorted(
        campus.remote(j, k) for j in range(4) for k in range(10))
    expect(page.locator("#topology-note")).to_contain_text("40 of 1000 hosts")
    page.locator(".topology-group-list summary").click()  # the list says so, and closes it again
    item = page.locator("#topology-groups li[data-group='remote:52.0.0.0/16']")
    expect(item).to_contain_text("remote 52.0.0.0/16 · 40 hosts (40 remote)")
    item.get_by_role("button", name="close 52.0.0.0/16").click()
    page.wait_for_function(f"(id) => {GRAPH}.$id(id).data('kind') === 'aggregate'", arg=group)

    page.locator("#topology-only").select_option("Printer")  # filter by answer
    page.wait_for_function(f"() => {GRAPH}.nodes(\"[kind = 'host']\").every(n => n.data('answer') === 'Printer')")
    expect(page.locator("#topology-note")).to_contain_text("(only 84 whose Device type is Printer)")

    page.get_by_role("button", name="Full screen").click()
    card = page.locator(".topology-card")
    expect(card).to_have_class(re.compile("is-full"))
    assert card.bounding_box()["width"] == 1366
    page.keyboard.press("Escape")
    expect(card).not_to_have_class(re.compile("is-full"))
    expect(page.get_by_role("button", name="Full screen")).to_have_attribute("aria-pressed", "false")


def test_a_generated_capture_of_more_than_100_hosts_opens_collapsed_and_a_group_expands(web, tmp_path):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, crowd.build_crowd(tmp_path / "crowd.pcap", 150))
    page = pages.open(f"/captures/{cid}")
    _topology(page)
    expect(page.locator("#topology-note")).to_contain_text("opens with its subnet groups closed")
    closed = _graph(page, "g.nodes(\"[kind = 'aggregate']\").map(n => [n.id(), n.data('hosts'), n.data('name')])")
    assert closed and all(hosts > 1 and name.split("\n")[0].endswith(f" · {hosts} hosts") for _, hosts, name in closed)
    # no group of several hosts drawn open (a group of one is drawn as its host)
    assert _graph(page, "g.nodes(\"[kind = 'group']\").every(n => n.data('hosts') === 1)")
    group, hosts, _ = max(closed, key=lambda c: c[1])
    _click_node(page, group)  # one node per subnet: a click draws its hosts
    page.wait_for_function(f"(id) => {GRAPH}.$id(id).data('kind') === 'group'", arg=group)
    assert _graph(page, f"g.$id('{group}').children().length") == hosts
    assert _graph(page, "g.nodes(\"[kind = 'aggregate']\").length") == len(closed) - 1


def test_the_spoofer_of_demo_all_rules_stands_out(web, captures):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / "demo_all_rules.pcap")
    page = pages.open(f"/captures/{cid}")
    _topology(page)
    spoofer = "mac-00-80-8f-9a-ae-bd"  # the Pi that forged DNS answers as 192.168.1.1 (LABELS.md)
    assert _graph(page, "g.nodes('.spoofer').map(n => n.id())") == [spoofer]
    assert _graph(page, f"g.$id('{spoofer}').hasClass('sev-high')")
    assert _graph(page, f"g.$id('{spoofer}').style('shape')") == "diamond"
    assert _graph(page, f"g.$id('{spoofer}').style('outline-color')") == "rgb(209,36,47)"  # the red ring
    assert _graph(page, "g.$id('91.108.8.1').hasClass('flagged')") is False  # a host no finding names
    assert _graph(page, "g.$id('91.108.8.1').style('shape')") == "ellipse"
    title = _graph(page, f"g.$id('{spoofer}').data('title')")
    assert "⚑ dns-spoofing (high, sent as another host)" in title and "ip-mac-conflict" in title
    assert "⚑" in _graph(page, f"g.$id('{spoofer}').data('name')")  # the finding on its label too
    victim = _graph(page, "[g.$id('192.168.1.1').hasClass('sev-high'), g.$id('192.168.1.1').hasClass('spoofer')]")
    assert victim == [True, False]  # named by the same findings, as the one impersonated
    expect(page.locator("#topology-note")).to_contain_text("a diamond for one sending in another host's name")
    page.locator("#topology").scroll_into_view_if_needed()
    page.wait_for_function(f"() => Math.abs({GRAPH}.renderer().findContainerClientCoords()[1]"
                           " - document.getElementById('topology').getBoundingClientRect().top) < 2")
    at = page.evaluate(f"(id) => {GRAPH}.$id(id).renderedPosition()", spoofer)
    page.locator("#topology").hover(position={"x": at["x"], "y": at["y"]})  # its findings as the tooltip
    expect(page.locator("#topology")).to_have_attribute("title", re.compile("dns-spoofing"))


def test_a_trunk_ports_capture_draws_vlan_groups_and_the_host_page_lists_its_vlan(web, tmp_path):
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, vlans.build(tmp_path / "trunk.pcap"))
    page = pages.open(f"/captures/{cid}")
    _topology(page)
    expect(page.locator("#topology-note")).to_contain_text("groups by VLAN and subnet")
    assert _graph(page, "g.$id('g:local:vlan-20:10.0.20.0/24').data('name')") == "VLAN 20 · 10.0.20.0/24 · 3 hosts"
    page.locator(".topology-group-list summary").click()
    expect(page.locator("#topology-groups li[data-group='local:vlan-20:10.0.20.0/24']")).to_contain_text(
        "local VLAN 20 · 10.0.20.0/24 · 3 hosts")
    host = pages.open(f"/captures/{cid}/hosts/10.0.20.31")
    expect(host.get_by_role("table", name="vlan facts")).to_contain_text("20")


def test_busy_indicator_shows_while_any_request_is_in_flight(big):
    _api, pages = big
    page = pages.new()
    held = []
    page.route(re.compile(r"/ui/captures/[^/]+/hosts\?"), lambda route: held.append(route))
    page.goto(f"/captures/{campus.CID}")
    _topology(page)
    page.get_by_role("tab", name="Hosts").click()
    busy = page.locator("#busy")
    expect(busy).to_be_hidden()
    page.locator("#hosts thead").get_by_role("link", name=re.compile("^MAC")).click()
    expect(busy).to_be_visible()
    expect(busy).to_have_text("Working…")
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("MAC")
    expect(busy).to_be_hidden()

    page.route(re.compile(r"/topology\?"), lambda route: held.append(route))  # our own fetch too
    page.get_by_role("tab", name="Topology").click()
    page.locator("#topology-colour").select_option(index=1)
    expect(busy).to_be_visible()
    held[-1].continue_()
    expect(busy).to_be_hidden()


def test_a_sort_clicked_within_the_filters_debounce_keeps_the_filter(big):
    _api, pages = big
    page = pages.open(f"/captures/{campus.CID}")
    expect(page.locator("#hosts-summary")).to_contain_text("1–50 of 1,000")
    page.get_by_label("Filter").fill("10.1.1.")
    page.locator("#hosts thead").get_by_role("link", name=re.compile("^MAC")).click()  # within 350 ms
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("MAC")
    expect(page.locator("#hosts-summary")).to_contain_text("1–50 of 50 (filtered from 1,000)")
    page.wait_for_timeout(1000)  # the filter's own request, if it went, asked for the same view
    expect(page.locator("#hosts-summary")).to_contain_text("of 50 (filtered from 1,000)")
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("MAC")
    expect(page.get_by_label("Filter")).to_have_value("10.1.1.")
    expect(page.locator("#hosts tbody tr").first.locator("th")).to_have_text("10.1.1.1")
    assert "q=10.1.1." in page.url and "sort=mac" in page.url


def test_a_sort_clicked_while_the_filters_request_runs_is_not_undone_by_its_answer(big):
    _api, pages = big
    page = pages.open(f"/captures/{campus.CID}")
    expect(page.locator("#hosts-summary")).to_contain_text("1–50 of 1,000")
    held = []

    def hold_the_filters_request(route):
        if "sort=" not in route.request.url and not held:
            held.append(route)  # answered only after the sort's request
        else:
            route.continue_()
    page.route(re.compile(r"/ui/captures/[^/]+/hosts\?"), hold_the_filters_request)
    page.get_by_label("Filter").fill("10.20.")
    page.wait_for_function("() => document.getElementById('busy').classList.contains('htmx-request')")
    page.locator("#hosts thead").get_by_role("link", name=re.compile("^Locality")).click()
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("Locality")
    expect(page.locator("#hosts-summary")).to_contain_text("1–50 of 100 (filtered from 1,000)")
    try:
        held[0].continue_()  # too late: the page aborted it
    except Exception:  # noqa: BLE001 (an aborted request cannot be continued)
        pass
    page.wait_for_timeout(1000)
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("Locality")
    expect(page.locator("#hosts-summary")).to_contain_text("of 100 (filtered from 1,000)")


def test_more_labels_expand_and_filter(big):
    _api, pages = big
    page = pages.open(f"/captures/{campus.CID}")
    card = page.locator(".count-card", has_text="Device type")
    more = card.get_by_text("+ 4 more labels")
    hidden = card.get_by_role("link", name=campus.LABELS[-1])
    expect(hidden).to_be_hidden()
    more.click()
    expect(hidden).to_be_visible()
    hidden.click()
    expect(page.locator(".active-filter")).to_contain_text(campus.LABELS[-1])
    expect(page.locator("#hosts-summary")).to_contain_text("of 83 (filtered from 1,000)")


def test_a_refused_upload_says_so_and_a_duplicate_names_its_capture(web, captures):
    _api, pages = web
    page = pages.open("/")

    def drop(name: str, data: bytes) -> None:
        transfer = page.evaluate_handle(
            "([name, bytes]) => { const t = new DataTransfer();"
            " t.items.add(new File([new Uint8Array(bytes)], name)); return t; }", [name, list(data)])
        page.locator("#dropzone").dispatch_event("drop", {"dataTransfer": transfer})

    drop("notes.txt", b"these are not packets\n" * 8)
    refused = page.locator(".upload-row").first
    expect(refused.locator(".upload-result")).to_contain_text("The upload was refused: not a capture")
    expect(refused.locator(".p-analysis-text")).to_have_text("not started: the upload was refused")
    expect(refused.locator(".p-upload-text")).to_have_text("refused")

    data = (captures / "dns_demo.pcap").read_bytes()
    drop("dns_demo.pcap", data)
    first = page.locator(".upload-row").first
    expect(first.get_by_role("link", name="Open dns_demo.pcap")).to_be_visible(timeout=60_000)
    href = first.get_by_role("link", name="Open dns_demo.pcap").get_attribute("href")
    drop("copy of dns.pcap", data)
    again = page.locator(".upload-row").first
    expect(again.locator(".upload-name")).to_have_text("copy of dns.pcap")
    expect(again.locator(".upload-result")).to_contain_text("Already uploaded as dns_demo.pcap")
    expect(again.get_by_role("link", name="dns_demo.pcap")).to_have_attribute("href", href)
    expect(again.locator(".p-analysis-text")).to_have_text("done")
    expect(again.locator(".upload-result")).to_contain_text("Already uploaded as")  # not replaced when it is done
    expect(page.locator("#capture-list tbody tr")).to_have_count(1)


def test_the_captures_list_searches_in_the_browser(web, captures):
    api, pages = web
    with api.client() as client:
        api.analyzed(client, captures / "dns_demo.pcap")
        api.analyzed(client, captures / "http_demo.pcap")
    page = pages.open("/")
    expect(page.locator("#capture-list tbody tr")).to_have_count(2)
    page.get_by_label("Search").fill("http")
    expect(page.locator("#capture-list tbody tr")).to_have_count(1)
    expect(page.locator("#capture-list tbody tr")).to_contain_text("http_demo.pcap")
    expect(page.locator("#captures-summary")).to_contain_text("1–1 of 1 matching “http”")
    assert page.url.endswith("/?q=http")
    page.reload()
    expect(page.locator("#capture-list tbody tr")).to_have_count(1)
