#!/usr/bin/env python3
"""Screenshots of the web UI at 1366x768, for a reviewer who does not want to run a browser.

Starts the app (API and web UI, auth off) on a loopback port with a fresh SQLite store,
uploads ../shared/captures/dns_demo.pcap through the API, records a few human actions so the
pages show each state (a contested answer, analyst evidence, a dismissal; an accepted
suggestion on the second DNS address), then writes PNGs with Debian's chromium:

    screenshots/captures.png       the captures page
    screenshots/capture.png        the capture page (first screen) and capture-full.png (whole page)
    screenshots/host.png           the DNS server's host page (first screen) and host-full.png
    screenshots/host-forms.png     its first panel with the "I disagree" and "Add evidence" forms open
    screenshots/host-focus.png     the same page with keyboard focus on a control (Tab)
    screenshots/topology.png       the topology of a 1,000-host capture (`tracepcap.testing.campus`):
                                   subnets grouped, the remote hosts aggregated by prefix
    screenshots/topology-open.png  the same after selecting a remote group (opened host by host)
    screenshots/topology-full.png  the same in full screen, filtered to one answer
    screenshots/audit.png          the capture's audit log (the actions above)
    screenshots/accepted.png       192.168.1.53's Device type panel after its role was accepted:
                                   the accept shows on that panel's trail
    screenshots/findings.png       a synthetic ARP-spoofing capture with 40 CDN names shared by
                                   certificate: the findings banner and the table's markers
    screenshots/spoofer.png        the spoofer's host page with the findings naming it
    screenshots/frame.png          the packet view of frame 2 (layers, hex dump) and frame-full.png
    screenshots/export.png         the capture page's export buttons (JSON, CSV) and audit link;
                                   both downloads are fetched and checked to be JSON and CSV
    screenshots/networks.png       the networks list, and network.png: a network of the two
                                   captures (timeline, presence grid, inventory)
    screenshots/search.png         the search over every capture ("dns": answers in both)

(findings and spoofer from `tracepcap.testing.findings`, uploaded beside the capture).

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--capture FILE]

It also checks what a picture cannot prove: every control has a label, no page scrolls
sideways at 1366 px, and the focused control draws an outline. It exits 1 when one fails.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from playwright.sync_api import sync_playwright

from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import adjudicate_capture
from tracepcap.present.api.request_guard import CLIENT_HEADER
from tracepcap.present.app import create_app
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.testing import campus
from tracepcap.testing import findings as finding_shapes

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT.parent / "shared" / "captures" / "dns_demo.pcap"
HOST = "192.168.1.1"  # the DNS server of dns_demo.pcap
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1366, "height": 768}

UNLABELLED = """() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
  .filter(el => el.offsetParent !== null || el.type === 'file')
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                && !(el.tagName === 'BUTTON' && el.textContent.trim()))
  .map(el => el.outerHTML.slice(0, 120))"""
SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"
FOCUS = """() => { const s = getComputedStyle(document.activeElement);
  return {tag: document.activeElement.tagName, text: document.activeElement.textContent.trim().slice(0, 40),
          outline: s.outlineStyle + ' ' + s.outlineWidth}; }"""


def serve(app) -> tuple[str, uvicorn.Server, threading.Thread]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server, thread


def analyzed(api: httpx.Client, capture: Path) -> str:
    """Upload and analyze the capture; its id."""
    with open(capture, "rb") as f:
        response = api.post("/captures", files={"file": (capture.name, f)})
    response.raise_for_status()
    cid = response.json()["id"]
    while (status := api.get(f"/captures/{cid}").json()["status"]) not in ("done", "partial", "failed"):
        time.sleep(0.1)
    if status == "failed":
        sys.exit(f"the analysis of {capture} failed")
    return cid


def prepare(api: httpx.Client, capture: Path) -> str:
    """Upload and analyze the capture; record the human actions the pictures show."""
    cid = analyzed(api, capture)
    key = f"/captures/{cid}/adjudications"
    for method, path, body in (
            ("POST", f"{key}/host-identity/{HOST}/evidence",
             {"label": "Router", "weight": 45, "reason": "it forwards for the lab VLAN"}),
            ("POST", f"{key}/host-identity/{HOST}/dismissals",
             {"label": "Workstation", "reason": "it sits in the server rack"}),
            ("POST", f"{key}/node-role/192.168.1.53/accept", None)):
        api.request(method, path, json=body).raise_for_status()
    return cid


GRAPH = "() => document.getElementById('topology').tpGraph"


def export_shot(page, out: Path, problems: list[str]) -> None:
    """The export buttons (the capture page's title row), and what each one downloads."""
    actions = page.locator(".page-actions")
    actions.get_by_role("link", name="Export CSV", exact=True).hover()
    page.locator(".title-row").first.screenshot(path=out / "export.png")
    for name, kind, starts in (("Export JSON", "json", "{"), ("Export CSV", "csv", "capture_id,key,ip,"),
                               ("Export CSV (long)", "long csv", "capture_id,ip,")):
        with page.expect_download() as got:
            actions.get_by_role("link", name=name, exact=True).click()
        body = Path(got.value.path()).read_text(encoding="utf-8")
        if not body.startswith(starts):
            problems.append(f"export: the {kind} download starts {body[:40]!r}")


def topology_shots(page, out: Path, problems: list[str]) -> None:
    """The 1,000-host capture's topology: grouped, a remote group opened, full screen."""
    page.goto(f"/captures/{campus.CID}")
    page.get_by_role("tab", name="Topology").click()  # the capture page's tab: drawn when shown
    page.wait_for_function(f"() => ({GRAPH})() && !document.getElementById('topology').hasAttribute('aria-busy')")
    card = page.locator(".topology-card")
    card.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    card.screenshot(path=out / "topology.png")
    group = "g:remote:52.0.0.0/16"
    box = page.locator("#topology").bounding_box()
    at = page.evaluate(f"(id) => ({GRAPH})().$id(id).renderedPosition()", group)
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
    try:
        page.wait_for_function(f"(id) => ({GRAPH})().$id(id).data('kind') === 'group'", arg=group, timeout=20_000)
    except Exception:  # noqa: BLE001 (reported, not raised: the other pictures are still worth having)
        problems.append("topology: selecting a closed remote group did not open it")
    page.wait_for_timeout(300)
    card.screenshot(path=out / "topology-open.png")
    page.get_by_role("button", name="Full screen").click()
    page.locator("#topology-only").select_option("Printer")
    page.wait_for_function(f"() => ({GRAPH})().nodes(\"[kind = 'host']\").every(n => n.data('answer') === 'Printer')")
    page.wait_for_timeout(300)
    page.screenshot(path=out / "topology-full.png")
    if unlabelled := page.evaluate(UNLABELLED):
        problems.append(f"topology: controls without a label: {unlabelled}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--capture", type=Path, default=DEMO)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), database_url=f"sqlite:///{Path(tmp) / 'ui.sqlite3'}", auth="off")
        url, server, thread = serve(create_app(settings))
        store = open_database(settings.database_url)
        campus.store(store)
        adjudicate_capture(store, get_registry(), campus.CID)
        store.dispose()
        try:
            with httpx.Client(base_url=f"{url}/api", timeout=60, headers={CLIENT_HEADER: "1"}) as api:
                cid = prepare(api, args.capture)
                spoofed = analyzed(api, finding_shapes.build(Path(tmp) / "arp-spoofing.pcap", shared_names=40))
                nid = api.post("/networks", json={"name": "lab"}).raise_for_status().json()["id"]
                for capture_id in (cid, spoofed):
                    api.post(f"/networks/{nid}/captures", json={"capture_id": capture_id}).raise_for_status()
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=VIEWPORT, base_url=url)
                page.on("pageerror", lambda err: problems.append(f"script error: {err}"))
                for name, path in (("captures", "/"), ("capture", f"/captures/{cid}"),
                                   ("frame", f"/captures/{cid}/frames/2"),
                                   ("audit", f"/captures/{cid}/audit"),
                                   ("findings", f"/captures/{spoofed}"),
                                   ("spoofer", f"/captures/{spoofed}/hosts/{finding_shapes.SPOOFER[0]}"),
                                   ("networks", "/networks"), ("network", f"/networks/{nid}"),
                                   ("search", "/search?q=dns"),
                                   ("host", f"/captures/{cid}/hosts/{HOST}")):
                    page.goto(path)
                    page.wait_for_load_state("networkidle")
                    page.wait_for_timeout(300)  # the topology's layout
                    page.screenshot(path=args.out / f"{name}.png")
                    if name not in ("captures", "audit", "spoofer", "networks", "search"):
                        page.screenshot(path=args.out / f"{name}-full.png", full_page=True)
                    if unlabelled := page.evaluate(UNLABELLED):
                        problems.append(f"{name}: controls without a label: {unlabelled}")
                    if (overflow := page.evaluate(SIDEWAYS)) > 0:
                        problems.append(f"{name}: scrolls sideways by {overflow} px at 1366")
                    if name == "capture":
                        export_shot(page, args.out, problems)
                # the first panel with its forms open: every control of them labelled too
                first = page.locator("section.panel").first
                for summary in ("I disagree…", "Add evidence…"):
                    first.get_by_text(summary).click()
                first.get_by_label("Evidence for").select_option(index=1)
                first.locator(".actions").scroll_into_view_if_needed()
                page.screenshot(path=args.out / "host-forms.png")
                if unlabelled := page.evaluate(UNLABELLED):
                    problems.append(f"host forms: controls without a label: {unlabelled}")
                page.goto(f"/captures/{cid}/hosts/192.168.1.53")  # its role was accepted
                page.locator("section.panel[data-question='host-identity']").scroll_into_view_if_needed()
                page.screenshot(path=args.out / "accepted.png")
                page.goto(f"/captures/{cid}/hosts/{HOST}")
                for _ in range(60):  # tab through the page to the first "I disagree…"
                    page.keyboard.press("Tab")
                    if (focus := page.evaluate(FOCUS))["text"].startswith("I disagree"):
                        break
                page.evaluate("() => document.activeElement.scrollIntoView({block: 'center'})")
                if not focus["outline"].startswith("solid") or focus["outline"].endswith(" 0px"):
                    problems.append(f"focus is not visible: {focus}")
                page.screenshot(path=args.out / "host-focus.png")
                topology_shots(page, args.out, problems)
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)
    for png in sorted(args.out.glob("*.png")):
        print(png.relative_to(ROOT) if png.is_relative_to(ROOT) else png)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
