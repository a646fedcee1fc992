"""HTTP facts: User-Agent on the client, Server on the responder, Host on the host that
answered the request."""

from __future__ import annotations

from tracepcap.extract.extractors.http import Http, host_name
from tracepcap.extract.settings import Limits
from tracepcap.synth import app
from tracepcap.synth import frames as f
from tracepcap.synth.scenario import Scenario


def pair():
    net = Scenario()
    return (net, net.host("10.0.0.5", "00:1b:21:00:00:05"),
            net.host("10.0.0.80", "00:1b:21:00:00:50"))


def test_request_and_response(run, rows, manifest):
    net, client, server = pair()
    # frames 1-3 handshake, 4 request, 5 ACK, 6 response, 7 ACK, then FINs
    net.tcp_session(client, server, 50000, 8080,
                    client=[app.http_request("GET", "/", "intranet.corp.example:8080",
                                             "Mozilla/5.0 (X11; Linux x86_64)")],
                    server=[app.http_response(server="Apache/2.4.58 (Debian)", body=b"hi")])
    result = run(net, Http)
    assert rows(result) == {
        ("10.0.0.5", "user-agent", "Mozilla/5.0 (X11; Linux x86_64)", "http", 4, 4, 1),
        ("10.0.0.80", "http-server", "Apache/2.4.58 (Debian)", "http", 6, 6, 1),
        ("10.0.0.80", "served", "tcp/8080", "http", 6, 6, 1),  # it answered a request
        ("10.0.0.80", "hostname-claim", "intranet.corp.example", "http-host", 4, 4, 1)}
    assert manifest(result, "http").status == "completed"


def test_unanswered_request_claims_no_host(run, rows):
    net, client, server = pair()
    request = app.http_request("GET", "/", "ghost.example", "curl/8.5.0")
    net.emit(f.ethernet(client.mac, server.mac, f.ETH_IPV4, f.ipv4(
        client.ip, server.ip, 6, f.tcp(client.ip, server.ip, 50001, 80, 1000, 0, "PA", request))))
    assert rows(run(net, Http)) == {("10.0.0.5", "user-agent", "curl/8.5.0", "http", 1, 1, 1)}


def test_address_literal_hosts_are_left_out(run, rows):
    net, client, server = pair()
    requests = (app.http_request("GET", "/a", "10.0.0.80")
                + app.http_request("GET", "/b", "[2001:db8::1]:80"))
    net.tcp_session(client, server, 50002, 80, client=[requests], server=[app.http_response()])
    assert rows(run(net, Http), "hostname-claim") == set()


def test_pending_hosts_are_bounded(run, rows, manifest):
    net, client, server = pair()
    for port, name in ((50003, "one.example"), (50004, "two.example")):
        net.tcp_session(client, server, port, 80, client=[app.http_request("GET", "/", name)],
                        server=[app.http_response()])
    result = run(net, Http, limits=Limits(max_pending=1))
    assert {r[2] for r in rows(result, "hostname-claim")} == {"two.example"}
    assert manifest(result, "http").error == "1 entries evicted from a bounded table"


def test_host_name():
    assert host_name("www.example.com:8080") == "www.example.com"
    assert host_name("WWW.Example.com.") == "WWW.Example.com"
    assert host_name("192.0.2.1:80") is None
    assert host_name("[::1]:8080") is None
    assert host_name("::1") is None
    assert host_name("") is None and host_name(None) is None


def test_http_demo(run, rows, captures):
    # Checked in Wireshark: 42 one-request connections without handshakes; 10.0.0.10 asks
    # api.local (10.0.0.50, nginx/1.18.0, frames 1-18) and www.local (10.0.0.60,
    # Apache/2.4.41, frames 19-30); 10.0.0.11 asks victim.local (10.0.0.70, nginx, 31-84);
    # every request says User-Agent demo-client/1.0
    assert rows(run(captures / "http_demo.pcap", Http)) == {
        ("10.0.0.10", "user-agent", "demo-client/1.0", "http", 1, 29, 15),
        ("10.0.0.11", "user-agent", "demo-client/1.0", "http", 31, 83, 27),
        ("10.0.0.50", "hostname-claim", "api.local", "http-host", 1, 17, 9),
        ("10.0.0.50", "http-server", "nginx/1.18.0", "http", 2, 18, 9),
        ("10.0.0.50", "served", "tcp/80", "http", 2, 18, 9),  # no handshakes: the responses say it
        ("10.0.0.60", "hostname-claim", "www.local", "http-host", 19, 29, 6),
        ("10.0.0.60", "http-server", "Apache/2.4.41", "http", 20, 30, 6),
        ("10.0.0.60", "served", "tcp/80", "http", 20, 30, 6),
        ("10.0.0.70", "hostname-claim", "victim.local", "http-host", 31, 83, 27),
        ("10.0.0.70", "http-server", "nginx", "http", 32, 84, 27),
        ("10.0.0.70", "served", "tcp/80", "http", 32, 84, 27)}


def test_demo_all_rules(run, rows, manifest, captures):
    # Requests with Host headers (frames 1612-1630 "prod", 1638/1646 example.com, 1692
    # api.example.com, 1715/1737/1747/1754 target.example.com); 1651 names 10.10.0.2 by
    # address; no request carries a User-Agent and no response a Server header
    result = run(captures / "demo_all_rules.pcap", Http)
    assert rows(result) == {
        ("10.4.0.1", "hostname-claim", "prod", "http-host", 1612, 1630, 4),
        ("93.184.216.34", "hostname-claim", "example.com", "http-host", 1638, 1646, 2),
        ("203.0.113.51", "hostname-claim", "api.example.com", "http-host", 1692, 1692, 1),
        ("203.0.113.100", "hostname-claim", "target.example.com", "http-host", 1715, 1754, 4),
        # frame 1749 answers a request; frame 1720's "200 OK" comes from the SYN's sender
        # (192.168.100.10, port 59001), which answered nothing: no served fact for it
        ("203.0.113.100", "served", "tcp/80", "http", 1749, 1749, 1)}
    assert manifest(result, "http").status == "completed"
