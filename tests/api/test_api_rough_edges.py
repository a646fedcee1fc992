"""Issue 15's rough edges below the browser: the captures list searches and pages (API and
the web partial), the MAC sort joins each host's first MAC once, and "Talks most with"
leaves broadcast and multicast out."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from tracepcap.adjudicate.registry import get_registry
from tracepcap.present.read.hosts import HostFilter, host_page, is_group_address, neighbours
from tracepcap.scan.entities import build
from tracepcap.store.models import Capture, Conversation, Entity, EntityMember, Host, ObservationRow

START = datetime(2026, 1, 1, tzinfo=UTC)


def _captures(db, n: int) -> list[str]:
    """n finished captures, "site-000.pcap" the oldest; their ids, newest first."""
    with db.session() as s:
        for i in range(n):
            s.add(Capture(id=f"c{i:015x}", sha256=f"{i:02x}" + "a" * 62, name=f"site-{i:03d}.pcap", size=1,
                          format="pcap", status="done", progress_bytes=1, uploaded_at=START + timedelta(minutes=i),
                          uploaded_by="alice"))
    return [f"c{i:015x}" for i in reversed(range(n))]


def test_the_captures_list_searches_and_pages(api, client):
    ids = _captures(api.db, 30)
    first = client.get("/captures", params={"limit": 10})
    assert [c["id"] for c in first.json()] == ids[:10] and first.headers["x-total-count"] == "30"
    third = client.get("/captures", params={"limit": 10, "offset": 20})
    assert [c["id"] for c in third.json()] == ids[20:]
    found = client.get("/captures", params={"q": "SITE-01"})  # part of the name, any case
    assert [c["name"] for c in found.json()] == [f"site-{i:03d}.pcap" for i in reversed(range(10, 20))]
    assert found.headers["x-total-count"] == "10"
    assert [c["id"] for c in client.get("/captures", params={"q": ids[-2][:-1] + "1"}).json()] == [ids[-2]]  # an id (prefix)
    assert [c["id"] for c in client.get("/captures", params={"q": "05aaa"}).json()] == [ids[-6]]  # a sha256 prefix
    assert client.get("/captures", params={"q": "100%"}).json() == []  # LIKE wildcards are text


def test_the_captures_page_searches_and_pages(api, client):
    ids = _captures(api.db, 30)
    listed = re.compile(r'<a href="/captures/([0-9a-f]+)">')
    with api.client() as web:
        page = web.get(f"{api.url}/ui/captures/list")
        assert listed.findall(page.text) == ids[:25] and "1–25 of 30" in page.text and "page 1 of 2" in page.text
        page = web.get(f"{api.url}/ui/captures/list", params={"page": 2}, headers={"HX-Request": "true"})
        assert listed.findall(page.text) == ids[25:] and page.headers["hx-push-url"] == "/?page=2"
        page = web.get(f"{api.url}/ui/captures/list", params={"q": "site-02"},
                       headers={"HX-Request": "true", "HX-Trigger": "capture-search"})
        assert len(listed.findall(page.text)) == 10 and page.headers["hx-push-url"] == "/?q=site-02"
        assert 'hx-get="/ui/captures/list?q=site-02&amp;page=1"' in page.text  # its refresh keeps the search
        poll = web.get(f"{api.url}/ui/captures/list", params={"q": "site-02"},
                       headers={"HX-Request": "true", "HX-Trigger": "capture-list"})
        assert "hx-push-url" not in poll.headers  # the list's own refresh does not move the address
        whole = web.get(f"{api.url}/", params={"q": "site-029"})
        assert listed.findall(whole.text) == [ids[0]] and 'value="site-029"' in whole.text
        assert "No capture matches “nothing”" in web.get(f"{api.url}/ui/captures/list", params={"q": "nothing"}).text


CID = "b000000000000001"


def _store(db, hosts: list[str], macs: dict[str, list[str]], talks: list[tuple[str, str, int]]) -> None:
    with db.session() as s:
        s.add(Capture(id=CID, sha256="f" * 64, name="edges.pcap", size=1, format="pcap", status="done",
                      progress_bytes=1, uploaded_at=START, uploaded_by="alice"))
        s.flush()
        addresses = [h for h in hosts if not h.startswith("mac-")]
        s.execute(insert(Host), [{"capture_id": CID, "ip": h, "position": i} for i, h in enumerate(addresses)])
        owners: dict[str, tuple[str, ...]] = {}  # the entities Scan would store: an address's MACs are its device's
        for h, values in macs.items():
            for mac in values:
                owners[mac] = owners.get(mac, ()) + ((h,) if h in addresses else ())
        entities = build(addresses, {m: o for m, o in owners.items() if o}, {h for h in hosts if h.startswith("mac-")})
        s.execute(insert(Entity), [{"capture_id": CID, "key": e.key, "position": e.position, "ip": e.ip,
                                    "addresses": list(e.addresses), "macs": list(e.macs), "randomised": e.randomised}
                                   for e in entities])
        s.execute(insert(EntityMember), [{"capture_id": CID, "member": m, "entity_key": e.key}
                                         for e in entities for m in dict.fromkeys((e.key, *e.members))])
        facts = [{"capture_id": CID, "entity": h, "kind": "mac", "value": mac, "source": "link-identity",
                  "grade": "MEASURED", "first_frame": 1, "last_frame": 1, "count": 1, "first_time": 0.0,
                  "last_time": 0.0, "extractor": "link-identity", "extractor_version": "1"}
                 for h, values in macs.items() for mac in values]
        if facts:
            s.execute(insert(ObservationRow), facts)
        if talks:
            s.execute(insert(Conversation), [
                {"capture_id": CID, "proto": "udp", "src": a, "sport": 1000 + i, "dst": b, "dport": 53,
                 "first_time": 0.0, "last_time": 1.0, "first_frame": i + 1, "packets_fwd": 1, "bytes_fwd": n,
                 "packets_rev": 0, "bytes_rev": 0, "initiator": a} for i, (a, b, n) in enumerate(talks)])


def test_mac_sort_puts_each_host_once_by_its_first_mac_and_hosts_without_one_last(db):
    hosts = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "mac-8c-fe-57-00-00-01"]
    _store(db, hosts, {"10.0.0.1": ["02:00:00:00:00:09"], "10.0.0.2": ["02:00:00:00:00:05", "02:00:00:00:00:01"],
                       "mac-8c-fe-57-00-00-01": ["8c:fe:57:00:00:01"], "10.0.0.4": ["02:00:00:00:00:03"]}, [])
    registry = get_registry()
    with db.session() as s:
        rows = host_page(s, registry, CID, HostFilter(sort="mac"), offset=0, limit=10).rows
        # a device's row: its address, or a MAC-only device's key
        assert [r.ip or r.key for r in rows] == ["10.0.0.2", "10.0.0.4", "10.0.0.1", "mac-8c-fe-57-00-00-01", "10.0.0.3"]
        assert rows[0].macs == ["02:00:00:00:00:01", "02:00:00:00:00:05"]
        rows = host_page(s, registry, CID, HostFilter(sort="mac", desc=True), offset=1, limit=2).rows
        assert [r.ip for r in rows] == ["10.0.0.1", "10.0.0.4"]  # paged in the database, the order kept
        found = host_page(s, registry, CID, HostFilter(text="10.0.0", sort="mac"), offset=0, limit=10)
        assert found.total == 4 and [r.ip for r in found.rows] == ["10.0.0.2", "10.0.0.4", "10.0.0.1", "10.0.0.3"]


def test_talks_most_with_leaves_broadcast_and_multicast_out(db):
    me = "192.168.1.20"
    _store(db, [me, "192.168.1.1"], {}, [
        (me, "255.255.255.255", 9000), (me, "224.0.0.251", 8000), (me, "239.255.255.250", 7000),
        (me, "ff02::fb", 6500), (me, "192.168.1.255", 6000), (me, "192.168.1.1", 500), ("192.168.1.1", me, 400),
        (me, "mac-8c-fe-57-00-00-01", 100)])
    with db.session() as s:
        peers = neighbours(s, CID, me)
    assert [(p.ip, p.conversations, p.bytes) for p in peers] == [
        ("192.168.1.1", 2, 900), ("mac-8c-fe-57-00-00-01", 1, 100)]
    assert not is_group_address("mac-8c-fe-57-00-00-01") and is_group_address("ff02::1")
