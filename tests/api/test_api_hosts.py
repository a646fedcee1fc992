"""Hosts, facts and conversations over HTTP: pagination, filters, and their refusals."""

from __future__ import annotations

import csv
import io
import re

import httpx
import pytest
from api_helpers import assert_error

HTTP_DEMO = "http_demo.pcap"  # five hosts; three web servers claiming api.local, www.local, victim.local


@pytest.fixture
def http_capture(api, client, captures) -> str:
    return api.analyzed(client, captures / HTTP_DEMO)


def test_hosts_page_in_address_order_with_total(client, http_capture):
    everything = client.get(f"/captures/{http_capture}/hosts")
    assert everything.status_code == 200 and everything.headers["x-total-count"] == "5"
    hosts = everything.json()
    assert len(hosts) == 5
    victim = next(h for h in hosts if h["ip"] == "10.0.0.70")
    assert victim["names"] == ["victim.local"] and victim["macs"]
    assert victim["verdicts"]["host-identity"] == {"primary_label": "Web Server", "basis": victim["verdicts"][
        "host-identity"]["basis"], "confidence": victim["verdicts"]["host-identity"]["confidence"],
        "contested": False, "parent_of": []}
    page = client.get(f"/captures/{http_capture}/hosts", params={"offset": 1, "limit": 2})
    assert page.headers["x-total-count"] == "5" and page.json() == hosts[1:3]


FILTERS = [
    ("10.0.0.5", ["10.0.0.50"]),          # address
    ("VICTIM", ["10.0.0.70"]),            # a claimed name, any case
    ("web server", ["10.0.0.50", "10.0.0.60", "10.0.0.70"]),  # a verdict's label
    ("100%_", []),                        # LIKE wildcards are literal
]
BAD_PAGES = [
    ({"limit": 0}, "limit", "greater_than_equal"),
    ({"limit": 1001}, "limit", "less_than_equal"),
    ({"offset": -1}, "offset", "greater_than_equal"),
    ({"limit": "many"}, "limit", "int_parsing"),
    ({"q": "x" * 201}, "q", "string_too_long"),
]


def test_hosts_filter(client, http_capture):
    for q, expected in FILTERS:
        response = client.get(f"/captures/{http_capture}/hosts", params={"q": q})
        assert [h["ip"] for h in response.json()] == expected, q
        assert response.headers["x-total-count"] == str(len(expected))
    page = client.get(f"/captures/{http_capture}/hosts", params={"q": "web server", "offset": 2, "limit": 5})
    assert [h["ip"] for h in page.json()] == ["10.0.0.70"] and page.headers["x-total-count"] == "3"


def test_hosts_paging_is_validated(client, http_capture):
    for params, field, rule in BAD_PAGES:
        error = assert_error(client.get(f"/captures/{http_capture}/hosts", params=params), 422,
                             "validation_error", field)
        assert {"location": "query", "field": field, "rule": rule}.items() <= error["details"]["problems"][0].items()


def test_host_facts(client, http_capture):
    facts = client.get(f"/captures/{http_capture}/hosts/10.0.0.70/facts").json()
    kinds = {(f["kind"], f["value"]) for f in facts}
    assert ("hostname-claim", "victim.local") in kinds and any(k == "mac" for k, _ in kinds)
    assert facts == sorted(facts, key=lambda f: (f["kind"], f["value"], f["source"]))
    assert {"grade", "first_frame", "last_frame", "count", "extractor"} <= set(facts[0])
    assert_error(client.get(f"/captures/{http_capture}/hosts/10.9.9.9/facts"), 404, "not_found",
                 f"no host or device '10.9.9.9' in capture {http_capture}")
    assert_error(client.get("/captures/00000000/hosts/10.0.0.70/facts"), 404, "not_found", "no capture")


def test_conversations_paginated_and_filtered(client, http_capture):
    url = f"/captures/{http_capture}/conversations"
    everything = client.get(url, params={"limit": 1000})
    total = int(everything.headers["x-total-count"])
    rows = everything.json()
    assert total == len(rows) == 42
    assert [r["first_frame"] for r in rows] == sorted(r["first_frame"] for r in rows)
    page = client.get(url, params={"offset": 5, "limit": 5}).json()
    assert page == rows[5:10]
    by_ip = client.get(url, params={"ip": "10.0.0.70", "limit": 1000}).json()
    assert by_ip and all("10.0.0.70" in (r["src"], r["dst"]) for r in by_ip)
    by_port = client.get(url, params={"port": 80, "proto": "TCP", "limit": 1000}).json()
    assert by_port and all(80 in (r["sport"], r["dport"]) and r["proto"] == "tcp" for r in by_port)
    assert client.get(url, params={"proto": "sctp"}).json() == []
    assert_error(client.get(url, params={"port": 70000}), 422, "validation_error", "port")


