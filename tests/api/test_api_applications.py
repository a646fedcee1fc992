"""Applications in a capture: packets and bytes by application from the stored
conversations, detected by payload where an `application-used` fact says so, else by the
well-known port, saying which, with the devices on either side."""

from __future__ import annotations

from api_helpers import assert_error
from sqlalchemy import func, select

from tracepcap.present.read.applications import classify, well_known_ports
from tracepcap.store.models import Conversation
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario


def test_payload_beats_port_and_says_which():
    ports = well_known_ports()
    payload = {("10.0.0.5", "tcp", 443): "SSH"}
    assert classify("tcp", "10.0.0.5", 50000, "10.0.0.9", 443, True, payload, ports) == (
        "SSH", "by payload", "tcp/443", True)
    assert classify("tcp", "10.0.0.6", 50000, "10.0.0.9", 443, True, payload, ports) == (
        "HTTPS", "by port", "tcp/443", True)
    # no handshake seen: the first sender may be the server; its port is the known one
    assert classify("udp", "10.0.0.9", 53, "10.0.0.6", 40000, False, {}, ports) == ("DNS", "by port", "udp/53", False)
    assert classify("tcp", "10.0.0.9", 53, "10.0.0.6", 40000, True, {}, ports) == (
        "other tcp", "unidentified", "tcp/40000", True)
    assert classify("icmp", "10.0.0.5", 0, "10.0.0.9", 0, False, {}, ports)[:2] == ("ICMP", "by protocol")


def test_applications_route(api, client, tmp_path):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    laptop = net.host("10.0.0.6", "00:1b:21:00:00:06")
    srv = net.host("10.0.0.9", "00:1b:21:00:00:09")
    net.tcp_session(pc, srv, 50001, 2222, client=[app.ssh_banner("OpenSSH_9.6p1")],
                    server=[app.ssh_banner("OpenSSH_9.6p1")])  # SSH on a port no table names
    net.tcp_session(pc, srv, 50002, 80, client=[app.http_request("GET", "/", "srv")],
                    server=[app.http_response(server="nginx")])
    net.tcp_session(laptop, srv, 50003, 80, client=[app.http_request("GET", "/a", "srv")],
                    server=[app.http_response(server="nginx")])
    net.tcp_session(laptop, srv, 50004, 22, client=[b"\x00" * 40], server=[b"\x00" * 40])  # port 22, no banner
    net.ping(pc, srv, count=2)
    net.udp(pc, srv, 40001, 40002, b"x" * 20)
    cid = api.analyzed(client, net.write_pcap(tmp_path / "apps.pcap"))

    response = client.get(f"/captures/{cid}/applications")
    assert response.status_code == 200, response.text
    rows = {(r["name"], r["detected"]): r for r in response.json()}
    assert response.headers["x-total-count"] == str(len(rows))
    assert set(rows) == {("SSH", "by payload"), ("HTTP", "by port"), ("SSH", "by port"), ("ICMP", "by protocol"),
                         ("other udp", "unidentified")}
    ssh = rows["SSH", "by payload"]
    assert ssh["ports"] == ["tcp/2222"] and ssh["conversations"] == 1 and ssh["client_count"] == 1
    http = rows["HTTP", "by port"]
    assert http["conversations"] == 2 and http["client_count"] == 2 and http["server_count"] == 1
    with api.db.session() as s:  # every stored conversation counted once, in one application
        stored = s.execute(select(func.sum(Conversation.packets_fwd + Conversation.packets_rev),
                                  func.sum(Conversation.bytes_fwd + Conversation.bytes_rev), func.count())
                           .where(Conversation.capture_id == cid)).one()
    assert (sum(r["packets"] for r in rows.values()), sum(r["bytes"] for r in rows.values()),
            sum(r["conversations"] for r in rows.values())) == tuple(stored)
    assert rows["ICMP", "by protocol"]["packets"] == 4
    listed = [r["bytes"] for r in response.json()]
    assert listed == sorted(listed, reverse=True)
    server = http["servers"][0]
    assert server in ssh["servers"] and set(http["clients"]) != {server}

    assert len(client.get(f"/captures/{cid}/applications", params={"limit": 2}).json()) == 2
    assert_error(client.get(f"/captures/{cid}/applications", params={"limit": 0}), 422)
    assert_error(client.get("/captures/ffffffffffff/applications"), 404)
