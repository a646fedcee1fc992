"""A real OIDC issuer on loopback for the auth tests, laid out like a Keycloak realm:

    {base}/realms/tracepcap/.well-known/openid-configuration   discovery document
    {base}/realms/tracepcap/protocol/openid-connect/certs      JWKS

For the browser tests it also signs a user in: the authorization endpoint approves the user
named by `sign_in_as` at once and redirects back with a code; the token endpoint exchanges the
code for a token after checking the PKCE verifier (S256). Both answer cross-origin requests.

It holds its own RSA and EC keys (each published with a `kid`), mints RS256/ES256 tokens
with them, rotates the RSA key on demand, and counts the requests each endpoint served. It
also forges the tokens an attacker would try: `alg: none`, and HS256 "signed" with the RSA
public key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

REALM = "tracepcap"
AUDIENCE = "tracepcap-api"
DISCOVERY = f"/realms/{REALM}/.well-known/openid-configuration"
CERTS = f"/realms/{REALM}/protocol/openid-connect/certs"
AUTHORIZE = f"/realms/{REALM}/protocol/openid-connect/auth"
TOKEN = f"/realms/{REALM}/protocol/openid-connect/token"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _segment(obj: dict) -> str:
    return _b64(json.dumps(obj, separators=(",", ":")).encode())


class Issuer:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self._keys: dict[str, tuple[str, object]] = {}  # kid -> (alg, private key), published
        self._generation = 0
        self.rsa_kid = self._add_rsa()
        self.ec_kid = f"ec-{uuid.uuid4().hex[:8]}"
        self._keys[self.ec_kid] = ("ES256", ec.generate_private_key(ec.SECP256R1()))
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.url = f"{self.base}/realms/{REALM}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="oidc-issuer", daemon=True)
        self.signed_in: tuple[str, tuple[str, ...]] = ("alice", ("analyst",))
        self._codes: dict[str, dict] = {}

    def __enter__(self) -> Issuer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _add_rsa(self) -> str:
        self._generation += 1
        kid = f"rsa-{self._generation}-{uuid.uuid4().hex[:8]}"
        self._keys[kid] = ("RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
        return kid

    def rotate(self) -> str:
        """A new RSA signing key replaces the old one in the JWKS; returns its kid."""
        old = self.rsa_kid
        self.rsa_kid = self._add_rsa()
        del self._keys[old]
        return self.rsa_kid

    def jwks(self) -> dict:
        keys = []
        for kid, (alg, private) in self._keys.items():
            algorithm = RSAAlgorithm if alg.startswith("RS") else ECAlgorithm
            jwk = algorithm.to_jwk(private.public_key(), as_dict=True)
            keys.append(jwk | {"kid": kid, "use": "sig", "alg": alg})
        # Keycloak also publishes an encryption key; it must be ignored, not choked on
        enc = RSAAlgorithm.to_jwk(self._keys[self.rsa_kid][1].public_key(), as_dict=True)
        keys.append(enc | {"kid": "enc-1", "use": "enc", "alg": "RSA-OAEP"})
        return {"keys": keys}

    def discovery(self) -> dict:
        oidc = f"{self.url}/protocol/openid-connect"
        return {"issuer": self.url, "jwks_uri": f"{oidc}/certs", "authorization_endpoint": f"{oidc}/auth",
                "token_endpoint": f"{oidc}/token", "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                "code_challenge_methods_supported": ["S256"]}

    def claims(self, user: str | None = "alice", roles=("analyst",), **overrides) -> dict:
        now = int(time.time())
        subject = str(uuid.uuid5(uuid.NAMESPACE_DNS, user or "x"))
        claims = {"iss": self.url, "aud": [AUDIENCE, "account"], "sub": subject,
                  "iat": now, "nbf": now, "exp": now + 300, "typ": "Bearer", "azp": "tracepcap-web",
                  "realm_access": {"roles": [*roles, "offline_access", "default-roles-tracepcap"]}}
        if user is not None:
            claims["preferred_username"] = user
        claims.update(overrides)
        return {k: v for k, v in claims.items() if v is not None}

    def token(self, user: str | None = "alice", roles=("analyst",), *, key: str = "rsa", kid: str | None = None,
              **claims) -> str:
        """A token signed with the issuer's RSA (RS256) or EC (ES256) key."""
        use = self.rsa_kid if key == "rsa" else self.ec_kid
        alg, private = self._keys[use]
        return jwt.encode(self.claims(user, roles, **claims), private, algorithm=alg,
                          headers={"kid": kid or use, "typ": "JWT"})

    def foreign_token(self, user: str = "alice", roles=("analyst",), **claims) -> str:
        """Signed by a key the issuer never published, under the issuer's current kid."""
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return jwt.encode(self.claims(user, roles, **claims), other, algorithm="RS256",
                          headers={"kid": self.rsa_kid})

    def unsigned_token(self, user: str = "alice", roles=("admin",)) -> str:
        """`alg: none`: claims anyone could write."""
        header = {"alg": "none", "typ": "JWT", "kid": self.rsa_kid}
        return f"{_segment(header)}.{_segment(self.claims(user, roles))}."

    def hs256_with_public_key(self, user: str = "alice", roles=("admin",)) -> str:
        """The key-confusion attack: HMAC-SHA256 keyed with the published RSA public key."""
        public = self._keys[self.rsa_kid][1].public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        signing_input = f"{_segment({'alg': 'HS256', 'typ': 'JWT', 'kid': self.rsa_kid})}." \
                        f"{_segment(self.claims(user, roles))}"
        signature = hmac.new(public, signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{_b64(signature)}"

    def sign_in_as(self, user: str, roles=("analyst",)) -> None:
        """Whom the authorization endpoint signs in from now on."""
        self.signed_in = (user, tuple(roles))

    def _authorize(self, query: dict[str, str]) -> str:
        """Approve the login at once: the redirect (with a code) back to the client."""
        code = uuid.uuid4().hex
        self._codes[code] = {"user": self.signed_in, "challenge": query.get("code_challenge"),
                             "method": query.get("code_challenge_method"), "client_id": query.get("client_id"),
                             "redirect_uri": query.get("redirect_uri")}
        return f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query.get('state', '')})}"

    def _exchange(self, form: dict[str, str]) -> tuple[int, dict]:
        """A code for a token, once, for the client it was issued to, with the PKCE verifier."""
        grant = self._codes.pop(form.get("code", ""), None)
        if form.get("grant_type") != "authorization_code" or grant is None:
            return 400, {"error": "invalid_grant", "error_description": "unknown or used code"}
        if (form.get("client_id"), form.get("redirect_uri")) != (grant["client_id"], grant["redirect_uri"]):
            return 400, {"error": "invalid_grant", "error_description": "client or redirect_uri differs"}
        verifier = form.get("code_verifier", "").encode()
        if grant["method"] != "S256" or _b64(hashlib.sha256(verifier).digest()) != grant["challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
        user, roles = grant["user"]
        return 200, {"access_token": self.token(user, roles), "token_type": "Bearer", "expires_in": 300}

    def _handler(self):
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def _json(self, status: int, document: dict) -> None:
                body = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                if self.path != TOKEN:
                    self.send_error(404)
                    return
                issuer.hits[self.path] += 1
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                self._json(*issuer._exchange(form))

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                url = urlsplit(self.path)
                if url.path == AUTHORIZE:
                    issuer.hits[url.path] += 1
                    self.send_response(302)
                    self.send_header("Location", issuer._authorize({k: v[0] for k, v in parse_qs(url.query).items()}))
                    self.end_headers()
                    return
                routes = {DISCOVERY: issuer.discovery, CERTS: issuer.jwks}
                if self.path not in routes:
                    self.send_error(404)
                    return
                issuer.hits[self.path] += 1
                body = json.dumps(routes[self.path]()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        return Handler
