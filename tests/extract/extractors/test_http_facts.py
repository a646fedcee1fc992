"""HTTP facts: User-Agent on the client, Server on the responder, Host on the host that
answered the request."""

from __future__ import annotations

from tracepcap.extract.extractors.http import Http, host_name
from tracepcap.limits import Limits
from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Scenario


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


def chunked(server: str, pieces: list[bytes], trailer: bytes = b"") -> bytes:
    head = f"HTTP/1.1 200 OK\r\nServer: {server}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
    body = b"".join(f"{len(p):x};ext=1\r\n".encode() + p + b"\r\n" for p in pieces)
    return head + body + b"0\r\n" + trailer + b"\r\n"


def keep_alive(net, client, server, port=50010):
    """Three requests on one connection, each answered: framed by Content-Length, by
    chunks (with a trailer), and a 304 without a body; segments of 100 bytes."""
    net.tcp_session(client, server, port, 80, segment=100, client=[
        app.http_request("GET", "/1", "one.example", "agent/1"),
        app.http_request("POST", "/2", "two.example", "agent/2", body=b"x" * 333),
        app.http_request("GET", "/3", "three.example", "agent/3")], server=[
        app.http_response(server="first/1", body=b"B" * 250),
        chunked("second/2", [b"C" * 150, b"D" * 70], trailer=b"X-Sum: 1\r\n"),
        app.http_response(304, "Not Modified", server="third/3")])


def test_every_request_and_response_of_a_keep_alive_connection(run, rows, manifest):
    net, client, server = pair()
    keep_alive(net, client, server)
    result = run(net, Http)
    found = {r[:4] for r in rows(result)}
    assert {r[2] for r in found if r[1] == "user-agent"} == {"agent/1", "agent/2", "agent/3"}
    assert {r[2] for r in found if r[1] == "http-server"} == {"first/1", "second/2", "third/3"}
    assert {r[2] for r in found if r[1] == "hostname-claim"} == {"one.example", "two.example", "three.example"}
    assert manifest(result, "http").status == "completed"


def test_pipelined_requests_in_one_segment(run, rows):
    net, client, server = pair()
    requests = b"".join(app.http_request("GET", f"/{n}", f"h{n}.example", f"pipe/{n}") for n in range(4))
    net.tcp_session(client, server, 50011, 80, client=[requests],
                    server=[b"".join(app.http_response(server="srv") for _ in range(4))])
    result = run(net, Http)
    assert {r[2] for r in rows(result, "user-agent")} == {f"pipe/{n}" for n in range(4)}
    assert {r[2] for r in rows(result, "hostname-claim")} == {f"h{n}.example" for n in range(4)}


def test_a_connection_picked_up_mid_stream(run, rows):
    net, client, server = pair()
    body = b"z" * 300
    # no handshake; the capture starts inside a response body, then a new exchange follows
    net.tcp_session(client, server, 50012, 80, handshake=False, segment=120,
                    client=[b"", app.http_request("GET", "/next", "mid.example", "late/1")],
                    server=[body[150:], app.http_response(server="mid-server", body=body)])
    result = run(net, Http)
    assert {r[2] for r in rows(result, "user-agent")} == {"late/1"}
    assert {r[2] for r in rows(result, "http-server")} == {"mid-server"}
    assert {r[2] for r in rows(result, "hostname-claim")} == {"mid.example"}


def test_out_of_order_segments_are_put_in_order(run, rows):
    net, client, server = pair()
    request = app.http_request("GET", "/", "ooo.example", "reordered/1", headers=[("X-Pad", "p" * 200)])
    net.tcp_session(client, server, 50013, 80, segment=60, reorder=True,
                    client=[app.http_request("GET", "/", "first.example", "first/1"), request],
                    server=[app.http_response(server="s"), app.http_response(server="s")])
    assert {r[2] for r in rows(run(net, Http), "user-agent")} == {"first/1", "reordered/1"}


def test_bounds_are_counted(run, rows, manifest):
    net, client, server = pair()
    long_head = app.http_request("GET", "/", "big.example", "big/1", headers=[("Cookie", "c" * 2000)])
    net.tcp_session(client, server, 50014, 80, client=[long_head + app.http_request("GET", "/", "after.example", "after/1")],
                    server=[app.http_response(server="s")])
    keep_alive(net, client, server, port=50015)
    result = run(net, Http, limits=Limits(http_header_bytes=1024, max_http_messages_per_direction=2))
    assert {r[2] for r in rows(result, "user-agent")} == {"agent/1", "agent/2"}
    assert manifest(result, "http").error == ("1 header blocks longer than 1024 bytes skipped; "
                                              "2 connection directions not read past 2 messages")


def test_tshark_reads_the_same_headers(run, rows, tmp_path):
    import subprocess
    net, client, server = pair()
    keep_alive(net, client, server)
    requests = b"".join(app.http_request("GET", f"/{n}", f"h{n}.example", f"pipe/{n}") for n in range(3))
    net.tcp_session(client, server, 50016, 80, client=[requests],
                    server=[b"".join(app.http_response(server=f"srv/{n}") for n in range(3))])
    path = net.write_pcap(tmp_path / "http.pcap")
    out = subprocess.run(["tshark", "-n", "-r", str(path), "-Y", "http", "-T", "fields", "-e", "http.host",
                          "-e", "http.user_agent", "-e", "http.server"], capture_output=True, text=True,
                         check=True).stdout
    seen = {field for line in out.splitlines() for part in line.split("\t") for field in part.split(",") if field}
    result = run(path, Http)
    ours = {r[2] for r in rows(result) if r[1] in ("hostname-claim", "user-agent", "http-server")}
    assert ours == seen and len(seen) == 18


def test_a_response_to_head_has_no_body_and_connect_opens_a_tunnel(run, rows):
    net, client, server = pair()
    head_answer = (b"HTTP/1.1 200 OK\r\nServer: head-srv\r\nContent-Length: 5000\r\n\r\n"
                   + app.http_response(server="after-head"))
    net.tcp_session(client, server, 50020, 80, client=[
        app.http_request("HEAD", "/", "h.example", "head/1") + app.http_request("GET", "/", "h.example", "get/1")],
        server=[head_answer])
    tunnel = b"HTTP/1.1 200 Connection established\r\n\r\n"
    inner = app.http_request("GET", "/", "inside.example", "inside/1")  # not the proxy's to read
    net.tcp_session(client, server, 50021, 3128, client=[
        app.http_request("CONNECT", "inside.example:443", "inside.example:443", "connect/1"), inner],
        server=[tunnel, app.http_response(server="inside-srv")])
    result = run(net, Http)
    assert {r[2] for r in rows(result, "http-server")} == {"head-srv", "after-head"}
    assert {r[2] for r in rows(result, "user-agent")} == {"head/1", "get/1", "connect/1"}
