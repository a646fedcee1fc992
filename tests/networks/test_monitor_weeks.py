"""The shared monitor_large weeks 1, 2 and 4 of one office network, in one network: a human
answer on week 1's gateway and an accepted role on its file server are carried into weeks 2
and 4; week 4's gateway change and its new FTP server are change events; a synthetic later
week where the gateway answers from another MAC makes the carried answer stale, naming the
change. The weeks are analysed once per backend (module scope)."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine, text

from fake_actor import person
from tracepcap.adjudicate import annotations, networks
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Basis, Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.adjudicate.runner import stored_verdict
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.present.read import networks as read
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.testing.scenario import Scenario


WEEKS = ("monitor_large_week1_baseline.pcap", "monitor_large_week2_personal_laptop_vpn.pcap",
         "monitor_large_week4_ftp_exfil_gateway_change.pcap")
GATEWAY, FILE_SERVER, GATEWAY_MAC = "10.0.1.1", "10.0.2.10", "00:aa:bb:cc:dd:01"
ALICE, BOB = person("alice"), person("bob")


def postgres_url() -> str:  # as tests/conftest.py: the local server unless TRACEPCAP_TEST_POSTGRES_URL says
    return os.environ.get("TRACEPCAP_TEST_POSTGRES_URL") or "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def office(request, tmp_path_factory, captures):
    """(db, settings, network id, [week1, week2, week4 capture ids]) with week 1's answers given."""
    tmp = tmp_path_factory.mktemp(f"monitor-{request.param}")
    admin = schema = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp / 'tracepcap.sqlite3'}"
    else:
        schema, admin = f"t_{uuid.uuid4().hex[:12]}", create_engine(postgres_url())
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = f"{postgres_url()}{'&' if '?' in postgres_url() else '?'}options=-csearch_path%3D{schema}"
    settings = Settings(data_dir=tmp / "data", database_url=url)
    db = open_database(url)
    with db.session(write=True) as s:
        network_id = networks.create_network(s, "office", actor=SYSTEM_ACTOR).id
    ids = []
    for name in WEEKS:
        with db.session(write=True) as s:
            capture, _ = store_file(s, settings.capture_dir, captures / name, uploaded_by="system", max_bytes=1 << 30)
            networks.attach(s, networks.find_network(s, network_id), capture.id, actor=SYSTEM_ACTOR)
            ids.append(capture.id)
        assert analyze(db, settings, ids[-1]) == "done"
    registry = get_registry()
    with db.session(write=True) as s:
        annotations.set_override(s, registry, Key("host-identity", ids[0], GATEWAY), "Router",
                                 "the office's default gateway", actor=ALICE)
    with db.session(write=True) as s:
        annotations.accept(s, registry, Key("node-role", ids[0], FILE_SERVER), actor=BOB)
    yield db, settings, network_id, ids
    db.dispose()
    if admin is not None:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def verdict(db, capture, question, entity):
    with db.session() as s:
        return stored_verdict(s, Key(question, capture, entity))


def test_week_1_answers_are_carried_into_weeks_2_and_4(office):
    db, _, _, (w1, w2, w4) = office
    for later in (w2, w4):
        gw = verdict(db, later, "host-identity", GATEWAY)
        assert (gw.primary_label, gw.basis, gw.override.actor) == ("Router", Basis.HUMAN, "alice")
        assert any(n.startswith("carried from monitor_large_week1_baseline.pcap") for n in gw.notes)
        role = verdict(db, later, "node-role", FILE_SERVER)
        assert (role.primary_label, role.override.actor, role.override.rationale) == (
            "File Server", "bob", annotations.ACCEPTED)
        assert any(n.startswith("carried from monitor_large_week1_baseline.pcap") for n in role.notes)
    assert not verdict(db, w2, "node-role", FILE_SERVER).stale_since
    # week 4's file server also answers telnet: the accepted role is stale there, and says why
    stale = verdict(db, w4, "node-role", FILE_SERVER)
    assert stale.stale_since and stale.primary_label == "File Server"
    assert any(n.startswith("stale since monitor_large_week4") and "tcp/23 new (frame" in n for n in stale.notes)


