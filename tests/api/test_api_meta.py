"""Health, /me with auth off, the question list, the docs, and errors of routing."""

from __future__ import annotations

import pytest
from api_helpers import assert_error
from pydantic import ValidationError

from tracepcap import __version__
from tracepcap.adjudicate.registry import get_registry
from tracepcap.present.cli import build_parser
from tracepcap.settings import Settings


def test_health_me_questions_and_docs(api, client):
    assert client.get("/health").json() == {"status": "ok", "version": __version__}
    assert client.get("/me").json() == {"actor": "system", "authenticated": False,
                                         "roles": ["admin", "analyst", "viewer"]}
    questions = client.get("/questions").json()
    assert [q["question"] for q in questions] == [a.question for a in get_registry()]
    identity = next(q for q in questions if q["question"] == "host-identity")
    assert identity["tier"] == "DETERMINISTIC" and "DNS Server" in identity["labels"] and identity["title"]
    os_family = next(q for q in questions if q["question"] == "os-family")
    assert os_family["parents"]["iOS"] == "Apple" and "Apple" in os_family["labels"]  # parents join the vocabulary
    schema = client.get("/openapi.json").json()
    assert "/api/captures/{cid}/adjudications/{question}/{entity}/override" in schema["paths"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_unknown_route_and_method_share_the_error_shape(client):
    assert_error(client.get("/nothing-here"), 404, "not_found", "no route GET /api/nothing-here")
    assert_error(client.patch("/captures"), 405, "method_not_allowed", "PATCH is not allowed")


@pytest.mark.parametrize("overrides, message", [
    ({"auth": "oidc"}, "TRACEPCAP_AUTH=oidc needs TRACEPCAP_OIDC_ISSUER and TRACEPCAP_OIDC_AUDIENCE"),
    ({"auth": "oidc", "oidc_issuer": "https://sso.example.org/realms/t"}, "needs TRACEPCAP_OIDC_AUDIENCE"),
    ({"auth": "oidc", "oidc_issuer": "sso.example.org", "oidc_audience": "a"}, "must be an http(s) URL"),
    ({"auth": "kerberos"}, "'off' or 'oidc'"),
])
def test_settings_refuse_contradictions(tmp_path, overrides, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings(data_dir=tmp_path, **overrides)


def test_serve_command_line():
    args = build_parser().parse_args(["serve", "--port", "8123", "--db", "sqlite:///x.db"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8123, "sqlite:///x.db")


def test_serve_refuses_contradictory_settings(monkeypatch, capsys, tmp_path):
    from tracepcap.present.cli import main
    monkeypatch.setenv("TRACEPCAP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TRACEPCAP_AUTH", "oidc")
    assert main(["serve"]) == 2
    assert "TRACEPCAP_AUTH=oidc needs TRACEPCAP_OIDC_ISSUER" in capsys.readouterr().err
