"""Helpers of the browser tests (imported by name: every test folder has a `conftest`).

Browser tests of the web UI: the app (the API's `create_app`, web UI mounted) runs under
uvicorn on a loopback port, on SQLite and on PostgreSQL through the shared `settings`/`db`
fixtures; Playwright drives Debian's chromium (Playwright cannot download a browser here).

The server fixture and the OIDC issuer are the API tests' own (`tests/api/conftest.py`,
`tests/api/oidc_issuer.py`); a probe question comes from `tests/adjudicate/` the way the
adjudication tests install it (an entry point of a fake installed distribution).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

TESTS = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("TRACEPCAP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1366, "height": 768}
# assertions wait as long as actions do: CI's two cores are shared with the server and the
# database, and an htmx swap can take seconds there (5 s, Playwright's default, proved flaky)
expect.set_options(timeout=20_000)
DNS_DEMO = "dns_demo.pcap"
DNS_SERVER = "192.168.1.1"  # dns_demo.pcap: answers DNS on 53/udp for three clients, from frame 2
OTHER_HOST = "192.168.1.20"  # a DNS client


def _load(name: str, path: Path):
    """A helper module of another test folder, under a name of its own (no second `conftest`)."""
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


api_fixtures = _load("tracepcap_api_test_fixtures", TESTS / "api" / "conftest.py")
adjudicate_fixtures = _load("tracepcap_adjudicate_test_fixtures", TESTS / "adjudicate" / "conftest.py")
oidc_issuer = sys.modules["oidc_issuer"]  # imported by the API tests' conftest
serving, Api = api_fixtures.serving, api_fixtures.Api
install_plugin = adjudicate_fixtures.install_plugin


class Pages:
    """Browser pages on one server: `open(path)` gives a fresh page (own session storage)
    that fails the test on any uncaught script error or anything the CSP blocked."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.browser, self.url = browser, url
        self.errors: list[str] = []
        self._contexts = []

    def new(self) -> Page:
        context = self.browser.new_context(viewport=VIEWPORT, base_url=self.url)
        context.set_default_timeout(20_000)
        self._contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        page.on("console", self._policy_violation)
        return page

    def _policy_violation(self, message) -> None:
        """Chromium reports what the Content-Security-Policy blocked on the console; each is a
        broken part of the page."""
        if "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def open(self, path: str = "/") -> Page:
        page = self.new()
        page.goto(path)
        return page

    def close(self) -> None:
        for context in self._contexts:
            context.close()


def panel(page: Page, question: str):
    return page.locator(f"section.panel[data-question='{question}']")


def expect_time(item) -> None:
    """A <time> shown in the viewer's zone (absolute) with a relative form beside it."""
    time = item.locator("time.ts").first
    expect(time).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))
    expect(time).not_to_have_text(re.compile(r"^\d{4}-\d\d-\d\dT"))  # formatted, not the raw ISO
    expect(item.locator(".ts-rel").first).to_have_text(re.compile(r"\((just now|\d+ seconds? ago|now)\)"))