def test_week_4_gateway_change_and_new_ftp_server_are_change_events(office):
    db, _, network_id, (w1, w2, w4) = office
    with db.session() as s:
        events = read.change_documents(s, network_id)
    into_4 = [e for e in events if e.capture_id == w4]
    gateway = [e for e in events if e.kind == "gateway-changed"]
    assert [e.capture_id for e in gateway] == [w4]
    assert "198.51.100.1" in gateway[0].summary and "203.0.113.1" in gateway[0].summary
    assert gateway[0].severity == "high" and gateway[0].frames
    ftp = [e for e in into_4 if e.kind == "new-service" and "tcp/21" in e.summary]
    assert [e.entity_key for e in ftp] == ["192.0.2.99"] and ftp[0].frames
    assert any(e.kind == "new-cleartext-login" and "ftp" in e.summary for e in into_4)
    assert any(e.kind == "new-tunnel" and e.capture_id == w2 and "wireguard" in e.summary for e in events)


def test_a_later_week_where_the_gateway_changed_mac_makes_the_carried_answer_stale(office, tmp_path):
    db, settings, network_id, (w1, w2, w4) = office
    with db.session() as s:
        last = max(c.first_time for c in networks.ordered_captures(s, network_id))
    sc = Scenario(start=last + 7 * 24 * 3600)
    new_mac = "00:aa:bb:cc:dd:99"
    gateway, client = sc.host(GATEWAY, new_mac), sc.host("10.0.1.10", "ac:de:48:11:11:01")
    sc.arp_exchange(client, gateway)
    sc.ping(client, gateway)
    sc.tcp_session(client, sc.host("198.51.100.1", via=gateway), 40000, 443)
    path = sc.write_pcap(tmp_path / "week5-gateway-mac.pcap")
    with db.session(write=True) as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="system", max_bytes=1 << 30)
        networks.attach(s, networks.find_network(s, network_id), capture.id, actor=SYSTEM_ACTOR)
        w5 = capture.id
    try:
        assert analyze(db, settings, w5) == "done"
        gw = verdict(db, w5, "host-identity", GATEWAY)
        assert gw.primary_label == "Router" and gw.basis == Basis.HUMAN and gw.stale_since
        note = next(n for n in gw.notes if n.startswith("stale since week5-gateway-mac.pcap"))
        assert f"{new_mac} new (frame" in note and f"{GATEWAY_MAC} gone" in note
        # a new MAC is a new device key: the answer followed the gateway's address, and says so
        assert any(n.startswith("carried from") and f"matched by the same primary address {GATEWAY}" in n
                   for n in gw.notes)
        with db.session() as s:
            events = read.change_documents(s, network_id, w5)
        assert any(e.kind == "address-moved" and e.entity_key == GATEWAY and new_mac in e.summary
                   for e in events)
    finally:
        with db.session(write=True) as s:
            networks.remove_capture(s, get_registry(), networks.find_network(s, network_id), w5, actor=SYSTEM_ACTOR)


def test_the_weeks_against_the_network_history_rank_what_matters_and_fold_the_churn(office):
    """Issue 27 on the real weeks: the planted changes are high in their week, week 1's IMAP
    login coming back in week 4 is "returned" (low), the workstations' churn and SMB use are
    one low event each, and no week shows more than 15 top-level (high or medium) events."""
    db, _, network_id, (w1, w2, w4) = office
    with db.session() as s:
        events = read.change_documents(s, network_id)
    week = {w1: [], w2: [], w4: []}
    for e in events:
        week[e.capture_id].append(e)
    assert week[w1] == []

    def high(cid, kind, *texts):
        return [e for e in week[cid] if e.kind == kind and e.severity == "high"
                and all(t in e.summary for t in texts)]
    assert high(w2, "new-tunnel", "10.0.4.20", "wireguard")
    assert high(w4, "gateway-changed") and high(w4, "new-cleartext-login", "ftp")
    assert high(w4, "new-cleartext-login", "telnet") and high(w4, "new-application", "10.0.4.20", "BitTorrent DHT")
    imap = [e for e in week[w4] if "imap" in e.summary.lower()]
    assert imap and {(e.kind, e.severity) for e in imap} == {("returned", "low")}
    for cid in (w2, w4):
        top = [e for e in week[cid] if e.severity in ("high", "medium")]
        assert len(top) <= 15, [e.summary for e in top]
        churn = [e for e in week[cid] if e.kind in ("device-disappeared", "device-appeared")
                 and e.severity == "low"]
        assert len(churn) <= 2 and all(len(e.detail["devices"]) > 1 for e in churn)
