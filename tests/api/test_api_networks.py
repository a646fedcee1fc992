"""Networks over the API: create and list, upload into a network and attach an existing
capture, the carried answer read back, changes with review (audited, by the actor the server
resolved, not one a body names), re-affirm, inventory and presence, search across captures."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select
from support.office_weeks import BASE, ROUTER, Week, write_week

from tracepcap.store.models import AuditEvent


def test_a_network_over_the_api(api, client, tmp_path):
    created = client.post("/networks", json={"name": "hq", "actor": "mallory"})
    assert created.status_code == 201, created.text
    nid = created.json()["id"]
    assert created.json()["created_by"] == "system"  # the server's actor, never the body's
    assert client.post("/networks", json={"name": "hq"}).status_code == 422
    moved = [replace(d, mac="00:11:22:00:00:99") if d.ip == "10.9.0.10" else d for d in BASE]
    w0_path, w1_path = write_week(tmp_path / "w0.pcap", 0, Week(BASE)), write_week(tmp_path / "w1.pcap", 1, Week(moved))
    with open(w0_path, "rb") as f:  # upload straight into the network
        up = client.post(f"/networks/{nid}/captures", files={"file": ("w0.pcap", f, "application/octet-stream")})
    assert up.status_code == 202, up.text
    w0 = up.json()["capture_id"]
    assert api.wait(client, w0)["status"] == "done"
    w1 = api.analyzed(client, w1_path)  # uploaded alone, then attached by id
    attached = client.post(f"/networks/{nid}/captures", json={"capture_id": w1})
    assert attached.status_code == 200, attached.text
    assert [c["id"] for c in attached.json()["capture_list"]] == [w0, w1]
    assert client.get("/networks").json()[0] | {"created_at": None} == {
        "id": nid, "name": "hq", "created_by": "system", "captures": 2, "created_at": None}

    gw, kiosk = ROUTER[0], "10.9.0.10"
    assert client.put(f"/captures/{w0}/adjudications/host-identity/{kiosk}/override",
                      json={"label": "Kiosk", "rationale": "seen on site"}).status_code == 200
    carried = client.get(f"/captures/{w1}/adjudications/host-identity/{kiosk}").json()
    assert carried["primary_label"] == "Kiosk" and carried["basis"] == "HUMAN" and carried["stale_since"]
    assert any(n.startswith("carried from w0.pcap") for n in carried["notes"])
    assert any(n.startswith("stale since w1.pcap") and "00:11:22:00:00:99" in n for n in carried["notes"])

    # a device is its MAC's key: the kiosk's new MAC is a new device holding its address, where
    # the carried answer went (stale); the old one was last seen in week 1
    inventory = client.get(f"/networks/{nid}/inventory").json()
    old, new = "mac-00-11-22-00-00-10", "mac-00-11-22-00-00-99"
    holding = {r["entity_key"]: r for r in inventory["rows"] if kiosk in r["addresses"]}
    assert set(holding) == {old, new} and holding[old]["last_seen_id"] == w0
    row = holding[new]
    assert row["answers"]["host-identity"]["state"] == "stale" and row["first_seen_id"] == w1
    reaffirmed = client.post(f"/captures/{w1}/adjudications/host-identity/{kiosk}/reaffirm")
    assert reaffirmed.status_code == 200 and not reaffirmed.json().get("stale_since")
    row = next(r for r in client.get(f"/networks/{nid}/inventory").json()["rows"] if r["entity_key"] == new)
    assert row["answers"]["host-identity"]["state"] == "carried"

    changes = client.get(f"/networks/{nid}/changes").json()
    moved_event = next(c for c in changes if c["kind"] == "address-moved" and c["entity_key"] == kiosk)
    assert moved_event["frames"] and not moved_event["reviewed"]
    reviewed = client.post(f"/networks/{nid}/changes/{moved_event['id']}/review")
    assert reviewed.status_code == 200 and reviewed.json()["reviewed_by"] == "system"
    assert client.get(f"/networks/{nid}/changes", params={"capture": w1}).json()[0]["capture_id"] == w1
    grid = client.get(f"/networks/{nid}/presence").json()
    cells = {r["entity_key"]: r["cells"] for r in grid["rows"]}
    assert cells[old] == ["present", "absent"] and cells[new] == ["absent", "changed"]  # the address moved to it
    with api.db.session() as s:
        actions = set(s.scalars(select(AuditEvent.action)))
    assert {"network.created", "network.capture-added", "override.carried", "override.stale",
            "override.reaffirmed", "change.reviewed"} <= actions

    hits = client.get("/search", params={"q": "00:11:22:00:00:99"}).json()
    assert [(h["ip"], h["capture_id"]) for h in hits] == [(kiosk, w1)]  # one hit per entity, by its address
    assert hits[0]["matched"][0]["matched"] == "mac" and hits[0]["matched"][0]["frame"]
    by_address = {(h["ip"], h["capture_id"]) for h in client.get("/search", params={"q": gw}).json()}
    assert by_address == {(gw, w0), (gw, w1)}
    by_name = client.get("/search", params={"q": "ALICE-laptop"}).json()
    assert {h["ip"] for h in by_name} == {"10.9.0.30"} and len({h["entity_key"] for h in by_name}) == 1
    by_answer = client.get("/search", params={"q": "kiosk"}).json()
    assert {(h["ip"], h["matched"][0]["matched"]) for h in by_answer} == {(kiosk, "answer")}
