"""A capture's notices through the API: counted by kind in the capture, listed with their
frame by `GET /api/captures/{cid}/notices`, paged and filtered by kind (issue 12)."""

from __future__ import annotations

import re

import httpx
from notice_traffic import DC, PC, odd_lan


def test_notices_are_counted_in_the_capture_and_listed_with_their_frames(api, client, tmp_path):
    cid = api.analyzed(client, odd_lan(tmp_path / "odd.pcap"))  # analyzed "done", not partial
    capture = client.get(f"/captures/{cid}").json()
    assert capture["notice_counts"] == {"dns-malformed": 1, "kerberos-truncated": 2}
    kerberos = next(row for row in capture["manifest"] if row["extractor"] == "kerberos")
    assert (kerberos["status"], kerberos["error"]) == ("completed", "2 notices (kerberos-truncated 2)")

    page = client.get(f"/captures/{cid}/notices", params={"limit": 2})
    assert page.status_code == 200 and page.headers["X-Total-Count"] == "3"
    assert [(n["kind"], n["entity"], n["frame"]) for n in page.json()] == [
        ("kerberos-truncated", PC, 2), ("dns-malformed", DC, 3)]
    assert page.json()[0]["text"] == "ber: truncated, need 137 bytes, have 17"  # the decoder's message

    rest = client.get(f"/captures/{cid}/notices", params={"offset": 2}).json()
    assert [n["frame"] for n in rest] == [4]
    dns = client.get(f"/captures/{cid}/notices", params={"kind": "dns-malformed"})
    assert dns.headers["X-Total-Count"] == "1" and [n["frame"] for n in dns.json()] == [3]
    assert client.get("/captures/ffffffffffffffff/notices").status_code == 404


def test_the_capture_page_lists_the_notices(api, client, tmp_path):
    cid = api.analyzed(client, odd_lan(tmp_path / "odd.pcap"))
    page = httpx.get(f"{api.url}/ui/captures/{cid}", headers={"HX-Request": "true"})
    assert page.status_code == 200, page.text
    section = page.text[page.text.index('id="notices-title"'):page.text.index('id="manifest-title"')]
    assert "Notices <span class=\"n\">3</span>" in section
    assert "<code>kerberos-truncated</code> <span class=\"n\">2</span>" in section
    assert re.search(rf'frame\s*<a class="frame-link" href="/captures/{cid}/frames/3"[^>]*>3</a>\s*</span> from {re.escape(DC)}: '
                     r'<span class="small">dns-name: malformed', section), section