def _web_hosts(api, cid: str, q: str) -> list[str]:
    """The hosts the web inventory lists for the filter `q` (one page of 200)."""
    with httpx.Client(base_url=api.url, timeout=30) as browser:
        page = browser.get(f"/ui/captures/{cid}/hosts", params={"q": q, "per_page": 200})
    assert page.status_code == 200
    return re.findall(rf'<th scope="row"><a href="/captures/{cid}/hosts/([^"]+)">', page.text)


def test_the_api_and_the_web_inventory_find_the_same_hosts(api, client, http_capture):
    hosts = client.get(f"/captures/{http_capture}/hosts").json()
    with_mac = next(h for h in hosts if h["macs"])
    vendor = next(f["value"] for h in hosts for f in client.get(f"/captures/{http_capture}/hosts/{h['ip']}/facts").json()
                  if f["kind"] == "oui-vendor")
    searches = {
        "10.0.0.5": "an address", "VICTIM": "a claimed name", "  web   server ": "a verdict's label",
        with_mac["macs"][0][-5:].upper(): "part of a MAC", vendor[:6]: "an OUI vendor", "100%_": "nothing",
    }
    for q, what in searches.items():
        api_hosts = [h["key"] for h in client.get(f"/captures/{http_capture}/hosts", params={"q": q}).json()]
        assert api_hosts == _web_hosts(api, http_capture, q), what
        assert bool(api_hosts) == (what != "nothing"), what
    assert with_mac["ip"] in [h["ip"] for h in client.get(
        f"/captures/{http_capture}/hosts", params={"q": with_mac["macs"][0]}).json()]


LOCALITIES = {"192.168.1.1": "on-link", "192.168.1.75": "on-link", "91.108.8.1": "remote"}


def test_every_host_has_a_locality_and_the_list_filters_on_it(api, client, captures):
    cid = api.analyzed(client, captures / "demo_all_rules.pcap")
    hosts = {a: h for h in client.get(f"/captures/{cid}/hosts", params={"limit": 1000}).json() for a in h["addresses"] or [h["key"]]}
    assert {ip: hosts[ip]["locality"] for ip in LOCALITIES} == LOCALITIES
    assert "owns 8c:fe:57:23:37:e4" in hosts["192.168.1.75"]["locality_reason"]
    assert "10:13:31:f1:39:76, a router's MAC" in hosts["91.108.8.1"]["locality_reason"]
    seen = set()
    for locality in ("on-link", "local-routed", "remote"):
        response = client.get(f"/captures/{cid}/hosts", params={"locality": locality, "limit": 1000})
        found = [h["key"] for h in response.json()]
        assert found == list(dict.fromkeys(h["key"] for h in hosts.values() if h["locality"] == locality)), locality
        assert response.headers["x-total-count"] == str(len(found)) and found, locality
        seen |= set(found)
    assert seen == {h["key"] for h in hosts.values()}  # Scan placed every host and device
    both = client.get(f"/captures/{cid}/hosts", params={"locality": "remote", "q": "91.108.8."}).json()
    assert [h["ip"] for h in both] == ["91.108.8.1", "91.108.8.7", "91.108.8.8"]
    for bad in ("local", "ON-LINK", ""):
        assert_error(client.get(f"/captures/{cid}/hosts", params={"locality": bad}), 422,
                     "validation_error", "locality")


def test_one_host_with_its_locality(api, client, captures):
    cid = api.analyzed(client, captures / "demo_all_rules.pcap")
    router = client.get(f"/captures/{cid}/hosts/192.168.1.1")
    assert router.status_code == 200
    body = router.json()
    assert body["ip"] == "192.168.1.1" and body["locality"] == "on-link"
    assert "10:13:31:f1:39:76" in body["macs"] and "owns 10:13:31:f1:39:76" in body["locality_reason"]
    assert body == next(h for h in client.get(f"/captures/{cid}/hosts", params={"q": "192.168.1.1"}).json()
                        if h["ip"] == "192.168.1.1")
    assert_error(client.get(f"/captures/{cid}/hosts/10.9.9.9"), 404, "not_found",
                 f"no host or device '10.9.9.9' in capture {cid}")


def test_a_parent_level_answer_travels_the_api(api, client, captures):
    # signal.pcap's Apple host: Apple-stack SYNs, and nothing says Mac or iPhone
    cid = api.analyzed(client, captures / "signal.pcap")
    verdict = client.get(f"/captures/{cid}/adjudications/os-family/192.168.2.17").json()
    assert (verdict["primary_label"], verdict["contested"], verdict["parent_of"]) == ("Apple", False, ["iOS", "macOS"])
    assert [c["label"] for c in verdict["candidates"][:2]] == ["iOS", "macOS"]
    listed = client.get(f"/captures/{cid}/hosts", params={"q": "192.168.2.17"}).json()
    assert listed[0]["verdicts"]["os-family"]["parent_of"] == ["iOS", "macOS"]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/captures/{cid}/export.csv?format=long").text)))
    row = next(r for r in rows if r["ip"] == "192.168.2.17" and r["question"] == "os-family")
    assert (row["primary_label"], row["contested"]) == ("Apple", "false")
    assert row["candidates"].startswith("iOS (40) | macOS (40)")  # the children stay candidates
