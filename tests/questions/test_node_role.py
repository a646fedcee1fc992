"""node-role: suggestions only until a human accepts them; accept, discard and
write-your-own through the CLI, attributed in the trail; stale when the facts move; and
host-identity deferring to a confirmed role."""

from __future__ import annotations

import json

from tracepcap.extract import pipeline
from tracepcap.extract.extractors.services import Services
from tracepcap.extract.kinds import INITIATED, MAC, SERVED, TTL
from tracepcap.scan.context import CaptureContext, Fact, Traffic
from tracepcap.scan.signals.node_role import domain_controller, gateway, jump_host, served_roles
from tracepcap.testing.scenario import Scenario


def fact(kind, value, frame=1, count=1):
    return Fact(kind.name, value, "services", kind.grade, frame, frame, count)


def votes(signal, facts, ip, traffic=None):
    ctx = CaptureContext("cap", facts, traffic or {}, sorted(facts))
    return [(v.label, v.weight, v.reason) for v in signal.vote(ctx.host(ip))]


def test_role_signals():
    dc = {"10.0.0.10": [fact(SERVED, "tcp/88", 40), fact(SERVED, "tcp/389", 44), fact(SERVED, "udp/53", 9)]}
    assert votes(domain_controller, dc, "10.0.0.10") == [
        ("Domain Controller", 70, "answers Kerberos on tcp/88 (frame 40) and LDAP on tcp/389 (frame 44) (+70)")]
    assert votes(served_roles, dc, "10.0.0.10") == [
        ("DNS Resolver", 40, "answers DNS on udp/53, first in frame 9 (+40)")]
    admin = {"10.0.0.99": [fact(INITIATED, "tcp/22", 7)]}
    traffic = {"10.0.0.99": Traffic(admin_targets={"10.0.0.1", "10.0.0.2", "10.0.0.3"})}
    assert votes(jump_host, admin, "10.0.0.99", traffic) == [
        ("Jump Host", 40, "opened SSH sessions to 3 hosts (+40)")]
    mac = "00:00:0c:9f:f0:01"
    routed = {"10.0.0.1": [fact(MAC, mac, 2, 30), fact(TTL, "255", 2, 30)],
              "203.0.113.1": [fact(MAC, mac, 5, 9), fact(TTL, "50", 5, 9)],
              "203.0.113.2": [fact(MAC, mac, 6, 9), fact(TTL, "51", 6, 9)]}
    assert votes(gateway, routed, "10.0.0.1") == [
        ("Default Gateway", 60, "its MAC 00:00:0c:9f:f0:01 carries 2 addresses that arrive hops away (+60)")]


def dc_capture(path):
    net = Scenario()
    dc = net.host("10.0.0.10", "00:25:90:3a:11:10")
    ws = net.host("10.0.0.21", "00:1b:21:4a:7e:21", ttl=128)
    net.tcp_session(ws, dc, 50001, 88, client=[b"\x00" * 40], server=[b"\x00" * 40])
    net.tcp_session(ws, dc, 50002, 389, client=[b"\x30\x0c"], server=[b"\x30\x0c"])
    return net.write_pcap(path)


def verdicts(cli, cid, question, ip):
    code, out = cli("explain", cid, question, ip, "--json")
    assert code == 0, out
    return json.loads(out)


def test_accept_then_stale_on_reanalysis(cli, analyze, tmp_path, monkeypatch):
    path = dc_capture(tmp_path / "dc.pcap")
    cid, hosts, _ = analyze(path)
    role = hosts["10.0.0.10"]["verdicts"]["node-role"]
    assert role["primary_label"] == "Domain Controller" and role["basis"] == "MACHINE"
    assert role["notes"] == ["a machine suggestion until a human accepts it"]
    assert hosts["10.0.0.10"]["verdicts"]["host-identity"]["primary_label"] == "Directory Server"

    code, out = cli("accept", cid, "node-role", "10.0.0.10", "--json")
    assert code == 0 and json.loads(out)["basis"] == "HUMAN"
    explained = verdicts(cli, cid, "host-identity", "10.0.0.10")
    assert explained["verdict"]["basis"] == "HUMAN"  # host-identity follows the confirmed role
    assert explained["verdict"]["notes"] == ["node-role confirmed by system as Domain Controller"]

    # re-analysis with an Extract that no longer sees the handshakes: the services are gone
    everything = pipeline.discover()
    monkeypatch.setattr(pipeline, "discover", lambda: [c for c in everything if c is not Services])
    _, hosts, _ = analyze(path)
    role = hosts["10.0.0.10"]["verdicts"]["node-role"]
    assert role["primary_label"] == "Domain Controller" and role["basis"] == "HUMAN"  # the human's label stays
    assert role["stale_since"]
    assert role["notes"] == ["stale: the facts beneath this answer moved since system gave it "
                             "(served tcp/389 gone, served tcp/88 gone)"]
    trail = verdicts(cli, cid, "node-role", "10.0.0.10")["trail"]
    assert [(e["action"], e["actor"]) for e in trail] == [("override.set", "system"), ("override.stale", "system")]
    assert trail[0]["after"]["rationale"] == "accepted suggestion"
    assert trail[1]["after"]["gone"] == [["served", "tcp/389"], ["served", "tcp/88"]]


def test_discard_and_write_your_own(cli, analyze, tmp_path):
    cid, _, _ = analyze(dc_capture(tmp_path / "dc.pcap"))
    code, out = cli("dismiss", cid, "node-role", "10.0.0.10", "Domain Controller",
                    "--reason", "lab box answering Kerberos for tests", "--json")
    verdict = json.loads(out)
    assert code == 0 and verdict["dismissed"] == ["Domain Controller"]
    assert verdict["primary_label"] == "Unknown"
    code, out = cli("override", cid, "node-role", "10.0.0.10", "Kerberos test lab",
                    "--rationale", "per the lab inventory", "--json")
    assert code == 0 and json.loads(out)["primary_label"] == "Kerberos test lab"
    trail = verdicts(cli, cid, "node-role", "10.0.0.10")["trail"]
    assert [e["action"] for e in trail] == ["dismissal.added", "override.set"]
    assert trail[1]["after"]["label"] == "Kerberos test lab" and trail[1]["at"]
    # a free-text role maps to no device type: host-identity keeps the machine's answer
    assert verdicts(cli, cid, "host-identity", "10.0.0.10")["verdict"]["basis"] == "MACHINE"


def test_nothing_to_accept(cli, analyze, tmp_path):
    cid, _, _ = analyze(dc_capture(tmp_path / "dc.pcap"))
    code, _ = cli("accept", cid, "node-role", "10.0.0.21")
    assert code == 2
