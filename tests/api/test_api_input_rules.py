"""What a client sends is held to `tracepcap.text`'s rule and to the database's ranges before it
reaches the store: a NUL, an over-long text or an out-of-range integer is a 422 naming the
field, never a 500; a capture reference is hex, never a LIKE pattern (SQLite and PostgreSQL)."""

from __future__ import annotations

import httpx
import pytest
from api_helpers import DNS_SERVER, assert_error
from sqlalchemy import func, select

from tracepcap.store.models import AuditEvent, Capture, HumanOverride, ManualEvidence

NUL = "\x00"
BIG = 2**63  # one past the largest integer either database holds


@pytest.fixture
def entity(dns_capture) -> str:
    return f"/captures/{dns_capture}/adjudications/host-identity/{DNS_SERVER}"


def problem(response, status: int, location: str, field: str, rule: str, *fragments: str) -> None:
    error = assert_error(response, status, None, *fragments)
    assert {"location": location, "field": field, "rule": rule}.items() <= error["details"]["problems"][0].items()


def stored_rows(db) -> tuple[int, int, int]:
    with db.session() as s:
        return tuple(s.scalar(select(func.count()).select_from(t)) for t in (HumanOverride, ManualEvidence, AuditEvent))


@pytest.mark.parametrize("field, body, rule", [
    ("label", {"label": f"Rou{NUL}ter", "rationale": "r"}, "control_character"),
    ("rationale", {"label": "Router", "rationale": f"diagram{NUL}"}, "control_character"),
    ("rationale", {"label": "Router", "rationale": "escape \x1b[31m red"}, "control_character"),
    ("label", {"label": "Router\nLine two", "rationale": "r"}, "control_character"),
    # half a surrogate pair, which no database can encode: pydantic's own rule refuses it
    ("rationale", '{"label": "Router", "rationale": "half a pair \\ud800"}', "string_unicode"),
])
def test_control_characters_in_json_text_are_422_naming_the_field(client, entity, db, field, body, rule):
    before = stored_rows(db)
    if isinstance(body, str):
        response = client.put(f"{entity}/override", content=body, headers={"Content-Type": "application/json"})
    else:
        response = client.put(f"{entity}/override", json=body)
    problem(response, 422, "body", field, rule, f"invalid request: {field}: ")
    assert stored_rows(db) == before
    if rule == "control_character":
        assert "must not contain control characters" in response.json()["error"]["message"]


def test_prose_keeps_tabs_and_line_breaks(client, entity):
    verdict = client.put(f"{entity}/override", json={"label": "Router", "rationale": "line one\n\tline two"}).json()
    assert verdict["override"]["rationale"] == "line one\n\tline two"


@pytest.mark.parametrize("path, body, field, limit, got", [
    ("/override", {"label": "Router", "rationale": "r" * 4001}, "rationale", 4000, 4001),
    # under the body cap (1 MiB, test_request_bodies.py: a 20 MB reason is 413 before parsing)
    ("/evidence", {"label": "Router", "weight": 5, "reason": "r" * 1_000_000}, "reason", 4000, 1_000_000),
    ("/dismissals", {"label": "x" * 101, "reason": "r"}, "label", 100, 101),
])
def test_texts_longer_than_their_field_are_422_saying_limit_and_length(client, entity, db, path, body, field,
                                                                       limit, got):
    before = stored_rows(db)
    response = client.request("PUT" if path == "/override" else "POST", f"{entity}{path}", json=body)
    problem(response, 422, "body", field, "string_too_long", f"must be at most {limit} characters (got {got})")
    assert stored_rows(db) == before


def test_evidence_edit_is_held_to_the_same_rule(client, entity):
    added = client.post(f"{entity}/evidence", json={"label": "Router", "weight": 5, "reason": "r"})
    eid = added.json()["evidence"]["id"]
    problem(client.put(f"{entity}/evidence/{eid}", json={"reason": f"x{NUL}"}), 422, "body", "reason",
            "control_character", "got U+0000 at character 2 of 2")


def test_search_is_at_most_200_characters_without_control_characters(client, dns_capture):
    hosts = f"/captures/{dns_capture}/hosts"
    assert client.get(hosts, params={"q": "x" * 200}).status_code == 200
    problem(client.get(hosts, params={"q": "x" * 201}), 422, "query", "q", "string_too_long",
            "must be at most 200 characters (got 201)")
    problem(client.get(hosts, params={"q": f"192{NUL}"}), 422, "query", "q", "control_character", "U+0000")


