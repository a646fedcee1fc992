"""What a browser must not be tricked into: every request, API and web UI alike, passes here.

* **Host.** A request whose `Host` is not one of `TRACEPCAP_ALLOWED_HOSTS` is answered 400: a
  page on another site whose name was re-pointed at this server (DNS rebinding) is refused
  before any route runs, reads included.
* **Cross-site writes (CSRF).** With auth off (the default) a browser needs no credential to
  write, so a page on any site could make it post a form here. A write (POST, PUT, PATCH,
  DELETE) without a bearer token must show that this server's own pages, or a client that is
  no browser, sent it: an `Origin` (else `Referer`) naming another server is refused, so is a
  `Sec-Fetch-Site` other than same-origin, and the request must carry the `X-TracePcap-Request`
  header (our scripts send it on every request; a cross-site page can send it only after a
  CORS preflight this server never grants) unless the browser itself marked it same-origin.
  Refused with 403 and a message. A bearer-token request is exempt: a browser never attaches
  a token on its own.
* **Headers on every answer.** A Content-Security-Policy that runs scripts from this server
  only (the templates hold no inline script or handler) and forbids framing, plus
  `X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...settings import Settings
from .errors import error_response

CLIENT_HEADER = "X-TracePcap-Request"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
# cytoscape.js adds one <style> of its own (".__________cytoscape_container { position:
# relative; }"); this is its hash, so no other inline style is allowed
CYTOSCAPE_STYLE = "'sha256-pgvDUBa4IjFA2yuSJ2cqcyxmNYJMborsd0ORcRv9vw8='"
# the interactive API docs (Swagger UI, served by the app itself: present/api/docs.py) start
# with an inline script; that page shows no stored data


def host_name(host: str) -> str:
    """The name in a Host header or URL netloc, without port or IPv6 brackets, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _policies(settings: Settings) -> tuple[str, str]:
    """The Content-Security-Policy of every answer, and of the API docs page."""
    connect = "'self'"
    if settings.auth == "oidc" and settings.oidc_issuer:  # auth.js talks to the issuer
        issuer = urlsplit(settings.oidc_issuer)
        connect += f" {issuer.scheme}://{issuer.netloc}"
    common = "base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'"
    app = (f"default-src 'self'; script-src 'self'; style-src 'self' {CYTOSCAPE_STYLE}; "
           f"img-src 'self' data:; connect-src {connect}; {common}")
    docs = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self'; "
            f"img-src 'self' data:; connect-src 'self'; {common}")
    return app, docs


class RequestGuard:
    """ASGI middleware: refuses foreign hosts and cross-site writes, adds the security headers."""

    def __init__(self, app: ASGIApp, settings: Settings, docs_paths: tuple[str, ...] = ()) -> None:
        self.app = app
        self.allowed_hosts = frozenset(settings.allowed_hosts)
        self.docs_paths = docs_paths
        self.policy, self.docs_policy = _policies(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = self.docs_policy if scope["path"] in self.docs_paths else self.policy
        security = [(b"content-security-policy", policy.encode()), (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"), (b"x-frame-options", b"DENY")]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *security]
            await send(message)

        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if host_name(host) not in self.allowed_hosts:
            refusal = error_response(
                400, "host_not_allowed",
                f"this server does not answer to the host {host_name(host) or '(none)'!r}; allowed: "
                f"{', '.join(sorted(self.allowed_hosts))} (add a name with TRACEPCAP_ALLOWED_HOSTS)")
            await refusal(scope, receive, send_with_headers)
            return
        if scope["method"] not in SAFE_METHODS and "authorization" not in headers \
                and (reason := cross_site(headers, host)):
            refusal = error_response(403, "cross_site_request",
                                     f"refused {scope['method']} {scope['path']}: {reason}")
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def cross_site(headers: Headers, host: str) -> str | None:
    """Why a credential-less write may have come from another site's page; None when it did not."""
    source = headers.get("origin") or headers.get("referer")
    if source is not None and urlsplit(source).netloc.lower() != host.lower():
        which = "Origin" if headers.get("origin") else "Referer"
        return f"it comes from another site ({which} {source!r}, this server is {host!r})"
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site != "same-origin":
        return f"the browser marked it as sent by a page of another site (Sec-Fetch-Site: {fetch_site})"
    if fetch_site is None and not headers.get(CLIENT_HEADER):
        return (f"a write must carry the {CLIENT_HEADER} header (any value) or a bearer token, "
                "which a page on another site cannot send")
    return None
