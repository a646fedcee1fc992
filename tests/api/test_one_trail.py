"""One trail reader (`present/read/trail.py`): the API, the web panel and `tracepcap explain`
show the same human actions of a verdict, with the same sentences, including the actions
taken on another question this verdict follows (`via`)."""

from __future__ import annotations

import html
import json
import re

import httpx
from api_helpers import DNS_SERVER

from tracepcap.adjudicate.registry import get_registry

TRAIL_ITEM = re.compile(r'<li class="trail-item" data-action="([^"]+)">(.*?)</li>', re.S)
VIA = re.compile(r'<span class="trail-via">on (.*?)</span>', re.S)
CHANGE = re.compile(r'<span class="trail-change">(.*?)</span>', re.S)


def web_trail(api, cid: str, question: str, entity: str) -> list[tuple]:
    """The panel's trail items (action, change, via), oldest first (the panel lists them newest
    first)."""
    page = httpx.get(f"{api.url}/ui/captures/{cid}/hosts/{entity}/panels/{question}", timeout=30)
    assert page.status_code == 200, page.text
    items = []
    for action, body in TRAIL_ITEM.findall(page.text):
        via = VIA.search(body)
        items.append((action, html.unescape(CHANGE.search(body).group(1)), html.unescape(via.group(1)) if via else None))
    return items[::-1]


def test_the_api_the_panel_and_explain_show_the_same_trail(api, client, dns_capture, cli):
    registry = get_registry()
    follower = next(adj for adj in registry if adj.defers is not None)
    theirs = next(iter(follower.defers.labels))
    followed = f"/captures/{dns_capture}/adjudications/{follower.defers.question}/{DNS_SERVER}"
    mine = f"/captures/{dns_capture}/adjudications/{follower.question}/{DNS_SERVER}"
    assert client.put(f"{followed}/override", json={"label": theirs, "rationale": "in the CMDB"}).status_code == 200
    assert client.post(f"{mine}/evidence", json={"label": "Server", "weight": 20,
                                                 "reason": "racked in the server room"}).status_code == 201
    assert client.post(f"{mine}/dismissals", json={"label": "Printer", "reason": "no paper"}).status_code == 200
    assert client.delete(f"{followed}/override").status_code == 200

    for question in (follower.question, follower.defers.question):
        api_trail = [(e["action"], e["actor"], e["change"], e["via"])
                     for e in client.get(f"/captures/{dns_capture}/adjudications/{question}/{DNS_SERVER}/trail").json()]
        code, out, err = cli("explain", dns_capture, question, DNS_SERVER, "--json")
        assert code == 0, err
        cli_trail = [(e["action"], e["actor"], e["change"], e["via"]) for e in json.loads(out)["trail"]]
        assert api_trail == cli_trail  # the panel names the actor its own way ("unattributed" for system)
        assert [(action, change, via) for action, _, change, via in api_trail] == web_trail(
            api, dns_capture, question, DNS_SERVER)
        code, out, err = cli("explain", dns_capture, question, DNS_SERVER)
        assert all(change in out for _, _, change, _ in api_trail)  # the text lines say the same

    title = registry.get(follower.defers.question).title
    assert [(action, via) for action, _, _, via in api_trail] == [("override.set", None), ("override.cleared", None)]
    code, out, _ = cli("explain", dns_capture, follower.question, DNS_SERVER, "--json")
    followers = [(e["action"], e["via"]) for e in json.loads(out)["trail"]]
    assert followers == [("override.set", title), ("evidence.added", None), ("dismissal.added", None),
                         ("override.cleared", title)]