@pytest.mark.parametrize("path, field", [
    ("/captures/{cid}/adjudications/host-identity/192.168.1.1%00", "entity"),
    ("/captures/{cid}/adjudications/host%00identity/192.168.1.1", "question"),
    ("/captures/{cid}%00/adjudications/host-identity/192.168.1.1", "cid"),
    ("/captures/{cid}/hosts/192.168.1.1%00/facts", "ip"),
    ("/captures/{cid}/adjudications/host-identity/192.168.1.1/dismissals/a%00b", "label"),
    ("/captures/{cid}/conversations?proto=t%00", "proto"),
])
def test_control_characters_in_path_segments_and_query_parameters_are_422(client, dns_capture, path, field):
    method = "DELETE" if "dismissals" in path else "GET"
    response = client.request(method, path.replace("{cid}", dns_capture))
    location = "query" if "?" in path else "path"
    problem(response, 422, location, field, "control_character", f"{field} must not contain control characters")


def test_a_file_name_with_control_characters_or_too_long_is_422_and_nothing_is_stored(api, client, db, captures):
    data = (captures / "dns_demo.pcap").read_bytes()
    for name, rule, fragment in ((f"a{NUL}b.pcap", "control_character", "U+0000"),
                                 ("x" * 256 + ".pcap", "string_too_long", "at most 255 characters (got 261)")):
        # by hand: clients percent-encode a NUL in a file name, a hostile one need not
        body = (b'--b\r\nContent-Disposition: form-data; name="file"; filename="' + name.encode() +
                b'"\r\nContent-Type: application/octet-stream\r\n\r\n' + data + b"\r\n--b--\r\n")
        response = client.post("/captures", content=body, headers={"Content-Type": "multipart/form-data; boundary=b"})
        problem(response, 422, "body", "filename", rule, fragment)
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Capture)) == 0
    assert api.upload(client, captures / "dns_demo.pcap", name="x" * 255).status_code == 202


@pytest.mark.parametrize("params, field", [
    ({"offset": BIG}, "offset"), ({"limit": BIG}, "limit"), ({"offset": -1}, "offset"),
])
def test_paging_beyond_the_database_range_is_422(client, dns_capture, params, field):
    for path in (f"/captures/{dns_capture}/adjudications/host-identity", f"/captures/{dns_capture}/hosts",
                 f"/captures/{dns_capture}/conversations"):
        rule = "greater_than_equal" if params[field] < 0 else "less_than_equal"
        problem(client.get(path, params=params), 422, "query", field, rule, field)


def test_paging_at_the_edge_of_the_range_is_an_empty_page(client, dns_capture):
    for path in (f"/captures/{dns_capture}/adjudications/host-identity", f"/captures/{dns_capture}/hosts",
                 f"/captures/{dns_capture}/conversations"):
        response = client.get(path, params={"offset": BIG - 1})
        assert response.status_code == 200 and response.json() == [], response.text


@pytest.mark.parametrize("evidence_id", [BIG, 2**31, 0])
def test_evidence_ids_beyond_the_column_range_are_422(client, entity, evidence_id):
    for response in (client.put(f"{entity}/evidence/{evidence_id}", json={"weight": 5}),
                     client.delete(f"{entity}/evidence/{evidence_id}")):
        problem(response, 422, "path", "evidence_id", "less_than_equal" if evidence_id else "greater_than_equal",
                "evidence_id")


@pytest.mark.parametrize("ref", ["%25", "_", "%25%25", "____", "6%25", "zz", "0x1"])
def test_a_capture_reference_is_hex_never_a_pattern(client, dns_capture, db, ref):
    """`%` and `_` would match any id in a LIKE: the only capture must not answer to them."""
    assert_error(client.get(f"/captures/{ref}"), 404, "not_found", "a capture reference is 1 to 64 hex digits")
    assert_error(client.delete(f"/captures/{ref}"), 404, "not_found")
    with db.session() as s:
        assert s.scalars(select(Capture.id)).all() == [dns_capture]
    assert client.get(f"/captures/{dns_capture[:3]}").json()["id"] == dns_capture  # a real prefix still works


def test_web_forms_are_held_to_the_same_rule(api, dns_capture, db):
    """The htmx panel posts the same texts: the service refuses them with the same message."""
    before = stored_rows(db)
    panel = f"{api.url}/ui/captures/{dns_capture}/hosts/{DNS_SERVER}/panels/host-identity"
    with httpx.Client(timeout=30, headers={"X-TracePcap-Request": "1"}) as web:
        response = web.post(f"{panel}/evidence", data={"label": "Router", "weight": "5", "reason": f"tag{NUL}"})
        assert response.status_code == 422
        assert "reason must not contain control characters" in response.text
        response = web.put(f"{panel}/override", data={"label": "Router", "rationale": "r" * 4001})
        assert response.status_code == 422 and "at most 4000 characters (got 4001)" in response.text
        response = web.delete(f"{panel}/evidence/{BIG}")
        assert response.status_code == 404
    assert stored_rows(db) == before
