"""Exports: the whole record as JSON, one CSV row per (host, question)."""

from __future__ import annotations

import csv
import io

from api_helpers import DNS_SERVER, WORKSTATION, assert_error

from tracepcap.adjudicate.registry import get_registry


def test_json_export_has_hosts_facts_verdicts_reasons_and_human_actions(client, dns_capture):
    entity = f"/captures/{dns_capture}/adjudications/host-identity/{DNS_SERVER}"
    client.put(f"{entity}/override", json={"label": "Router", "rationale": "diagram"})
    client.post(f"{entity}/evidence", json={"label": "Router", "weight": 20, "reason": "rack label"})
    client.post(f"{entity}/dismissals", json={"label": "Web Server", "reason": "no"})
    response = client.get(f"/captures/{dns_capture}/export.json")
    assert response.status_code == 200
    assert f'filename="tracepcap-{dns_capture}.json"' in response.headers["content-disposition"]
    doc = response.json()
    assert doc["capture"]["id"] == dns_capture and doc["capture"]["uploaded_by"] == "system"
    host = next(h for h in doc["hosts"] if h["ip"] == DNS_SERVER)
    assert host["facts"] and {"kind", "value", "grade", "first_frame"} <= set(host["facts"][0])
    verdict = host["verdicts"]["host-identity"]
    assert verdict["primary_label"] == "Router" and verdict["candidates"][0]["reasons"]
    assert [o["label"] for o in doc["human"]["overrides"]] == ["Router"]
    assert [e["reason"] for e in doc["human"]["evidence"]] == ["rack label"]
    assert [d["label"] for d in doc["human"]["dismissals"]] == ["Web Server"]
    assert [e["action"] for e in doc["human"]["audit"]] == ["override.set", "evidence.added", "dismissal.added"]
    assert "manifest" in doc and "findings" in doc


def test_csv_export_one_row_per_host_and_question(client, dns_capture):
    entity = f"/captures/{dns_capture}/adjudications/host-identity/{WORKSTATION}"
    client.put(f"{entity}/override", json={"label": "=HYPERLINK(\"http://x\")", "rationale": "-1+1"})
    response = client.get(f"/captures/{dns_capture}/export.csv?format=long")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    hosts = client.get(f"/captures/{dns_capture}/hosts", params={"limit": 1000}).json()
    assert len(rows) == len(hosts) * len(get_registry())
    assert {(r["ip"], r["question"]) for r in rows} == {(h["ip"], q.question) for h in hosts for q in get_registry()}
    dns = next(r for r in rows if r["ip"] == DNS_SERVER and r["question"] == "host-identity")
    assert dns["primary_label"] == "DNS Server" and dns["basis"] == "MACHINE" and "udp/53" in dns["reasons"]
    ws = next(r for r in rows if r["ip"] == WORKSTATION and r["question"] == "host-identity")
    # text a spreadsheet would evaluate stays text
    assert ws["primary_label"] == "'=HYPERLINK(\"http://x\")" and ws["override_rationale"] == "'-1+1"
    assert ws["override_actor"] == "system"


def test_exports_of_an_unknown_capture(client):
    assert_error(client.get("/captures/abcdef12/export.json"), 404, "not_found", "'abcdef12'")
    assert_error(client.get("/captures/abcdef12/export.csv"), 404, "not_found", "'abcdef12'")


def test_the_export_is_the_analyze_document_plus_the_human_record(api, client, dns_capture):
    """One reader: `export.json` holds `analyze --json`'s document key for key (hosts,
    credentials, applications alike), with the upload and the human record added."""
    import json

    from tracepcap.ingest import find_capture
    from tracepcap.present.report import write_capture

    entity = f"/captures/{dns_capture}/adjudications/host-identity/{DNS_SERVER}"
    assert client.put(f"{entity}/override", json={"label": "Router", "rationale": "diagram"}).status_code == 200
    export = client.get(f"/captures/{dns_capture}/export.json").json()
    out = io.StringIO()
    with api.db.session() as s:
        write_capture(s, find_capture(s, dns_capture), get_registry(), out, as_json=True)
    document = json.loads(out.getvalue())
    assert list(document)[-3:] == ["hosts", "credentials", "applications"] and document["applications"]
    assert list(export) == [*list(document)[:-2], "human", "credentials", "applications"]
    assert export["capture"] == document["capture"] | {"uploaded_at": export["capture"]["uploaded_at"],
                                                       "uploaded_by": "system"}
    assert {k: v for k, v in export.items() if k not in ("capture", "human")} == \
        {k: v for k, v in document.items() if k != "capture"}
    assert [o["label"] for o in export["human"]["overrides"]] == ["Router"]
    host = next(h for h in document["hosts"] if h["ip"] == DNS_SERVER)
    assert host["verdicts"]["host-identity"]["override"]["label"] == "Router"
