"""An eight-week series of one office, built in code, as the independent check describes it:
telnet served and used, BitTorrent, an FTP exfiltration with a gateway change, a shadow device
spoofing ARP, a traffic peak, the gateway changing back, and a human answer changed. Each is a
change event in the week it happens (and not in the others), with week 1's human answer
carried throughout. SQLite and PostgreSQL (the office fixture)."""

from __future__ import annotations

from dataclasses import replace

from fake_actor import person
from support.office_weeks import BASE, ROUTER, Week

from tracepcap.adjudicate import annotations, networks
from tracepcap.adjudicate.contract import Basis, Key
from tracepcap.adjudicate.networks.changes import PEAK_FLOOR
from tracepcap.adjudicate.runner import stored_verdict
from tracepcap.present.read import networks as read
from tracepcap.store.entities import resolve

ALICE, BOB = person("alice"), person("bob")
GW, DESK, TILL, SERVER, LAPTOP = ROUTER[0], "10.9.0.10", "10.9.0.11", "10.9.0.20", "10.9.0.30"
OTHER_UPSTREAM, FTP_SITE, PEER = "203.0.113.9", "203.0.113.50", "192.0.2.66"
EXFIL = PEAK_FLOOR + 2_000_000  # bytes: over the floor, and far over the week before


def telnet_login(sc, hosts, router, upstream):
    """The desk logs into the server's telnet (the server answers on tcp/23)."""
    sc.tcp_session(hosts[DESK], hosts[SERVER], 40900, 23, client=[b"operator\r\n", b"s3cret\r\n"],
                   server=[b"login: ", b"Password: "])


def bittorrent(sc, hosts, router, upstream):
    """The till joins a swarm: a peer-wire handshake to tcp/6881 and a DHT ping on udp/6881."""
    peer = sc.host(PEER, via=router)
    handshake = b"\x13BitTorrent protocol" + bytes(8) + bytes(range(20)) + b"-TR3000-" + bytes(12)
    sc.tcp_session(hosts[TILL], peer, 51413, 6881, client=[handshake], server=[handshake])
    sc.udp(hosts[TILL], peer, 51413, 6881, b"d1:ad2:id20:" + bytes(20) + b"e1:q4:ping1:t2:aa1:y1:qe")
    sc.udp(peer, hosts[TILL], 6881, 51413, b"d1:rd2:id20:" + bytes(20) + b"e1:t2:aa1:y1:re")


def ftp_exfiltration(sc, hosts, router, upstream):
    """The desk logs into an outside FTP site and uploads far more than it ever moved."""
    site = sc.host(FTP_SITE, via=router)
    sc.tcp_session(hosts[DESK], site, 40700, 21, client=[b"USER backup\r\nPASS hunter2\r\nSTOR dump.tar\r\n"],
                   server=[b"220 ready\r\n"])
    sc.tcp_session(hosts[DESK], site, 40701, 50000, client=[bytes(EXFIL)], segment=60000)


def laptop_peak(sc, hosts, router, upstream):
    """The laptop sends a large upload to the usual upstream: a peak against its own last week."""
    sc.tcp_session(hosts[LAPTOP], upstream, 40800, 443, client=[bytes(EXFIL)], segment=60000)


def events_by_week(office, ids):
    with office.db.session() as s:
        events = read.change_documents(s, networks.find_network(s, "site").id)
    week = {cid: n for n, cid in enumerate(ids)}
    return [(week[e.capture_id], e) for e in events]


