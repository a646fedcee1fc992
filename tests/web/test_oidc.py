"""With TRACEPCAP_AUTH=oidc the browser logs in through the issuer (authorization code with
PKCE), shows who is logged in, sends its token on every request, logs out, and shows write
controls to analysts only; the server refuses a viewer's write regardless."""

from __future__ import annotations

import re

import httpx
from web_helpers import DNS_DEMO, DNS_SERVER, panel
from playwright.sync_api import expect

from tracepcap.store.models import AuditEvent


def sign_in(pages, issuer, user: str, roles: tuple[str, ...], path: str = "/"):
    issuer.sign_in_as(user, roles)
    page = pages.open(path)
    expect(page.locator("#content")).to_contain_text("Log in")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who-name")).to_have_text(re.compile(rf"^{user} \("))
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))  # back where the login started
    return page


def test_login_write_controls_per_role_and_logout(oidc_web, captures):
    api, pages, issuer = oidc_web()

    # alice, an analyst, uploads in the browser with her token
    page = sign_in(pages, issuer, "alice", ("analyst",))
    expect(page.locator("#who-name")).to_have_text("alice (analyst, viewer)")
    assert issuer.hits["/realms/tracepcap/protocol/openid-connect/token"] == 1
    page.set_input_files("#upload-file", str(captures / DNS_DEMO))
    opened = page.locator(".upload-row").get_by_role("link", name=f"Open {DNS_DEMO}")
    expect(opened).to_be_visible(timeout=60_000)
    expect(page.locator("#capture-list tbody tr", has_text=DNS_DEMO)).to_contain_text("alice")
    opened.click()
    page.get_by_role("tab", name="Topology").click()
    expect(page.locator("#topology-legend")).to_contain_text("DNS Server")  # fetched with her token too
    page.get_by_role("tab", name=re.compile("^Hosts")).click()
    page.locator("#hosts").get_by_role("link", name=DNS_SERVER, exact=True).click()
    identity = panel(page, "host-identity")
    identity.get_by_text("Add evidence…").click()
    identity.get_by_label("Evidence for").select_option("DNS Server")
    identity.get_by_label("Reason (required)").fill("the DHCP scope hands out this resolver")
    identity.get_by_role("button", name="Add evidence").click()
    expect(identity.locator(".reason-analyst")).to_contain_text("analyst-provided · alice")
    expect(identity.locator(".trail-item .trail-who")).to_have_text(["alice"])
    expect(identity.locator(".evidence-item").get_by_role("button", name="delete")).to_be_visible()
    host_path = page.url.split(api.url, 1)[1]

    # bob, another analyst, may act but not on alice's evidence
    bob = sign_in(pages, issuer, "bob", ("analyst",), host_path)
    identity = panel(bob, "host-identity")
    expect(identity.locator(".evidence-item")).to_contain_text("alice")
    expect(identity.locator(".evidence-item").get_by_role("button", name="delete")).to_have_count(0)
    expect(identity.locator(".evidence-item").get_by_text("edit")).to_have_count(0)
    expect(identity.get_by_text("I disagree…")).to_be_visible()

    # carol, a viewer, reads everything and sees no write control
    carol = sign_in(pages, issuer, "carol", ("viewer",), host_path)
    expect(carol.locator("#who-name")).to_have_text("carol (viewer)")
    expect(panel(carol, "host-identity").locator(".reason-analyst")).to_contain_text("alice")
    for control in ("I disagree…", "Add evidence…", "not this…"):
        expect(carol.get_by_text(control)).to_have_count(0)
    expect(carol.locator(".panel form, .panel button:not(.copy-filter)")).to_have_count(0)  # copying a filter writes nothing
    carol.goto("/")
    expect(carol.locator("#capture-list")).to_contain_text(DNS_DEMO)
    expect(carol.locator("#dropzone")).to_have_count(0)

    # the server refuses her write regardless of what the page shows
    token = issuer.token("carol", ("viewer",))
    cid = host_path.split("/")[2]
    refused = httpx.put(f"{api.url}/ui/captures/{cid}/hosts/{DNS_SERVER}/panels/host-identity/override",
                        data={"label": "Router", "rationale": "x"}, headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 403 and "the analyst role is required" in refused.json()["error"]["message"]
    anonymous = httpx.get(f"{api.url}/ui/captures/{cid}/hosts/{DNS_SERVER}")
    assert anonymous.status_code == 401
    with api.db.session() as s:
        denied = s.query(AuditEvent).filter_by(action="access.denied").one()
        assert (denied.actor, denied.question, denied.entity_key) == ("carol", "host-identity", DNS_SERVER)

    # logging out forgets the token
    carol.get_by_role("button", name="Log out").click()
    expect(carol.get_by_role("button", name="Log in")).to_be_visible()
    expect(carol.locator("#content")).to_contain_text("Log in to see the captures.")
    assert carol.evaluate("() => sessionStorage.getItem('tracepcap.auth')") is None
