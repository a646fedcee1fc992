"""HTTP/1.x heads: real requests and responses, pipelining, bodies, sloppy start lines."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, http
from tracepcap.testing import app


def test_request(payload):
    # http_demo.pcap frame 1: GET /api/users from 10.0.0.10 to 10.0.0.50
    data = payload("http_demo.pcap", 1)
    assert http.starts_http(data)
    (msg,) = http.messages(data)
    assert (msg.request, msg.method, msg.target, msg.status) == (True, "GET", "/api/users", 0)
    assert msg.headers == (("host", "api.local"), ("user-agent", "demo-client/1.0"),
                           ("accept", "*/*"))
    assert msg.header("user-agent") == "demo-client/1.0" and msg.header("server") is None


def test_response(payload):
    # http_demo.pcap frame 2: 200 OK from nginx/1.18.0 with a 12-byte JSON body
    (msg,) = http.messages(payload("http_demo.pcap", 2))
    assert (msg.request, msg.status, msg.header("server")) == (False, 200, "nginx/1.18.0")
    assert msg.header("content-length") == "12"


def test_target_with_spaces(payload):
    # demo_all_rules.pcap frame 1754: GET /search?q=' OR '1'='1&type=user HTTP/1.1
    (msg,) = http.messages(payload("demo_all_rules.pcap", 1754))
    assert (msg.method, msg.target) == ("GET", "/search?q=' OR '1'='1&type=user")
    assert msg.header("host") == "target.example.com"


@pytest.mark.parametrize("capture, frame", [("http_demo.pcap", 1), ("http_demo.pcap", 2),
                                            ("demo_all_rules.pcap", 1725)])
def test_truncation_sweep(payload, capture, frame):
    data = payload(capture, frame)
    for n in range(len(data) + 1):
        try:
            http.messages(data[:n])
            http.decode_head(data[:n])
        except (Truncated, Malformed):
            pass


def test_pipelined_requests_with_bodies():
    data = (app.http_request("POST", "/a", "one.example", "agent/1", body=b"x=1")
            + app.http_request("GET", "/b", "two.example:8080", "agent/2"))
    assert [(m.method, m.header("host")) for m in http.messages(data)] == [
        ("POST", "one.example"), ("GET", "two.example:8080")]


def test_chunked_response_then_next():
    chunked = (b"HTTP/1.1 200 OK\r\nServer: a\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n")
    data = chunked + app.http_response(404, "Not Found", server="b")
    assert [(m.status, m.header("server")) for m in http.messages(data)] == [(200, "a"), (404, "b")]
    assert [m.status for m in http.messages(chunked[:-3] + b"xx")] == [200]


def test_body_of_unknown_extent_stops_the_walk():
    data = b"HTTP/1.0 200 OK\r\nServer: old\r\n\r\nbody until close" + app.http_response()
    assert [m.header("server") for m in http.messages(data)] == ["old"]


def test_no_body_statuses():
    data = b"HTTP/1.1 304 Not Modified\r\nServer: a\r\n\r\n" + app.http_response(server="b")
    assert [m.header("server") for m in http.messages(data)] == ["a", "b"]


def test_cut_head_is_left_out():
    data = app.http_request("GET", "/", "a.example") + b"GET /next HTTP/1.1\r\nHost: b"
    assert [m.header("host") for m in http.messages(data)] == ["a.example"]
    with pytest.raises(Truncated):
        http.decode_head(b"GET / HTTP/1.1\r\nHost: a")


def test_junk_after_a_message_stops_the_walk():
    data = app.http_request("GET", "/", "a.example") + b"\x16\x03\x01 not http\r\n\r\n"
    assert len(http.messages(data)) == 1


def test_malformed_heads():
    with pytest.raises(Malformed):
        http.decode_head(b"HTTP/1.1 abc\r\n\r\n")
    with pytest.raises(Malformed):
        http.decode_head(b"GET /\r\n\r\n")
    with pytest.raises(Malformed, match="Content-Length"):
        http.messages(b"POST / HTTP/1.1\r\nContent-Length: \xc2\xb2\r\n\r\n")


def test_folded_and_junk_header_lines_are_skipped():
    (msg,) = http.messages(b"GET / HTTP/1.1\r\nHost: a\r\n folded\r\nnocolon\r\nX-A: \xff\r\n\r\n")
    assert msg.headers == (("host", "a"), ("x-a", "\udcff"))  # the byte kept; visible() shows \xff


def test_starts_http():
    assert http.starts_http(b"HTTP/1.1 200 OK\r\n")
    assert http.starts_http(b"M-SEARCH * HTTP/1.1\r\n")
    assert not http.starts_http(b"SSH-2.0-OpenSSH_8.9\r\n")
    assert not http.starts_http(b"\x16\x03\x01\x00")
    assert not http.starts_http(b"GETX / HTTP/1.1")