def test_eight_office_weeks_each_change_in_its_week(office):
    office.network("site")
    weeks = [Week(BASE),
             Week(BASE, extra=[telnet_login]),
             Week(BASE, extra=[bittorrent]),
             Week(BASE, upstream=OTHER_UPSTREAM, extra=[ftp_exfiltration]),
             Week(BASE, upstream=OTHER_UPSTREAM, spoof=(TILL, "66:66:66:00:00:01")),
             Week(BASE, upstream=OTHER_UPSTREAM, extra=[laptop_peak]),
             Week(BASE),  # the gateway changes back
             Week(BASE)]
    ids = [office.add("site", n, w) for n, w in enumerate(weeks[:1])]
    office.act(lambda s, r: annotations.set_override(s, r, Key("host-identity", ids[0], GW), "Router",
                                                     "the office's gateway", actor=ALICE))
    ids += [office.add("site", n, w) for n, w in enumerate(weeks[1:], start=1)]
    office.act(lambda s, r: annotations.set_override(s, r, Key("host-identity", ids[7], GW), "Firewall",
                                                     "replaced by a firewall", actor=BOB))
    with office.db.session() as s:
        desk, till, server, laptop = (resolve(s, ids[1], a) for a in (DESK, TILL, SERVER, LAPTOP))
        carried = [stored_verdict(s, Key("host-identity", cid, GW)) for cid in ids[1:7]]
    assert all((v.primary_label, v.basis, v.override.actor) == ("Router", Basis.HUMAN, "alice") for v in carried)
    events = events_by_week(office, ids)

    def weeks_of(kind, entity=None, text=""):
        return sorted({n for n, e in events if e.kind == kind and (entity is None or e.entity_key == entity)
                       and text in e.summary})

    # week 2: telnet served and used, with its login
    assert weeks_of("new-service", server, "tcp/23") == [1]
    assert weeks_of("new-application", desk, "telnet") == [1]
    assert weeks_of("new-cleartext-login", desk, "telnet") == [1]
    # week 3: BitTorrent, peer wire and DHT
    assert weeks_of("new-application", till, "BitTorrent (tcp/6881)") == [2]
    assert weeks_of("new-application", till, "BitTorrent DHT (udp/6881)") == [2]
    # week 4: an FTP login and upload to an outside site (a traffic peak), and the gateway change
    assert weeks_of("new-cleartext-login", desk, "ftp") == [3]
    assert weeks_of("new-application", desk, "FTP") == [3]
    assert weeks_of("traffic-peak", desk) == [3]
    peak = next(e for n, e in events if e.kind == "traffic-peak" and e.entity_key == desk)
    assert FTP_SITE in peak.summary and "≥10×" in peak.summary and peak.frames
    assert peak.detail["peer"] == FTP_SITE and peak.detail["sent"] >= EXFIL and peak.severity == "high"
    # week 5: a shadow device claims the till's address by ARP
    assert weeks_of("address-moved", TILL, "66:66:66:00:00:01") == [4]
    # (the shadow's MAC joins the device whose address it claims; a MAC owning no address at all
    # would be a device-appeared of its own)
    assert weeks_of("new-finding", till, "66:66:66:00:00:01") == [4]
    # week 6: the laptop's peak against its own previous week
    assert weeks_of("traffic-peak", laptop) == [5]
    # week 3 and week 7: the gateway changes, and changes back
    assert weeks_of("gateway-changed") == [3, 6]
    back = next(e for n, e in events if n == 6 and e.kind == "gateway-changed")
    assert f"{OTHER_UPSTREAM}" in back.summary and "198.51.100.7" in back.summary
    # week 8: a human answers the gateway anew: the answer changed, a human's
    answered = [e for n, e in events if n == 7 and e.kind == "answer-changed"]
    gateway = resolve_key(office, ids[7], GW)
    assert [(e.entity_key, e.detail["was"], e.detail["now"], e.detail["human"]) for e in answered
            if e.detail["question"] == "host-identity"] == [(gateway, "Router", "Firewall", True)]
    # nothing of the kinds above in the quiet weeks
    assert {n for n, e in events if e.kind in ("new-application", "traffic-peak", "new-cleartext-login")} <= {
        1, 2, 3, 5}


def resolve_key(office, capture, name):
    with office.db.session() as s:
        return resolve(s, capture, name)


def test_a_human_answer_changed_later_is_an_answer_change_and_a_machine_change_under_it_too(office):
    """The effective answer counts: a human answer moving from one week to the next is an answer
    change even where the machine's own answer did not move."""
    office.network("site")
    w0 = office.add("site", 0, Week(BASE))
    w1 = office.add("site", 1, Week(BASE))
    office.act(lambda s, r: annotations.set_override(s, r, Key("host-identity", w0, SERVER), "NAS",
                                                     "on the shelf", actor=ALICE))
    with office.db.session() as s:
        network = networks.find_network(s, "site")
        assert not [e for e in read.change_documents(s, network.id) if e.kind == "answer-changed"]
    office.act(lambda s, r: annotations.set_override(s, r, Key("host-identity", w1, SERVER), "Backup Server",
                                                     "it is the backup box", actor=BOB))
    with office.db.session() as s:
        changed = [e for e in read.change_documents(s, networks.find_network(s, "site").id)
                   if e.kind == "answer-changed"]
        server = resolve(s, w1, SERVER)
    assert [(e.entity_key, e.capture_id, e.detail["was"], e.detail["now"]) for e in changed] == [
        (server, w1, "NAS", "Backup Server")]
    assert "a human's answer here" in changed[0].summary


def test_a_quiet_device_waking_up_is_not_a_peak(office):
    """Below the floor no growth is a peak; over it, against the device's own last week."""
    office.network("site")
    small = [replace(d, serves=(445, 8080)) if d.ip == SERVER else d for d in BASE]
    office.add("site", 0, Week(BASE))
    office.add("site", 1, Week(small))
    with office.db.session() as s:
        events = read.change_documents(s, networks.find_network(s, "site").id)
    assert not [e for e in events if e.kind == "traffic-peak"]


def test_the_network_page_lists_the_first_changes_of_a_week_and_counts_the_rest(office, monkeypatch):
    from tracepcap.present.web import networks as page
    office.network("site")
    office.add("site", 0, Week(BASE))
    w1 = office.add("site", 1, Week(BASE, upstream=OTHER_UPSTREAM, spoof=(TILL, "66:66:66:00:00:01"),
                                     extra=[telnet_login]))
    monkeypatch.setattr(page, "STEP_SHOWN", 2)
    with office.db.session() as s:
        network = networks.find_network(s, "site")
        listed = read.change_documents(s, network.id, w1, severities=("high", "medium"))
        (step,) = page.network_context(s, network)["timeline"]
    assert len(listed) > 2
    assert [e.id for e in step["events"]] == [e.id for e in listed[:2]] and step["more"] == len(listed) - 2
