"""/api/docs works with no network beyond the server: Swagger UI is served by the app."""

from __future__ import annotations

from playwright.sync_api import expect


def test_api_docs_render_with_the_network_blocked(web):
    _, pages = web
    page = pages.new()
    leaving: list[str] = []

    def only_the_server(route):
        if route.request.url.startswith(pages.url):
            route.continue_()
        else:
            leaving.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_server)
    page.goto("/api/docs")
    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible()
    assert operations.count() > 20  # every route of the API, not an empty shell
    expect(page.locator(".opblock-summary-path", has_text="/api/captures/{cid}/hosts").first).to_be_visible()
    assert leaving == []
