"""The hosts API filters as the web inventory does (answer, question, contested, human, stale)
and sends every time in ISO 8601 UTC (issue 26)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from api_helpers import DNS_SERVER, WORKSTATION


def ips(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [h["ip"] for h in response.json()]


def test_hosts_filter_by_answer_human_contested_and_stale(client, dns_capture):
    hosts = f"/captures/{dns_capture}/hosts"
    everyone = ips(client.get(hosts))
    assert DNS_SERVER in everyone and WORKSTATION in everyone
    answered = client.get(hosts, params={"question": "host-identity", "answer": "DNS Server"}).json()
    assert DNS_SERVER in [h["ip"] for h in answered] and len(answered) < len(everyone)
    assert {h["verdicts"]["host-identity"]["primary_label"] for h in answered} == {"DNS Server"}
    assert ips(client.get(hosts, params={"question": "host-identity", "answer": "Printer"})) == []
    assert ips(client.get(hosts, params={"human": "true"})) == []
    entity = f"/captures/{dns_capture}/adjudications/host-identity/{WORKSTATION}"
    assert client.put(f"{entity}/override", json={"label": "Printer", "rationale": "on the shelf"}).status_code == 200
    assert ips(client.get(hosts, params={"human": "true"})) == [WORKSTATION]
    assert ips(client.get(hosts, params={"human": "true", "question": "os-family"})) == []
    assert ips(client.get(hosts, params={"question": "host-identity", "answer": "Printer"})) == [WORKSTATION]
    assert ips(client.get(hosts, params={"stale": "true"})) == []  # nothing moved beneath it
    contested = ips(client.get(hosts, params={"contested": "true"}))
    for ip in contested:  # each one listed has a contested verdict, and the count says so
        verdicts = client.get(f"{hosts}/{ip}").json()["verdicts"]
        assert any(v["contested"] for v in verdicts.values())
    assert client.get(hosts, params={"contested": "true"}).headers["x-total-count"] == str(len(contested))


@pytest.mark.parametrize("params, message", [
    ({"human": "true", "stale": "true"}, "choose one of contested, human, stale and finding (got human, stale)"),
    ({"answer": "Printer"}, "answer needs question"),
    ({"question": "host-identity", "answer": "Printer", "human": "true"}, "answer cannot be combined with human"),
    ({"question": "no-such-question"}, "question must be one of host-identity"),
])
def test_hosts_filters_that_cannot_hold_together_are_a_422_saying_why(client, dns_capture, params, message):
    response = client.get(f"/captures/{dns_capture}/hosts", params=params)
    assert response.status_code == 422 and message in response.text


def iso_utc(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert moment.utcoffset() == timedelta(0), text
    return moment


def test_conversations_facts_and_frames_carry_iso_8601_utc_times(client, dns_capture):
    conversations = client.get(f"/captures/{dns_capture}/conversations").json()
    assert conversations
    for c in conversations:
        assert iso_utc(c["first_time"]) <= iso_utc(c["last_time"])
        assert iso_utc(c["first_time"]).year >= 1970
    facts = client.get(f"/captures/{dns_capture}/hosts/{DNS_SERVER}/facts").json()
    assert facts and all(iso_utc(f["first_time"]) <= iso_utc(f["last_time"]) for f in facts)
    frame = client.get(f"/captures/{dns_capture}/frames/1").json()
    assert iso_utc(frame["time"]) <= min(iso_utc(c["first_time"]) for c in conversations)  # the first frame
