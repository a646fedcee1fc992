"""The capture's audit log over HTTP (filters, paging, 4xx on bad parameters), hosts named by
a finding, and the CSV export's human columns (SQLite and PostgreSQL)."""

from __future__ import annotations

import csv
import io

import pytest
from api_helpers import DNS_DEVICE, DNS_SERVER, WORKSTATION, assert_error

from tracepcap.testing import findings as shapes


@pytest.fixture
def acted(client, dns_capture) -> str:
    """Three human actions by `system` on dns_demo.pcap: override, evidence, dismissal."""
    identity = f"/captures/{dns_capture}/adjudications/host-identity/{DNS_SERVER}"
    assert client.put(f"{identity}/override", json={"label": "Router", "rationale": "diagram"}).status_code == 200
    os_family = f"/captures/{dns_capture}/adjudications/os-family/{WORKSTATION}"
    assert client.post(f"{os_family}/evidence", json={"label": "Linux", "weight": 20,
                                                      "reason": "+the build log"}).status_code in (200, 201)
    assert client.post(f"{identity}/dismissals", json={"label": "Web Server", "reason": "-no web"}).status_code in (200, 201)
    return dns_capture


def test_the_audit_log_newest_first_filtered_and_paged(client, acted):
    response = client.get(f"/captures/{acted}/audit")
    assert response.status_code == 200 and response.headers["x-total-count"] == "3"
    events = response.json()
    assert [e["action"] for e in events] == ["dismissal.added", "evidence.added", "override.set"]
    assert events[2]["change"] == "set the answer to “Router” — diagram"
    assert {e["actor"] for e in events} == {"system"} and events[0]["entity_key"] == DNS_DEVICE  # the device owning the address
    by_question = client.get(f"/captures/{acted}/audit", params={"question": "host-identity"})
    assert by_question.headers["x-total-count"] == "2"
    by_action = client.get(f"/captures/{acted}/audit", params={"action": "evidence.added", "actor": "system"})
    assert [e["question"] for e in by_action.json()] == ["os-family"]
    assert client.get(f"/captures/{acted}/audit", params={"actor": "mallory"}).json() == []
    second = client.get(f"/captures/{acted}/audit", params={"offset": 1, "limit": 1})
    assert second.headers["x-total-count"] == "3" and [e["action"] for e in second.json()] == ["evidence.added"]


def test_the_audit_log_refuses_bad_parameters(client, acted):
    url = f"/captures/{acted}/audit"
    assert_error(client.get(url, params={"action": "override.deleted"}), 422, "validation_error", "action")
    assert_error(client.get(url, params={"question": "colour"}), 422, "validation_error", "os-family", "'colour'")
    assert_error(client.get(url, params={"limit": 0}), 422, "validation_error", "limit")
    assert_error(client.get(url, params={"offset": -1}), 422, "validation_error", "offset")
    assert_error(client.get(url, params={"actor": ""}), 422, "validation_error", "actor")
    assert_error(client.get("/captures/abcdef12/audit"), 404, "not_found", "'abcdef12'")


def test_the_csv_export_carries_evidence_dismissal_reasons_actor_and_times(client, acted):
    rows = list(csv.DictReader(io.StringIO(client.get(f"/captures/{acted}/export.csv?format=long").text)))
    dns = next(r for r in rows if r["ip"] == DNS_SERVER and r["question"] == "host-identity")
    assert dns["override_label"] == "Router" and dns["actors"] == "system" and dns["override_at"].startswith("20")
    assert dns["dismissal_reasons"].startswith("Web Server by system at 20") and dns["dismissal_reasons"].endswith(": -no web")
    assert dns["last_human_at"] >= dns["override_at"]
    ws = next(r for r in rows if r["ip"] == WORKSTATION and r["question"] == "os-family")
    assert ws["evidence"].startswith("Linux (+20) by system at 20") and ws["evidence"].endswith(": +the build log")


def test_the_csv_export_keeps_formula_text_as_text(client, dns_capture):
    entity = f"/captures/{dns_capture}/adjudications/os-family/{WORKSTATION}"
    client.post(f"{entity}/evidence", json={"label": "@SUM(A1)", "weight": 5, "reason": "x"})
    rows = list(csv.DictReader(io.StringIO(client.get(f"/captures/{dns_capture}/export.csv?format=long").text)))
    ws = next(r for r in rows if r["ip"] == WORKSTATION and r["question"] == "os-family")
    assert ws["evidence"].startswith("'@SUM(A1) (+5) by system")  # the cell starts with a formula sign


def test_hosts_named_by_a_finding(api, client, tmp_path):
    cid = api.analyzed(client, shapes.build(tmp_path / "findings.pcap", shared_names=3))
    detail = client.get(f"/captures/{cid}").json()
    assert sorted((f["kind"], f["severity"]) for f in detail["findings"]) == [
        ("dns-spoofing", "high"), ("ip-mac-conflict", "high"), ("mac-bound-twice", "medium"),
        ("name-shared", "low")]  # the spoofer also answers DNS as the gateway
    flagged = client.get(f"/captures/{cid}/hosts", params={"finding": "true", "limit": 1000})
    hosts = {h["ip"]: h["finding"] for h in flagged.json()}
    assert flagged.headers["x-total-count"] == str(len(hosts)) == "8"  # gateway, spoofer, 6 CDN servers
    assert hosts[shapes.GATEWAY[0]] == hosts[shapes.SPOOFER[0]] == "high"
    assert client.get(f"/captures/{cid}/hosts/{shapes.VICTIM[0]}").json()["finding"] is None
    assert client.get(f"/captures/{cid}/hosts/{shapes.SPOOFER[0]}").json()["finding"] == "high"
    assert_error(client.get(f"/captures/{cid}/hosts", params={"finding": "maybe"}), 422, "validation_error")
