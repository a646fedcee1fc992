"""Fixtures of the browser tests: Chromium, a running app (API and web UI) on SQLite and on
PostgreSQL, dns_demo.pcap analyzed, and the app with OIDC on (see `web_helpers`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright
from web_helpers import CHROMIUM, CHROMIUM_ARGS, DNS_DEMO, Api, Pages, oidc_issuer, serving

from tracepcap.present.app import create_app
from tracepcap.settings import Settings


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).is_file(), (
        f"the browser tests need Chromium at {CHROMIUM} (Debian: apt-get install chromium; "
        "./scripts/test installs it when run as root)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def web(settings, db, browser) -> Iterator[tuple[Api, Pages]]:
    """A running app (API and web UI, auth off) and browser pages on it."""
    with ExitStack() as stack:
        url = stack.enter_context(serving(create_app(settings, db=db)))
        pages = Pages(browser, url)
        stack.callback(pages.close)
        yield Api(url, settings, db), pages
        assert not pages.errors, f"script errors in the page: {pages.errors}"


@pytest.fixture
def analyzed(web, captures) -> tuple[Api, Pages, str]:
    """dns_demo.pcap uploaded and analyzed through the API; (api, pages, capture id)."""
    api, pages = web
    with api.client() as client:
        cid = api.analyzed(client, captures / DNS_DEMO)
    return api, pages, cid


@pytest.fixture
def oidc_web(tmp_path, settings, db, browser):
    """start(**issuer_users) -> (api, pages, issuer): the app with auth on, trusting a loopback
    issuer whose login page signs in whoever the test names."""
    with ExitStack() as stack:
        issuer = stack.enter_context(oidc_issuer.Issuer())

        def start() -> tuple[Api, Pages, object]:
            configured = Settings(**{**settings.model_dump(), "auth": "oidc", "oidc_issuer": issuer.url,
                                     "oidc_audience": oidc_issuer.AUDIENCE})
            url = stack.enter_context(serving(create_app(configured, db=db)))
            pages = Pages(browser, url)
            stack.callback(pages.close)
            started.append(pages)
            return Api(url, configured, db), pages, issuer
        started: list[Pages] = []
        yield start
        assert not [e for p in started for e in p.errors], "script errors in the page"
