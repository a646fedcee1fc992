"""What a page on another site could make a browser do (issue 17, item 8): writes forged by
another site's page are refused with 403 (auth off, the default: the browser needs no
credential), a Host the server does not answer to is refused with 400 (DNS rebinding), every
answer carries the CSP / framing / nosniff headers, and one click on "It is X" only settles a
contested verdict with one of its candidates."""

from __future__ import annotations

import httpx
import pytest
from api_helpers import DNS_DEMO, DNS_SERVER, assert_error
from oidc_issuer import AUDIENCE

from tracepcap.store.models import AuditEvent, Capture, Dismissal, HumanOverride

PANEL = "/ui/captures/{cid}/hosts/" + DNS_SERVER + "/panels/host-identity"
EVIL = "http://evil.example"
#: the first page, host view and OpenAPI schema of a new server are built on their first request
#: (templates, lazily imported readers, the schema): httpx's default 5 s is too short on a busy machine
SLOW_PAGE_SECONDS = 60


def _panel(api, cid: str) -> str:
    return api.url + PANEL.format(cid=cid)


def _dismissal_form() -> dict:
    return {"label": "Router", "reason": "planted by another site"}


def _nothing_written(api) -> None:
    with api.db.session() as s:
        assert s.query(Dismissal).count() == 0 and s.query(HumanOverride).count() == 0
        assert s.query(AuditEvent).count() == 0


@pytest.mark.parametrize("headers, said", [
    ({"Origin": EVIL}, "it comes from another site (Origin 'http://evil.example'"),
    ({"Origin": "null"}, "it comes from another site (Origin 'null'"),
    ({"Referer": EVIL + "/attack.html"}, "it comes from another site (Referer 'http://evil.example/attack.html'"),
    ({"Sec-Fetch-Site": "cross-site"}, "marked it as sent by a page of another site (Sec-Fetch-Site: cross-site)"),
    ({"Sec-Fetch-Site": "same-site"}, "Sec-Fetch-Site: same-site"),  # another port of this machine
    ({}, "a write must carry the X-TracePcap-Request header"),  # a browser that sent no Origin
])
def test_a_form_posted_by_another_sites_page_is_refused(api, dns_capture, headers, said):
    """What the red team's page did: a plain form post (no custom header) to a panel action."""
    response = httpx.post(_panel(api, dns_capture) + "/dismissals", data=_dismissal_form(), headers=headers)
    assert_error(response, 403, "cross_site_request", f"refused POST {PANEL.format(cid=dns_capture)}"
                         "/dismissals", said)
    assert response.headers["content-security-policy"]  # a refusal carries the headers too
    _nothing_written(api)


