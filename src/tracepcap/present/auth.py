"""Bearer tokens: verified against the OIDC issuer's keys, and nothing else.

`TokenVerifier.verify(token)` returns the claims of a token that is signed by one of the
issuer's keys (found by `kid` in its JWKS), with an allowed asymmetric algorithm, issued by
the configured issuer for the configured audience, and valid now (within a small leeway).
Everything else raises `Unauthenticated` (401, with a `WWW-Authenticate` header). Only
`CurrentActor` reads the claims.

Keys: the discovery document (`{issuer}/.well-known/openid-configuration`) is fetched once
and names the JWKS; PyJWT's `PyJWKClient` fetches and caches the JWKS (for
`oidc_jwks_cache_seconds`). A token whose `kid` is not in the cached set triggers one forced
refetch, at most once per `oidc_jwks_min_refresh_seconds`: a rotated key is picked up at
once, and a flood of made-up kids costs the issuer one request per interval. (PyJWKClient's
own cooldown counts every fetch, the first one included, so a key rotated shortly after
start-up would be refused until it ran out; the bound here counts forced refetches only.)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping

import httpx
import jwt
from jwt import PyJWK, PyJWKClient
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError, PyJWKError, PyJWKSetError

from ..errors import TracePcapError, UsageError
from ..settings import Settings

log = logging.getLogger(__name__)

#: asymmetric only: "none" and HS* (a shared secret, or a public key misused as one) never verify
ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "PS256")
REQUIRED_CLAIMS = ["exp", "iss", "aud"]
REALM = "tracepcap"
MAX_SHOWN = 40  # characters of an unverified header value (kid, alg) a message repeats
MAX_DESCRIPTION = 200  # characters of the WWW-Authenticate error_description


class Unauthenticated(UsageError):
    """No bearer token, or one that does not verify."""

    http_status = 401

    def __init__(self, message: str, *, error: str | None = "invalid_token") -> None:
        super().__init__(message)
        challenge = f'Bearer realm="{REALM}"'
        if error:  # RFC 6750 section 3: no error code when the request carried no token
            challenge += f', error="{error}", error_description="{_description(message)}"'
        self.headers = {"WWW-Authenticate": challenge}


class Forbidden(UsageError):
    """A verified actor without the role an action needs."""

    http_status = 403


class AuthUnavailable(TracePcapError):
    """The issuer's discovery document or keys cannot be fetched: no token can be checked."""

    http_status = 503


def _description(text: str) -> str:
    """RFC 6750 section 3: error_description is printable ASCII without '"' and '\\'; kept
    short, as a header must be whatever the token carried."""
    printable = "".join(c if " " <= c <= "~" and c not in '"\\' else "?" for c in text)
    return _shortened(printable, MAX_DESCRIPTION)


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit - 3]}..."


def _shown(value: object) -> str:
    """A value from an unverified token header, as a message may show it: its repr, short."""
    return _shortened(repr(value), MAX_SHOWN)


class TokenVerifier:
    """Verifies bearer tokens for one issuer and audience; safe to share between threads."""

    def __init__(self, settings: Settings) -> None:
        self.issuer = settings.oidc_issuer.rstrip("/")
        self.audience = settings.oidc_audience
        self.leeway = settings.oidc_leeway_seconds
        self.cache_seconds = settings.oidc_jwks_cache_seconds
        self.min_refresh = settings.oidc_jwks_min_refresh_seconds
        self.timeout = settings.oidc_http_timeout_seconds
        self._lock = threading.Lock()
        self._jwks: PyJWKClient | None = None
        self._last_forced = float("-inf")

    def verify(self, token: str) -> Mapping:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as err:
            raise Unauthenticated(f"malformed token: {err}") from err
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in ALGORITHMS:
            raise Unauthenticated(f"token algorithm {_shown(alg)} is not allowed; allowed: {', '.join(ALGORITHMS)}")
        if not kid or not isinstance(kid, str):
            raise Unauthenticated("token has no key id (kid)")
        key = self._key(kid)
        try:
            return jwt.decode(token, key, algorithms=list(ALGORITHMS), audience=self.audience,
                              issuer=self.issuer, leeway=self.leeway,
                              options={"require": REQUIRED_CLAIMS})
        except jwt.ExpiredSignatureError as err:
            raise Unauthenticated("token expired") from err
        except jwt.ImmatureSignatureError as err:
            raise Unauthenticated("token is not valid yet") from err
        except jwt.InvalidIssuerError as err:
            raise Unauthenticated(f"token issuer is not {self.issuer}") from err
        except jwt.InvalidAudienceError as err:
            raise Unauthenticated(f"token audience does not include {self.audience}") from err
        except jwt.InvalidTokenError as err:
            raise Unauthenticated(f"invalid token: {err}") from err

    def _key(self, kid: str) -> PyJWK:
        client = self._client()
        try:
            key = client.match_kid(client.get_signing_keys(), kid)
            if key is None and self._may_refresh():
                log.info("unknown key id %s: fetching the issuer's keys again", _shown(kid))
                key = client.match_kid(client.get_signing_keys(refresh=True), kid)
        except PyJWKClientConnectionError as err:
            raise AuthUnavailable(f"cannot fetch the signing keys of {self.issuer}: {err}") from err
        except (PyJWKClientError, PyJWKError, PyJWKSetError) as err:
            raise AuthUnavailable(f"the signing keys of {self.issuer} are unusable: {err}") from err
        if key is None:
            raise Unauthenticated(f"token key id {_shown(kid)} is not one of the issuer's keys")
        return key

    def _may_refresh(self) -> bool:
        with self._lock:
            now = time.monotonic()
            if now - self._last_forced < self.min_refresh:
                return False
            self._last_forced = now
            return True

    def _client(self) -> PyJWKClient:
        with self._lock:
            if self._jwks is None:
                jwks_uri = self._discover()
                # cooldown 0: PyJWKClient.get_signing_key is not used; _may_refresh bounds refetches
                self._jwks = PyJWKClient(jwks_uri, cache_jwk_set=True, lifespan=self.cache_seconds,
                                         timeout=self.timeout, cooldown_duration=0)
            return self._jwks

    def _discover(self) -> str:
        """The JWKS URL from the issuer's discovery document (which must name the same issuer)."""
        url = f"{self.issuer}/.well-known/openid-configuration"
        try:
            response = httpx.get(url, timeout=self.timeout, follow_redirects=False)
            response.raise_for_status()
            document = response.json()
        except (httpx.HTTPError, ValueError) as err:
            raise AuthUnavailable(f"cannot read the discovery document {url}: {err}") from err
        if not isinstance(document, dict) or document.get("issuer", "").rstrip("/") != self.issuer:
            raise AuthUnavailable(f"the discovery document {url} names another issuer "
                                  f"({document.get('issuer') if isinstance(document, dict) else None!r})")
        jwks_uri = document.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri.startswith(("http://", "https://")):
            raise AuthUnavailable(f"the discovery document {url} has no usable jwks_uri")
        return jwks_uri
