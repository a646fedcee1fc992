"""The API names an entity by its key, any of its addresses or any of its MACs, and answers
with the canonical key (issue 11): one override of the iPad answers for all its addresses."""

from __future__ import annotations

IPAD = "mac-8c-fe-57-23-37-e4"  # demo_all_rules.pcap: Gabriele's iPad


def test_one_override_on_the_ipad_answers_for_all_its_addresses(api, client, captures):
    cid = api.analyzed(client, captures / "demo_all_rules.pcap")
    base = f"/captures/{cid}/adjudications/host-identity"
    r = client.put(f"{base}/fe80::4ba:91a:7817:e318/override",
                   json={"label": "Tablet", "rationale": "it is Gabriele's iPad"})
    assert r.status_code == 200, r.text
    assert r.json()["entity_key"] == IPAD and r.json()["primary_label"] == "Tablet"
    for name in ("192.168.1.75", "fe80::4ba:91a:7817:e318", "8C:FE:57:23:37:E4", "8c-fe-57-23-37-e4", IPAD):
        verdict = client.get(f"{base}/{name}").json()
        assert (verdict["entity_key"], verdict["primary_label"], verdict["basis"]) == (IPAD, "Tablet", "HUMAN")
    host = client.get(f"/captures/{cid}/hosts/192.168.1.75").json()
    assert host["key"] == IPAD and host["addresses"] == ["192.168.1.75", "fe80::4ba:91a:7817:e318"]
    assert host["verdicts"]["host-identity"]["primary_label"] == "Tablet"
    listed = client.get(f"/captures/{cid}/hosts", params={"q": "fe80::4ba"}).json()
    assert [h["key"] for h in listed] == [IPAD]
    trail = client.get(f"{base}/192.168.1.75/trail").json()
    assert [e["action"] for e in trail] == ["override.set"]
    facts = client.get(f"/captures/{cid}/hosts/{IPAD}/facts").json()
    assert any(f["kind"] == "mdns-service" for f in facts) and any(f["kind"] == "oui-vendor" for f in facts)
    missing = client.get(f"{base}/10.99.99.99")
    assert missing.status_code == 404 and "no host or device '10.99.99.99'" in missing.text


def test_a_mac_only_device_has_no_address_and_a_host_page_of_its_own(api, client, captures):
    cid = api.analyzed(client, captures / "demo_all_rules.pcap")
    pi = client.get(f"/captures/{cid}/hosts/00:80:8f:9a:ae:bd").json()
    assert (pi["key"], pi["ip"], pi["addresses"]) == ("mac-00-80-8f-9a-ae-bd", None, [])
    assert pi["verdicts"]["hostname"]["primary_label"] == "pi3.ntop.org"