def test_cross_site_writes_are_refused_on_every_state_changing_route(api, client, dns_capture, captures):
    forged = {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"}
    api_key = f"{api.url}/api/captures/{dns_capture}/adjudications/host-identity/{DNS_SERVER}"
    with open(captures / DNS_DEMO, "rb") as f:
        upload = httpx.post(f"{api.url}/api/captures", files={"file": ("planted.pcap", f)}, headers=forged)
    assert_error(upload, 403, "cross_site_request", "another site")
    for method, url, body in [
        ("PUT", _panel(api, dns_capture) + "/override", {"label": "Router", "rationale": "x"}),
        ("POST", _panel(api, dns_capture) + "/resolve", {"label": "Router"}),
        ("POST", _panel(api, dns_capture) + "/evidence", {"label": "Router", "weight": "90", "reason": "x"}),
        ("DELETE", _panel(api, dns_capture) + "/override", None),
        ("POST", api_key + "/evidence", None),
        ("PUT", api_key + "/override", None),
        ("DELETE", f"{api.url}/api/captures/{dns_capture}", None),
    ]:
        response = httpx.request(method, url, data=body, headers=forged)
        assert_error(response, 403, "cross_site_request", f"refused {method} ")
    _nothing_written(api)
    with api.db.session() as s:
        assert [c.name for c in s.query(Capture)] == [DNS_DEMO]


def test_the_pages_own_htmx_post_is_accepted(api, dns_capture):
    """What the browser sends for a click in the panel: same origin, marked by the browser and
    by auth.js."""
    url = _panel(api, dns_capture) + "/dismissals"
    own = {"Origin": api.url, "Referer": f"{api.url}/captures/{dns_capture}/hosts/{DNS_SERVER}",
           "HX-Request": "true", "X-TracePcap-Request": "1", "Sec-Fetch-Site": "same-origin"}
    response = httpx.post(url, data=_dismissal_form(), headers=own)
    assert response.status_code == 200, response.text
    assert "dismissed by" in response.text
    # a browser that marks the request same-origin needs no custom header (the API docs page)
    response = httpx.delete(url, params={"label": "Router"}, headers={"Origin": api.url, "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200, response.text
    with api.db.session() as s:
        assert [e.action for e in s.query(AuditEvent).order_by(AuditEvent.id)] == ["dismissal.added",
                                                                                   "dismissal.removed"]


def test_a_bearer_token_request_needs_no_proof_of_origin(serve, issuer):
    """A browser never attaches a token by itself, so a request with one cannot be forged by
    another site's page: scripts with tokens need no extra header."""
    api = serve(auth="oidc", oidc_issuer=issuer.url, oidc_audience=AUDIENCE)
    token = issuer.token("alice", ("analyst",))
    response = httpx.post(f"{api.url}/api/captures", headers={"Authorization": f"Bearer {token}"},
                          files={"file": ("x.pcap", b"not a capture at all, but long enough to be sniffed")})
    assert_error(response, 415)  # past the guard: the upload itself is judged
    csp = response.headers["content-security-policy"]
    issuer_origin = issuer.url.split("/realms/")[0]
    assert f"connect-src 'self' {issuer_origin};" in csp  # auth.js fetches the issuer's endpoints


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""])
def test_a_host_the_server_does_not_answer_to_is_refused(api, dns_capture, host):
    """DNS rebinding: a page on evil.example re-pointed at 127.0.0.1 sends `Host: evil.example`.
    Reads are refused as well as writes."""
    for path in ("/", f"/api/captures/{dns_capture}", f"/captures/{dns_capture}/hosts/{DNS_SERVER}"):
        response = httpx.get(api.url + path, headers={"Host": host})
        error = assert_error(response, 400, "host_not_allowed", "this server does not answer to the host",
                             "TRACEPCAP_ALLOWED_HOSTS")
        assert "allowed: 127.0.0.1, ::1, localhost" in error["message"]
        assert dns_capture not in response.text


def test_allowed_hosts_are_configurable(serve):
    api = serve(allowed_hosts="tracepcap.example.org, [::1]")
    port = api.url.rsplit(":", 1)[1]
    assert api.settings.allowed_hosts == ["tracepcap.example.org", "::1"]
    ok = httpx.get(f"{api.url}/api/health", headers={"Host": f"TracePcap.example.org:{port}"})
    assert ok.status_code == 200, ok.text
    assert httpx.get(f"{api.url}/api/health", headers={"Host": f"[::1]:{port}"}).status_code == 200
    assert_error(httpx.get(f"{api.url}/api/health"), 400, "host_not_allowed", "'127.0.0.1'",
                 "allowed: ::1, tracepcap.example.org")


def test_default_hosts_are_this_machines_names(api):
    port = api.url.rsplit(":", 1)[1]
    for host in ("localhost", f"localhost:{port}", "127.0.0.1", f"[::1]:{port}"):
        assert httpx.get(f"{api.url}/api/health", headers={"Host": host}).status_code == 200, host


def test_every_answer_carries_the_security_headers(api, dns_capture):
    for path in ("/", f"/captures/{dns_capture}/hosts/{DNS_SERVER}", "/static/app.js",
                 f"/api/captures/{dns_capture}", "/api/no-such-route", "/api/openapi.json"):
        response = httpx.get(api.url + path, timeout=SLOW_PAGE_SECONDS)
        assert response.status_code in (200, 404), path
        headers = response.headers
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["referrer-policy"] == "same-origin", path
        assert headers["x-frame-options"] == "DENY", path
        csp = dict(d.strip().split(" ", 1) for d in headers["content-security-policy"].split(";"))
        assert csp["script-src"] == "'self'" and csp["frame-ancestors"] == "'none'", path
        assert csp["connect-src"] == "'self'" and csp["object-src"] == "'none'", path
        assert "unsafe-inline" not in csp["style-src"], path
    docs = httpx.get(api.url + "/api/docs", timeout=SLOW_PAGE_SECONDS).headers["content-security-policy"]
    assert "frame-ancestors 'none'" in docs and "'unsafe-inline'" in docs  # Swagger UI's own page
    assert "https:" not in docs  # served by the app itself: nothing from a CDN


def _contest(api, client, cid: str) -> None:
    """dns_demo's DNS server made contested: DNS Server (60) against Router (55)."""
    response = client.post(f"/captures/{cid}/adjudications/host-identity/{DNS_SERVER}/evidence",
                           json={"label": "Router", "weight": 45, "reason": "it forwards for the lab VLAN"})
    assert response.status_code == 201 and response.json()["verdict"]["contested"], response.text


def _resolve(api, cid: str, label: str) -> httpx.Response:
    return httpx.post(_panel(api, cid) + "/resolve", data={"label": label},
                      headers={"X-TracePcap-Request": "1", "HX-Request": "true"})


def test_resolve_takes_only_a_contested_candidate(api, client, dns_capture):
    # not contested: nothing to choose among
    refused = _resolve(api, dns_capture, "DNS Server")
    assert refused.status_code == 422 and "host-identity for mac-52-54-00-aa-00-01 is not contested" in refused.text
    _contest(api, client, dns_capture)

    # a label that is no candidate: refused, in the panel, nothing stored
    for label in ("Printer", "", "dns server"):
        refused = _resolve(api, dns_capture, label)
        assert refused.status_code == 422, refused.text
        assert refused.headers["x-tracepcap-panel"] == "host-identity"
        assert "is not one of the contested candidates of host-identity for mac-52-54-00-aa-00-01" in refused.text
    with api.db.session() as s:
        assert s.query(HumanOverride).count() == 0

    chosen = _resolve(api, dns_capture, "Router")
    assert chosen.status_code == 200, chosen.text
    with api.db.session() as s:
        override = s.query(HumanOverride).one()
        assert (override.label, override.rationale) == ("Router", "chose Router among the contested candidates")
