"""A question defined only here gets every API route with no line changed under src/:
listed, answered, overridable, evidence-able, dismissable, audited, exported."""

from __future__ import annotations

import csv
import io

from api_helpers import DNS_DEMO, assert_error

from tracepcap.adjudicate.contract import Adjudicator, Tier
from tracepcap.adjudicate.registry import Registry, get_registry
from tracepcap.scan.vote import Vote


def parity(host):
    last = int(host.ip.split(".")[-1]) if "." in host.ip else 0
    label = "even" if last % 2 == 0 else "odd"
    yield Vote(label, 50, f"address ends in {last} (+50)")


PROBE = Adjudicator(question="probe-parity", title="Parity", tier=Tier.DETERMINISTIC, labels=("even", "odd"),
                    signals=(parity,), position=999, module=__name__)


def test_a_probe_question_travels_every_route(serve, captures):
    api = serve(registry=Registry([*get_registry(), PROBE]))
    with api.client() as client:
        assert client.get("/questions").json()[-1] == {"question": "probe-parity", "title": "Parity",
                                                       "tier": "DETERMINISTIC", "labels": ["even", "odd"],
                                                       "parents": {}}
        cid = api.analyzed(client, captures / DNS_DEMO)
        hosts = {a: h for h in client.get(f"/captures/{cid}/hosts").json() for a in h["addresses"] or [h["key"]]}
        assert hosts["192.168.1.21"]["verdicts"]["probe-parity"]["primary_label"] == "odd"
        assert [h["ip"] for h in client.get(f"/captures/{cid}/hosts", params={"q": "odd"}).json()] == [
            ip for ip in hosts if int(ip.split(".")[-1]) % 2]
        base = f"/captures/{cid}/adjudications/probe-parity"
        assert {v["entity_key"] for v in client.get(base).json()} == {h["key"] for h in hosts.values()}
        verdict = client.get(f"{base}/192.168.1.20").json()
        assert verdict["candidates"][0]["reasons"] == ["address ends in 20 (+50)"]

        assert client.put(f"{base}/192.168.1.21/override", json={"label": "even", "rationale": "from zero"}
                          ).json()["basis"] == "HUMAN"
        added = client.post(f"{base}/192.168.1.20/evidence", json={"label": "odd", "weight": 30, "reason": "sheet"})
        assert added.status_code == 201
        assert client.post(f"{base}/192.168.1.22/dismissals", json={"label": "EVEN", "reason": "no"}
                           ).json()["dismissed"] == ["even"]
        assert client.delete(f"{base}/192.168.1.21/override").json()["primary_label"] == "odd"
        assert [e["action"] for e in client.get(f"{base}/192.168.1.21/trail").json()] == [
            "override.set", "override.cleared"]
        rows = list(csv.DictReader(io.StringIO(client.get(f"/captures/{cid}/export.csv?format=long").text)))
        assert sum(r["question"] == "probe-parity" for r in rows) == len(hosts)
        assert_error(client.get(f"/captures/{cid}/adjudications/probe-parrot"), 404, "not_found",
                     "known questions: ", "probe-parity")
