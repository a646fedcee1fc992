"""Issue 27: a network's changes over the API come in pages (offset, limit, X-Total-Count),
filter by severity, kind, capture and device, and an unknown query parameter - here or on any
API route - is a 422 naming it."""

from __future__ import annotations

from support.office_weeks import series_week, write_week


def network_of_weeks(api, client, tmp_path, weeks):
    nid = client.post("/networks", json={"name": "office"}).json()["id"]
    ids = []
    for n in weeks:
        cid = api.analyzed(client, write_week(tmp_path / f"w{n}.pcap", n, series_week(n)))
        assert client.post(f"/networks/{nid}/captures", json={"capture_id": cid}).status_code == 200
        ids.append(cid)
    return nid, ids


def test_changes_page_and_filter(api, client, tmp_path):
    nid, (w1, w2, w3) = network_of_weeks(api, client, tmp_path, range(3))
    every = client.get(f"/networks/{nid}/changes", params={"limit": 1000})
    assert every.status_code == 200
    events, total = every.json(), int(every.headers["X-Total-Count"])
    assert total == len(events) > 4
    page = client.get(f"/networks/{nid}/changes", params={"offset": 2, "limit": 3})
    assert [e["id"] for e in page.json()] == [e["id"] for e in events[2:5]]
    assert int(page.headers["X-Total-Count"]) == total

    high = client.get(f"/networks/{nid}/changes", params={"severity": "high"}).json()
    assert high and {e["severity"] for e in high} == {"high"}
    assert len(high) == sum(e["severity"] == "high" for e in events)
    both = client.get(f"/networks/{nid}/changes", params=[("severity", "high"), ("severity", "medium")])
    assert int(both.headers["X-Total-Count"]) == sum(e["severity"] in ("high", "medium") for e in events)

    tunnels = client.get(f"/networks/{nid}/changes", params={"kind": "new-tunnel"}).json()
    assert tunnels and {e["kind"] for e in tunnels} == {"new-tunnel"}
    into3 = client.get(f"/networks/{nid}/changes", params={"capture": w3}).json()
    assert into3 and {e["capture_id"] for e in into3} == {w3}

    # a device by an address it holds; an aggregated change names each device it lists
    laptop = client.get(f"/networks/{nid}/changes", params={"device": "10.9.0.77"}).json()
    assert laptop and all("10.9.0.77" in e["summary"] for e in laptop)
    many = next(e for e in events if len(e["detail"].get("devices", [])) > 1)
    listed = many["detail"]["devices"][-1]
    assert many["id"] in [e["id"] for e in client.get(f"/networks/{nid}/changes",
                                                      params={"device": listed, "limit": 1000}).json()]

    for params, name in (({"severity": "urgent"}, "severity"), ({"kind": "new-thing"}, "kind"),
                         ({"sevrity": "high"}, "sevrity")):
        bad = client.get(f"/networks/{nid}/changes", params=params)
        assert bad.status_code == 422, bad.text
        assert any(p["field"] == name for p in bad.json()["error"]["details"]["problems"]), bad.text
    assert client.get(f"/networks/{nid}/changes", params={"limit": 0}).status_code == 422


def test_an_unknown_query_parameter_is_refused_on_any_api_route(client):
    bad = client.get("/networks", params={"colour": "blue"})
    assert bad.status_code == 422 and "colour" in bad.text
    assert client.get("/networks").status_code == 200
    bad = client.get("/captures", params={"ofset": 1})
    assert bad.status_code == 422 and "ofset" in bad.json()["error"]["message"]
    assert client.get("/captures", params={"offset": 0}).status_code == 200
