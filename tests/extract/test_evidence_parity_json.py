"""The facts of the evidence-parity work reach `tracepcap analyze --json` with their
witness: a QUIC server name, a zone a host serves, a later request on a keep-alive
connection."""

from __future__ import annotations

import json

from support.cli import run_cli, sqlite_store

from tracepcap.present.cli import ExitCode
from tracepcap.testing import app, quic as q, tls, zones as z
from tracepcap.testing.scenario import Scenario


def test_new_facts_in_the_json_document(tmp_path):
    net = Scenario()
    client = net.host("10.0.0.5", "02:00:00:00:00:05")
    server = net.host("10.0.0.80", "02:00:00:00:00:80")
    primary = net.host("10.0.0.53", "02:00:00:00:00:53")
    hello = tls.tls_client_hello("quic.example.net", version=tls.TLS12, alpn=("h3",),
                                 supported_versions=(0x0304,))[5:]
    net.udp(client, server, 50000, 443, q.client_initial(b"\x07" * 8, q.crypto_frame(0, hello)))  # 1
    net.udp(primary, server, 40000, 53, z.notify(1, "corp.example", serial=7))  # 2
    net.tcp_session(client, server, 50001, 80, client=[  # 3-5 handshake, 6 first request
        app.http_request("GET", "/1", "first.example", "agent/1"),
        app.http_request("GET", "/2", "second.example", "agent/2")],
        server=[app.http_response(server="srv/1"), app.http_response(server="srv/2")])
    path = net.write_pcap(tmp_path / "parity.pcap")
    code, out, _ = run_cli("analyze", path, "--json", db=sqlite_store(tmp_path), data_dir=tmp_path / "data")
    assert code == ExitCode.OK
    facts = {(h["ip"], f["kind"], f["value"], f["source"]): (f["first_frame"], f["count"])
             for h in json.loads(out)["hosts"] for f in h["facts"]}
    assert facts[("10.0.0.5", "tls-sni", "quic.example.net", "quic")] == (1, 1)
    assert facts[("10.0.0.53", "dns-zone", "corp.example", "dns-notify")] == (2, 1)
    assert facts[("10.0.0.5", "user-agent", "agent/2", "http")][1] == 1
    assert facts[("10.0.0.80", "hostname-claim", "second.example", "http-host")][1] == 1
