"""node-role: suggestions only until a human accepts them; accept, discard and write-your-own
through the CLI, attributed in the trail; stale when the facts move; and host-identity
deferring to a confirmed role (the signals alone: tests/scan/signals/node_role/)."""

from __future__ import annotations

import json

from tracepcap.extract import persist, pipeline
from tracepcap.extract.extractors.services import Services
from tracepcap.testing.scenario import Scenario


def dc_capture(path):
    net = Scenario()
    dc = net.host("10.0.0.10", "00:25:90:3a:11:10")
    ws = net.host("10.0.0.21", "00:1b:21:4a:7e:21", ttl=128)
    net.tcp_session(ws, dc, 50001, 88, client=[b"\x00" * 40], server=[b"\x00" * 40])
    net.tcp_session(ws, dc, 50002, 389, client=[b"\x30\x0c"], server=[b"\x30\x0c"])
    return net.write_pcap(path)


def verdicts(cli, cid, question, ip):
    code, out, _ = cli("explain", cid, question, ip, "--json")
    assert code == 0, out
    return json.loads(out)


def test_accept_then_stale_on_reanalysis(cli, analyze, tmp_path, monkeypatch):
    path = dc_capture(tmp_path / "dc.pcap")
    cid, hosts, _ = analyze(path)
    role = hosts["10.0.0.10"]["verdicts"]["node-role"]
    assert role["primary_label"] == "Domain Controller" and role["basis"] == "MACHINE"
    assert role["notes"] == ["a machine suggestion until a human accepts it",
                             "confidence held at 75: one signal alone supports this answer"]
    assert hosts["10.0.0.10"]["verdicts"]["host-identity"]["primary_label"] == "Directory Server"

    code, out, _ = cli("accept", cid, "node-role", "10.0.0.10", "--json")
    assert code == 0 and json.loads(out)["basis"] == "HUMAN"
    explained = verdicts(cli, cid, "host-identity", "10.0.0.10")
    assert explained["verdict"]["basis"] == "HUMAN"  # host-identity follows the confirmed role
    assert explained["verdict"]["notes"] == ["node-role confirmed by system as Domain Controller"]

    # re-analysis with an Extract that no longer sees the handshakes: the services are gone
    # (handed to the walk as its extractor list: a compiled walk calls its own `discover`)
    without_services = [c for c in pipeline.discover() if c is not Services]
    walk = persist.extract
    monkeypatch.setattr(persist, "extract", lambda *args, **kwargs: walk(*args, classes=without_services, **kwargs))
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
    code, out, _ = cli("dismiss", cid, "node-role", "10.0.0.10", "Domain Controller",
                    "--reason", "lab box answering Kerberos for tests", "--json")
    verdict = json.loads(out)
    assert code == 0 and verdict["dismissed"] == ["Domain Controller"]
    assert verdict["primary_label"] == "Unknown"
    code, out, _ = cli("override", cid, "node-role", "10.0.0.10", "Kerberos test lab",
                    "--rationale", "per the lab inventory", "--json")
    assert code == 0 and json.loads(out)["primary_label"] == "Kerberos test lab"
    trail = verdicts(cli, cid, "node-role", "10.0.0.10")["trail"]
    assert [e["action"] for e in trail] == ["dismissal.added", "override.set"]
    assert trail[1]["after"]["label"] == "Kerberos test lab" and trail[1]["at"]
    # a free-text role maps to no device type: host-identity keeps the machine's answer
    assert verdicts(cli, cid, "host-identity", "10.0.0.10")["verdict"]["basis"] == "MACHINE"


def test_nothing_to_accept(cli, analyze, tmp_path):
    cid, _, _ = analyze(dc_capture(tmp_path / "dc.pcap"))
    code, _, _ = cli("accept", cid, "node-role", "10.0.0.21")
    assert code == 2
