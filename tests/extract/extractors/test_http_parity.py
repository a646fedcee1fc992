"""HTTP facts Zeek's http.log has and the extractor missed (issue 23 item 10): requests
after bytes that are not HTTP, unregistered methods, responses read before their
requests, and a request after a body its head did not frame."""

from __future__ import annotations

import zlib

from tracepcap.extract.decoders import http
from tracepcap.extract.extractors.http import Http
from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing.scenario import Scenario


def pair():
    net = Scenario()
    return (net, net.host("10.0.0.5", "00:1b:21:00:00:05"),
            net.host("10.0.0.80", "00:1b:21:00:00:50"))


def agents(result):
    return {o.value for o in result.observations if o.kind == "user-agent"}


def servers(result):
    return {o.value for o in result.observations if o.kind == "http-server"}


def hosts(result):
    return {o.value for o in result.observations if o.kind == "hostname-claim"}


def test_a_request_after_lines_that_are_not_http_in_the_same_segment(run, rows):
    """A keep-alive connection whose second client turn begins with a stray line (cruft a
    client wrote after its first request) and then holds the next request: Zeek's
    line-by-line reader skips the line and logs the request."""
    net, client, server = pair()
    # 1-3 handshake, 4 request, 5 ACK, 6 response, 7 ACK, 8 the cruft and the request
    net.tcp_session(client, server, 50000, 80,
                    client=[app.http_request("GET", "/1", "one.example", "agent/1"),
                            b"\x00\x01not http at all\r\n"
                            + app.http_request("GET", "/2", "two.example", "agent/2")],
                    server=[app.http_response(server="srv/1"), app.http_response(server="srv/2")])
    result = run(net, Http)
    assert ("10.0.0.5", "user-agent", "agent/2", "http", 8, 8, 1) in rows(result)
    assert hosts(result) == {"one.example", "two.example"}
    assert servers(result) == {"srv/1", "srv/2"}


def test_empty_lines_before_a_request(run, rows):
    """RFC 9112 2.2: empty lines before a request line are skipped, also at the very start
    of a connection."""
    net, client, server = pair()
    net.tcp_session(client, server, 50001, 80,
                    client=[b"\r\n" + app.http_request("GET", "/", "a.example", "agent/a"),
                            b"\r\n\r\n" + app.http_request("GET", "/b", "b.example", "agent/b")],
                    server=[app.http_response(server="srv/a"), app.http_response(server="srv/b")])
    result = run(net, Http)
    assert agents(result) == {"agent/a", "agent/b"} and hosts(result) == {"a.example", "b.example"}


def test_unregistered_request_methods(run, rows):
    """Zeek logs any method token (methods.pcap: CCM_POST); the request line must end with
    an HTTP version for an unregistered one."""
    net, client, server = pair()
    net.tcp_session(client, server, 50002, 80,
                    client=[app.http_request("CCM_POST", "/", "ccm.example", "agent/ccm")],
                    server=[app.http_response(405, "Method Not Allowed", server="srv/ccm")])
    net.tcp_session(client, server, 50003, 80,  # a keep-alive connection: the second is unusual
                    client=[app.http_request("GET", "/", "get.example", "agent/get"),
                            app.http_request("RPC_IN_DATA", "/rpc/rpcproxy.dll", "rpc.example",
                                             "MSRPC", body=b"x" * 10)],
                    server=[app.http_response(server="srv/get"), app.http_response(server="srv/rpc")])
    result = run(net, Http)
    assert agents(result) == {"agent/ccm", "agent/get", "MSRPC"}
    assert hosts(result) == {"ccm.example", "get.example", "rpc.example"}


def test_other_protocols_commands_are_not_requests(run):
    """An upper-case command without an HTTP version is not a request: SMTP's EHLO and the
    message DATA carries (whose header block ends with an empty line) claim nothing."""
    net, client, server = pair()
    message = b"From: a@example.com\r\nUser-Agent: Thunderbird/115.0\r\n\r\nhello\r\n.\r\n"
    net.tcp_session(client, server, 50004, 25,
                    client=[b"EHLO client.example\r\n", b"MAIL FROM:<a@example.com>\r\n", b"DATA\r\n", message],
                    server=[b"220 mx ESMTP\r\n", b"250 ok\r\n", b"354 go\r\n", b"250 queued\r\n"])
    result = run(net, Http)
    assert agents(result) == set() and hosts(result) == set()
    assert not any(n.kind.startswith("http") for n in result.notices)


