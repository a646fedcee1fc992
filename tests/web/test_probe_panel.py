"""A question added on the server side only (a plugin module in the test suite, registered
through the `tracepcap.questions` entry point) gets its panel on the host page, in the order
`/api/questions` gives, and its panel works, with no template or route naming it."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from web_helpers import DNS_DEMO, Api, Pages, install_plugin, panel, serving
from playwright.sync_api import expect

from tracepcap.adjudicate.registry import get_registry
from tracepcap.present.app import create_app


@pytest.fixture
def probe_web(tmp_path, monkeypatch, settings, db, browser):
    install_plugin(tmp_path, monkeypatch, parity="probe_parity")
    with ExitStack() as stack:
        stack.callback(get_registry.cache_clear)
        url = stack.enter_context(serving(create_app(settings, db=db)))
        pages = Pages(browser, url)
        stack.callback(pages.close)
        yield Api(url, settings, db), pages
        assert not pages.errors, pages.errors


def test_probe_question_has_its_panel(probe_web, captures):
    api, pages = probe_web
    with api.client() as client:
        cid = api.analyzed(client, captures / DNS_DEMO)
        order = [q["question"] for q in client.get("/questions").json()]
    assert order[-1] == "probe-parity"

    page = pages.open(f"/captures/{cid}/hosts/192.168.1.21")
    expect(page.locator("section.panel")).to_have_count(len(order))
    assert page.locator("section.panel").evaluate_all("els => els.map(e => e.dataset.question)") == order
    probe = panel(page, "probe-parity")
    expect(probe.locator("h2")).to_have_text("Parity")
    expect(probe.locator(".badge")).to_have_text("odd")
    expect(probe.locator(".reason .reason-text")).to_have_text("address ends in 21 (+50)")
    expect(probe.locator(".reason-meta")).to_have_text("parity · MEASURED")
    expect(probe.get_by_label("It is").locator("option")).to_have_text(
        ["— choose a label —", "even", "odd", "Other…"])  # its own vocabulary

    probe.get_by_text("I disagree…").click()
    probe.get_by_label("It is").select_option("even")
    probe.get_by_label("Rationale").fill("counting from zero")
    probe.get_by_role("button", name="Save answer").click()
    expect(probe.locator(".badge")).to_have_text("even")
    expect(probe.locator(".trail-item .trail-action")).to_have_text(["override.set"])

    # and a column of its own in the inventory, titled by the question
    page.goto(f"/captures/{cid}")
    expect(page.locator("#hosts thead th").last).to_contain_text("Parity")
    expect(page.locator(".count-card", has_text="Parity")).to_contain_text("odd")
