"""A user's journey through the API alone: upload a capture, poll until analyzed, list hosts,
read a verdict, override it, see the new verdict, clear it, read the trail."""

from __future__ import annotations

import time

from api_helpers import DNS_DEMO


def test_a_users_journey(api, captures):
    with api.client() as client:
        # upload: the answer comes at once, the analysis runs in the background
        with open(captures / DNS_DEMO, "rb") as f:
            uploaded = client.post("/captures", files={"file": (DNS_DEMO, f)})
        assert uploaded.status_code == 202
        cid = uploaded.json()["id"]

        # poll until done
        deadline = time.monotonic() + 60
        while (capture := client.get(f"/captures/{cid}").json())["status"] in ("queued", "analyzing"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert capture["status"] == "done" and capture["progress"] == 100

        # list hosts, pick the one the machine calls a DNS server
        hosts = client.get(f"/captures/{cid}/hosts").json()
        dns = next(h for h in hosts if h["verdicts"]["host-identity"]["primary_label"] == "DNS Server")
        verdict_url = f"/captures/{cid}/adjudications/host-identity/{dns['ip']}"

        # read its verdict and why
        machine = client.get(verdict_url).json()
        assert machine["primary_label"] == "DNS Server" and machine["basis"] == "MACHINE"
        assert any("udp/53" in reason for reason in machine["candidates"][0]["reasons"])

        # disagree
        overridden = client.put(f"{verdict_url}/override",
                                json={"label": "Router", "rationale": "it is the site gateway"})
        assert overridden.status_code == 200
        assert client.get(verdict_url).json()["primary_label"] == "Router"
        listed = client.get(f"/captures/{cid}/hosts", params={"q": dns["ip"]}).json()
        assert listed[0]["verdicts"]["host-identity"] == {"primary_label": "Router", "basis": "HUMAN",
                                                          "confidence": 100, "contested": False,
                                                          "parent_of": []}

        # change one's mind
        assert client.delete(f"{verdict_url}/override").json()["primary_label"] == "DNS Server"
        assert client.get(verdict_url).json() == machine | {"override": None}

        # who said what, and when
        trail = client.get(f"{verdict_url}/trail").json()
        assert [(e["action"], e["actor"]) for e in trail] == [("override.set", "system"),
                                                              ("override.cleared", "system")]
        assert trail[0]["after"]["label"] == "Router" and trail[1]["before"]["rationale"] == "it is the site gateway"
        assert trail[0]["at"] <= trail[1]["at"]
