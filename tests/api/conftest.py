"""The API over real HTTP: the app runs under uvicorn on a loopback port (one server per test,
on SQLite and on PostgreSQL through the shared `settings`/`db` fixtures); httpx is the client.
Auth tests add a real OIDC issuer on loopback (`oidc_issuer.Issuer`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest
from api_helpers import DNS_DEMO, Api, serving
from oidc_issuer import AUDIENCE, Issuer

from tracepcap.present.app import create_app
from tracepcap.settings import Settings


@pytest.fixture
def serve(settings, db):
    """serve(registry=None, **settings_overrides) -> Api: a running server; stopped after the test."""
    with ExitStack() as stack:
        def start(registry=None, **overrides) -> Api:
            configured = Settings(**{**settings.model_dump(), **overrides}) if overrides else settings
            url = stack.enter_context(serving(create_app(configured, db=db, registry=registry)))
            return Api(url, configured, db)
        yield start


@pytest.fixture
def api(serve) -> Api:
    return serve()


@pytest.fixture
def client(api) -> Iterator[httpx.Client]:
    with api.client() as c:
        yield c


@pytest.fixture
def dns_capture(api, client, captures) -> str:
    """dns_demo.pcap uploaded and analyzed through the API; its id."""
    return api.analyzed(client, captures / DNS_DEMO)


@pytest.fixture(scope="session")
def issuer() -> Iterator[Issuer]:
    with Issuer() as running:
        yield running


@pytest.fixture
def oidc(serve, issuer) -> Api:
    """A server with auth on, trusting `issuer`."""
    return serve(auth="oidc", oidc_issuer=issuer.url, oidc_audience=AUDIENCE,
                 oidc_jwks_min_refresh_seconds=60)