def test_method_tokens():
    assert http.start_line_ok(b"CCM_POST / HTTP/1.1\r")
    assert http.start_line_ok(b"VERSION-CONTROL /doc HTTP/1.1")
    assert not http.start_line_ok(b"EHLO client.example")
    assert not http.start_line_ok(b"A001 LOGIN user pass")
    assert not http.start_line_ok(b"get / HTTP/1.1")  # methods are case-sensitive (RFC 9110 9.1)
    assert http.starts_http(b"\r\nGET / HTTP/1.1\r\n")
    assert http.starts_http(b"CCM_POST / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert not http.starts_http(b"CCM_POST / HTTP/1.1")  # its line may not be a request line yet
    assert [m.method for m in http.messages(app.http_request("CCM_POST", "/", "a"))] == ["CCM_POST"]


def _segment(net, src, dst, sport, dport, seq, data):
    net._send(src, dst, f.PROTO_TCP, f.tcp(src.ip, dst.ip, sport, dport, seq, 1, "PA", data))


def test_responses_read_before_their_requests(run, rows):
    """Pipelined responses whose requests were not read first (the capture began after they
    were sent): a HEAD's answer promises a body that never comes, and the next response
    is still read."""
    net, client, server = pair()
    head_answer = app.http_response(server="srv/head", body=b"").replace(
        b"Content-Length: 0", b"Content-Length: 5000")
    answers = (app.http_response(server="srv/1", body=b"first") + head_answer
               + app.http_response(404, "Not Found", server="srv/3", body=b"gone"))
    _segment(net, server, client, 80, 50005, 7000, answers)  # frame 1
    result = run(net, Http)
    assert servers(result) == {"srv/1", "srv/head", "srv/3"}
    assert ("10.0.0.80", "served", "tcp/80", "http", 1, 1, 3) in rows(result)


def test_a_response_that_overtakes_its_request_leaves_the_next_answers_in_step(run, rows):
    """The server answers a POST while the client is still uploading it, and its answer is
    read before the POST's head (that segment waited on a retransmission); the HEAD that
    follows the upload is answered without a body, and the answer after it is read."""
    net, client, server = pair()
    post = app.http_request("POST", "/up", "up.example", "agent/up", body=b"x" * 600)
    head = app.http_request("HEAD", "/h", "up.example", "agent/up")
    get = app.http_request("GET", "/g", "up.example", "agent/up")
    too_large = app.http_response(413, "Payload Too Large", server="srv/413", body=b"no")
    head_answer = app.http_response(server="srv/head", body=b"").replace(
        b"Content-Length: 0", b"Content-Length: 999")
    get_answer = app.http_response(server="srv/get", body=b"g" * 20)
    c, s = 1000, 9000
    _segment(net, client, server, 50006, 80, c + 300, post[300:])  # 1: waits on the bytes before it
    _segment(net, server, client, 80, 50006, s, too_large)  # 2: the answer overtakes the POST's head
    _segment(net, client, server, 50006, 80, c, post[:300])  # 3: the retransmitted head
    c += len(post)
    _segment(net, client, server, 50006, 80, c, head + get)  # 4
    s += len(too_large)
    _segment(net, server, client, 80, 50006, s, head_answer + get_answer)  # 5
    result = run(net, Http)
    assert servers(result) == {"srv/413", "srv/head", "srv/get"}


def test_a_request_after_a_deflated_body_its_head_did_not_frame(run, rows):
    """A request whose body is deflate data without its zlib header, sent without a
    Content-Length (so its head says it has none), and the next request in the same
    segment: its User-Agent is read after the compressed bytes, line by line."""
    net, client, server = pair()
    squeeze = zlib.compressobj(wbits=-15)  # raw deflate: no zlib header
    body = squeeze.compress(b"field=value&" * 40 + b"\n") + squeeze.flush()
    upload = (b"POST /submit HTTP/1.1\r\nHost: up.example\r\nUser-Agent: agent/1\r\n"
              b"Content-Encoding: deflate\r\n\r\n") + body
    net.tcp_session(client, server, 50007, 80,
                    client=[upload + b"\r\n" + app.http_request("GET", "/next", "up.example", "agent/2")],
                    server=[app.http_response(server="srv/1") + app.http_response(server="srv/2")])
    result = run(net, Http)
    assert agents(result) == {"agent/1", "agent/2"}


def test_after_switching_protocols_nothing_more_is_read_as_http(run):
    """RFC 9110 15.2.2: after a 101 both directions speak the protocol asked for (here a
    WebSocket); lines in it that look like requests are not read, nor is HTTP/2's preface
    a request."""
    net, client, server = pair()
    upgrade = app.http_request("GET", "/ws", "ws.example", "agent/ws",
                               headers=[("Upgrade", "websocket"), ("Connection", "Upgrade")])
    switching = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nServer: srv/ws\r\n\r\n"
    text = b"\x81\x40junk\r\n" + app.http_request("GET", "/inner", "inner.example", "agent/inner")
    net.tcp_session(client, server, 50008, 80, client=[upgrade, text], server=[switching, text])
    net.tcp_session(client, server, 50009, 80, client=[b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + text])
    result = run(net, Http)
    assert agents(result) == {"agent/ws"} and hosts(result) == {"ws.example"}
    assert servers(result) == {"srv/ws"}


def test_a_request_after_another_protocols_line_opens_the_connection(run, rows):
    """A load balancer's PROXY protocol line (v1) before the first request, in the same
    segment: the request is read."""
    net, client, server = pair()
    proxy = b"PROXY TCP4 198.51.100.7 10.0.0.80 41000 80\r\n"
    net.tcp_session(client, server, 50010, 80,
                    client=[proxy + app.http_request("GET", "/", "lb.example", "agent/lb")],
                    server=[app.http_response(server="srv/lb")])
    result = run(net, Http)
    assert ("10.0.0.5", "user-agent", "agent/lb", "http", 4, 4, 1) in rows(result)
    assert hosts(result) == {"lb.example"} and servers(result) == {"srv/lb"}
