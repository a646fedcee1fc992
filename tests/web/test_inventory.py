"""The host inventory on a capture of many hosts: filtered, sorted and paginated in the
database, marks for contested, human and stale answers; and the UI code names no question."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from web_helpers import DNS_SERVER
from playwright.sync_api import expect
from sqlalchemy import insert

from fake_actor import person
from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import adjudicate_capture
from tracepcap.store.models import Capture, Entity, EntityMember, Host, ObservationRow, VoteRow

HOSTS = 120
CID = "a000000000000001"  # a capture id is hex (a sha256 prefix)
ROW = re.compile(r'<th scope="row"><a href="/captures/[^/]+/hosts/([^"]+)">')
LABELS = ("Printer", "Workstation", "Web Server")
ALICE = person("alice")


def _ip(i: int) -> str:
    return f"10.0.{i // 256}.{i % 256}"


@pytest.fixture
def many(web):
    """A capture of HOSTS hosts straight in the store: a MAC and vendor each, host-identity
    votes (every 10th host contested), one human answer and one stale human answer."""
    api, pages = web
    db, registry = api.db, get_registry()
    with db.session() as s:
        s.add(Capture(id=CID, sha256="e" * 64, name="many.pcap", size=1, format="pcap", status="done",
                      progress_bytes=1, uploaded_at=datetime.now(UTC), uploaded_by="alice"))
        s.flush()
        s.execute(insert(Host), [{"capture_id": CID, "ip": _ip(i), "position": i} for i in range(HOSTS)])
        # each host its own entity, keyed by its address (as Scan stores a host seen without a MAC)
        s.execute(insert(Entity), [{"capture_id": CID, "key": _ip(i), "position": i, "ip": _ip(i),
                                    "addresses": [_ip(i)], "macs": [], "randomised": False} for i in range(HOSTS)])
        s.execute(insert(EntityMember), [{"capture_id": CID, "member": _ip(i), "entity_key": _ip(i)}
                                         for i in range(HOSTS)])
        facts, votes = [], []
        for i in range(HOSTS):
            for kind, value in (("mac", f"02:00:00:00:{i // 256:02x}:{i % 256:02x}"),
                                ("oui-vendor", "Acme Printing" if i % 3 == 0 else "Other Corp")):
                facts.append({"capture_id": CID, "entity": _ip(i), "kind": kind, "value": value,
                              "source": "link-identity", "grade": "MEASURED", "first_frame": i + 1,
                              "last_frame": i + 1, "count": 1, "first_time": 0.0, "last_time": 0.0,
                              "extractor": "link-identity", "extractor_version": "1"})
            label = LABELS[i % 3]
            votes.append({"capture_id": CID, "question": "host-identity", "entity_key": _ip(i), "signal": "s",
                          "label": label, "weight": 50, "reason": f"says {label} (+50)", "grade": "MEASURED",
                          "frames": [i + 1]})
            if i % 10 == 0:
                other = LABELS[(i + 1) % 3]
                votes.append({"capture_id": CID, "question": "host-identity", "entity_key": _ip(i),
                              "signal": "t", "label": other, "weight": 45, "reason": f"says {other} (+45)",
                              "grade": "MEASURED", "frames": [i + 1]})
        s.execute(insert(ObservationRow), facts)
        s.execute(insert(VoteRow), votes)
    adjudicate_capture(db, registry, CID)
    with db.session() as s:
        annotations.set_override(s, registry, Key("host-identity", CID, _ip(1)), "Router", "diagram", actor=ALICE)
    with db.session() as s:
        annotations.set_override(s, registry, Key("host-identity", CID, _ip(2)), "Switch", "label", actor=ALICE)
    with db.session() as s:  # the MAC beneath the second answer changes: it goes stale on re-analysis
        s.query(ObservationRow).filter_by(capture_id=CID, entity=_ip(2), kind="mac").update({"value": "02:ff:ff:ff:ff:ff"})
    adjudicate_capture(db, registry, CID)
    return api, pages


def _identity_cells(html: str) -> list[str]:
    """The host-identity answers of the table's rows (its column comes after the MAC's)."""
    rows = re.findall(r"<tr>\s*<th scope=\"row\">(.*?)</tr>", html, re.S)
    cells = [re.findall(r"<td>(.*?)</td>", row, re.S)[1] for row in rows]
    return [m.group(1) if (m := re.search(r'<span class="answer[^"]*">([^<]+)</span>', c)) else "⚠" for c in cells]


def _hosts(api, **params):
    with api.client() as client:
        response = client.get(f"{api.url}/ui/captures/{CID}/hosts", params=params)
    assert response.status_code == 200, response.text
    return response, ROW.findall(response.text)


def test_pages_filters_marks_and_sorts_in_the_database(many):
    api, _pages = many
    response, ips = _hosts(api, per_page=25)
    assert ips == [_ip(i) for i in range(25)]
    assert "1–25 of 120" in response.text and "page 1 of 5" in response.text
    assert response.headers["hx-push-url"] == f"/captures/{CID}?per_page=25"
    _, ips = _hosts(api, per_page=25, page=5)
    assert ips == [_ip(i) for i in range(100, 120)]
    _, ips = _hosts(api, per_page=25, page=99)  # past the end: the last page
    assert ips == [_ip(i) for i in range(100, 120)]

    assert _hosts(api, q="02:00:00:00:00:07")[1] == [_ip(7)]  # a MAC
    assert _hosts(api, q="ACME", per_page=200)[1] == [_ip(i) for i in range(HOSTS) if i % 3 == 0]  # a vendor
    assert _hosts(api, q="10.0.0.11")[1] == [_ip(11)] + [_ip(i) for i in range(110, 120)]  # an address
    assert _hosts(api, q="100%")[1] == []  # LIKE wildcards are text

    contested = {_ip(i) for i in range(0, HOSTS, 10)}
    assert set(_hosts(api, mark="contested", per_page=200)[1]) == contested
    assert _hosts(api, mark="human")[1] == [_ip(1), _ip(2)]
    assert _hosts(api, mark="stale")[1] == [_ip(2)]
    response, ips = _hosts(api, question="host-identity", label="Printer", per_page=200)
    printers = [_ip(i) for i in range(HOSTS) if i % 3 == 0 and _ip(i) not in contested]
    assert ips == printers and "Showing hosts whose <strong>Device type</strong> is" in response.text

    response, ips = _hosts(api, sort="host-identity", per_page=200)
    cells = _identity_cells(response.text)
    answered = cells[:HOSTS - len(contested)]
    assert answered == sorted(answered, key=str.casefold) and "⚠" not in answered
    assert set(ips[-len(contested):]) == contested  # contested after every answered host
    response, ips = _hosts(api, sort="host-identity", desc="1", per_page=200)
    assert set(ips[:len(contested)]) == contested
    assert _hosts(api, sort="mac", desc="1", per_page=25)[1][:3] == [_ip(2), _ip(119), _ip(118)]

    rows = re.findall(r"<tr>\s*<th scope=\"row\">.*?</tr>", _hosts(api, per_page=25)[0].text, re.S)
    assert sum(row.count('class="mark mark-contested"') for row in rows) == 3
    assert ['pill pill-human' in row for row in rows[:4]] == [False, True, True, False]
    assert ['pill pill-stale' in row for row in rows[:4]] == [False, False, True, False]


def test_unknown_capture_or_host_is_a_404_page_saying_which(many):
    api, _pages = many
    with api.client() as client:
        for path, message in (("/captures/nope", "no capture with id, prefix or sha256 &#39;nope&#39;"),
                              (f"/captures/{CID}/hosts/10.9.9.9", f"no host or device &#39;10.9.9.9&#39; in capture {CID}")):
            response = client.get(f"{api.url}{path}")
            assert response.status_code == 404 and message in response.text
            assert response.headers["content-type"].startswith("text/html")


def test_the_table_in_the_browser(many):
    api, pages = many
    page = pages.open(f"/captures/{CID}")
    expect(page.locator("#hosts tbody tr")).to_have_count(50)
    expect(page.locator("#hosts-summary")).to_contain_text("1–50 of 120")
    page.locator(".pager").get_by_role("link", name="next page").click()
    expect(page.locator("#hosts-summary")).to_contain_text("51–100 of 120")
    assert page.url.endswith(f"/captures/{CID}?page=2")  # the view is in the address: reload keeps it

    page.get_by_label("Filter").press_sequentially("acme", delay=30)
    expect(page.locator("#hosts-summary")).to_contain_text("of 40 (filtered from 120)")
    expect(page.get_by_label("Filter")).to_be_focused()  # typing goes on in the same box
    expect(page.get_by_label("Filter")).to_have_value("acme")

    page.locator("#hosts thead").get_by_role("link", name=re.compile("^Device type")).click()
    expect(page.locator("#hosts thead th[aria-sort='ascending']")).to_contain_text("Device type")
    expect(page.locator("#hosts-summary")).to_contain_text("of 40 (filtered from 120)")  # the sort kept the filter
    page.get_by_label("Filter").fill("")  # a count's link keeps the text in the box: empty it first
    expect(page.locator("#hosts-summary")).to_contain_text("1–50 of 120")
    page.locator(".count-card", has_text="Device type").get_by_role("link", name="Router").click()
    expect(page.locator("#hosts tbody tr")).to_have_count(1)
    expect(page.locator(".active-filter")).to_contain_text("Device type")
    page.reload()
    expect(page.locator("#hosts tbody tr")).to_have_count(1)  # the filter survives a reload
    expect(page.locator("#hosts tbody tr")).to_contain_text("Router")


def test_dns_demo_inventory_shows_the_listed_columns(analyzed):
    _api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}")
    head = page.locator("#hosts thead th")
    titles = [a.title for a in get_registry()]
    sortable = ["Packets", "Bytes", "Peers", "First seen", "Last seen"]  # issue 28's traffic columns
    columns = [re.compile(rf"^\s*{re.escape(t)} ") for t in ["IP", "MAC / vendor", "Locality", *sortable]]
    columns += [re.compile(r"^\s*Ports served\s*$"), *(re.compile(rf"^\s*{re.escape(t)} ") for t in titles)]
    expect(head).to_have_text([columns[0], re.compile(r"^⚑Findings$"), *columns[1:]])  # the findings marker
    row = page.locator("#hosts tbody tr", has=page.get_by_role("link", name=DNS_SERVER, exact=True))
    expect(row).to_contain_text("52:54:00:aa:00:01")
    expect(row).to_contain_text("locally administered")
    expect(row).to_contain_text("DNS Server")
    page.get_by_role("tab", name="Manifest").click()
    expect(page.locator("#manifest-title")).to_be_visible()
    page.get_by_role("tab", name="Topology").click()
    expect(page.locator("#topology canvas").first).to_be_attached()
    expect(page.locator("#topology-legend")).to_contain_text("DNS Server")
    expect(page.locator("#topology-note")).to_contain_text("5 of 5 hosts")


def test_locality_column_filter_and_host_page(web, captures):
    """Issue 11 item 2: where each host sits, in the inventory (a column and a filter) and on
    its page with the reason (demo_all_rules.pcap, /work/shared/captures/LABELS.md)."""
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / "demo_all_rules.pcap")
    page = pages.open(f"/captures/{cid}?per_page=100")
    rows = page.locator("#hosts tbody tr")

    def row(ip):
        return rows.filter(has=page.get_by_role("link", name=ip, exact=True))
    expect(row("91.108.8.1").locator("td.locality")).to_have_text("remote")
    expect(row("192.168.1.1").locator("td.locality")).to_have_text("on-link")
    expect(row("192.168.1.75").locator("td.locality")).to_have_text("on-link")
    expect(row("192.168.1.1").locator("td.locality span")).to_have_attribute(
        "title", re.compile("owns 10:13:31:f1:39:76"))

    page.get_by_label("Locality").select_option("remote")
    expect(page.locator("#hosts-summary")).to_contain_text("(filtered from")
    expect(row("192.168.1.1")).to_have_count(0)
    expect(row("91.108.8.1")).to_have_count(1)
    assert set(rows.locator("td.locality").all_inner_texts()) == {"remote"}
    assert "locality=remote" in page.url  # the view is in the address
    page.reload()
    expect(page.get_by_label("Locality")).to_have_value("remote")
    assert set(rows.locator("td.locality").all_inner_texts()) == {"remote"}

    host = pages.open(f"/captures/{cid}/hosts/91.108.8.1")
    expect(host.locator("#host-locality")).to_have_text(
        "remote: a public address 13 hops away, seen through 10:13:31:f1:39:76, a router's MAC")
    host = pages.open(f"/captures/{cid}/hosts/192.168.1.75")
    expect(host.locator("#host-locality")).to_contain_text("on-link: 192.168.1.75 owns 8c:fe:57:23:37:e4 (")


def test_the_ui_names_no_question():
    """Panels, columns and counts come from the registry: no template or module of the web UI
    names a question."""
    web = Path(__file__).resolve().parents[2] / "src" / "tracepcap" / "present" / "web"
    sources = [p for p in web.rglob("*") if p.suffix in (".html", ".py", ".js", ".css") and "vendor" not in p.parts]
    assert any(p.name == "_panel.html" for p in sources)
    for adj in get_registry():
        for path in sources:
            text = path.read_text()
            named = re.search(rf"(?<![\w-]){re.escape(adj.question)}(?![\w-])", text)  # not fact kinds
            assert not named, f"{path.name} names {adj.question}"
            assert f">{adj.title}<" not in text and f'"{adj.title}"' not in text, f"{path.name} names {adj.title}"


def test_stale_answer_in_its_panel(many):
    _api, pages = many
    page = pages.open(f"/captures/{CID}/hosts/{_ip(2)}")
    identity = page.locator("section.panel[data-question='host-identity']")
    expect(identity.locator(".badge")).to_have_text("Switch")
    expect(identity.locator(".badge-line .pill-stale")).to_have_text("stale")
    expect(identity.locator(".note-stale")).to_contain_text("stale: the facts beneath this answer moved")
    expect(identity.locator(".trail-item").first.locator(".trail-action")).to_have_text("override.stale")
    expect(identity.locator(".trail-item").first.locator(".trail-who")).to_have_text("unattributed")


def test_partly_read_capture_calls_out_its_manifest(web, captures, tmp_path):
    api, pages = web
    cut = tmp_path / "cut.pcap"
    cut.write_bytes((captures / "dns_demo.pcap").read_bytes()[:-20])  # the last record cut short
    with api.client() as client:
        response = api.upload(client, cut)
        cid = response.json()["id"]
        assert api.wait(client, cid)["status"] == "partial"
    page = pages.open(f"/captures/{cid}")
    expect(page.locator(".title-row .status").first).to_have_text("partial")
    callout = page.locator(".alert-warn")
    expect(callout).to_contain_text("Not everything was read.")
    expect(callout).to_contain_text("reader")
    expect(page.locator("#manifest-title ~ table .row-problem").first).to_contain_text("reader")
