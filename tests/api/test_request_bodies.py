"""Request bodies (issue 23, item 3): every route but the capture uploads takes at most
TRACEPCAP_MAX_BODY_BYTES (1 MiB), refused 413 by its Content-Length before a byte is read, or
as soon as a chunked body passes the cap; a JSON body nested past MAX_JSON_DEPTH is 422 before
it is parsed, never a 500. Real uvicorn; raw sockets where the client must not send it all."""

from __future__ import annotations

import json
import socket
import time

import pytest
from api_helpers import DNS_DEMO, assert_error

from tracepcap.present.api.body_limit import MAX_JSON_DEPTH, too_deep

MIB = 1 << 20


def _raw(url: str, head: bytes) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(head)
    return sock


def _status_and_body(sock: socket.socket, timeout: float = 10) -> tuple[int, dict]:
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        assert piece, f"closed without an answer: {data!r}"
        data += piece
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    while len(body) < int(headers["content-length"]):
        body += sock.recv(65536)
    return int(lines[0].split()[1]), json.loads(body)


def _post_head(path: str, **extra: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "X-TracePcap-Request: 1",
             "Content-Type: application/json", *(f"{k.replace('_', '-')}: {v}" for k, v in extra.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_declared_large_body_is_413_before_it_is_sent(api):
    """300 MB declared, not one byte sent: answered at once, and the server keeps answering."""
    sock = _raw(api.url, _post_head("/api/networks", Content_Length=str(300 * MIB)))
    started = time.monotonic()
    try:
        status, body = _status_and_body(sock)
    finally:
        sock.close()
    assert status == 413 and body["error"]["code"] == "body_too_large", body
    assert "TRACEPCAP_MAX_BODY_BYTES" in body["error"]["message"]
    assert time.monotonic() - started < 5
    with api.client() as client:
        assert client.get("/health").status_code == 200


def test_a_chunked_body_is_cut_once_it_passes_the_cap(api):
    """Chunked, no length: 2 MiB sent and the body never finished; 413 without waiting for it."""
    sock = _raw(api.url, _post_head("/api/networks", Transfer_Encoding="chunked"))
    try:
        chunk = b"[" + b"1," * (64 * 1024)
        for _ in range(16):
            sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        status, body = _status_and_body(sock)
    finally:
        sock.close()
    assert status == 413 and body["error"]["code"] == "body_too_large", body


def test_chunked_through_a_client_too_and_a_small_body_still_passes(api, client):
    def pieces():
        for _ in range(40):
            yield b" " * 32768  # 1.25 MiB of whitespace: valid JSON padding, but too much
        yield b'{"name": "lab"}'

    assert_error(client.post("/networks", content=pieces(), headers={"Content-Type": "application/json"}),
                 413, "body_too_large")
    created = client.post("/networks", json={"name": "lab"})
    assert created.status_code == 201, created.text


def test_the_cap_is_a_setting_and_uploads_are_exempt(serve, captures):
    api = serve(max_body_bytes=64)
    with api.client() as client:
        assert_error(client.post("/networks", json={"name": "a network with a long name" * 3}),
                     413, "body_too_large", "at most 64 bytes")
        assert client.post("/networks", json={"name": "short"}).status_code == 201
        upload = api.upload(client, captures / DNS_DEMO)  # far more than 64 bytes: streamed, not capped
        assert upload.status_code == 202, upload.text
        into = client.post("/networks/short/captures",
                           files={"file": ("d.pcap", (captures / DNS_DEMO).read_bytes(), "application/octet-stream")})
        assert into.status_code in (200, 202), into.text
        # the same route's JSON form is a small body like any other
        assert_error(client.post("/networks/short/captures", json={"capture_id": "x" * 100}), 413)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 5000, 200_000])
def test_deeply_nested_json_is_422_not_500(api, client, depth):
    nested = "[" * depth + "]" * depth
    for path, body in (("/networks", nested),  # a typed body (parsed by FastAPI)
                       ("/networks/lab/captures", nested),  # parsed by the route itself
                       ("/networks", '{"name": ' + "[" * depth)):  # never closed
        if path != "/networks":
            client.post("/networks", json={"name": "lab"})
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
        error = assert_error(response, 422, "validation_error")
        assert f"more than {MAX_JSON_DEPTH} levels" in error["message"]


def test_a_large_body_under_the_cap_is_checked_and_passed_on_whole(api, client):
    """Past 64 KiB the depth check runs in a worker thread; the route still gets every byte."""
    padding = {"pad": [{"k": "x" * 50, "v": [1, 2, "]"]}] * 6000}
    assert 64 * 1024 < len(json.dumps(padding)) < MIB
    created = client.post("/networks", json={"name": "padded", **padding})
    assert created.status_code == 201 and created.json()["name"] == "padded", created.text
    deep = json.dumps({"name": "deep", **padding})[:-1] + ', "x": ' + "[" * 40 + "]" * 40 + "}"
    assert_error(client.post("/networks", content=deep, headers={"Content-Type": "application/json"}), 422)


def test_json_within_the_depth_is_judged_by_its_route(api, client):
    nested = {"name": "lab", "extra": json.loads("[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1))}
    assert client.post("/networks", json=nested).status_code == 201  # extra fields are ignored
    assert_error(client.post("/networks", content=b'{"name": ', headers={"Content-Type": "application/json"}),
                 422, "validation_error")


def test_depth_counts_brackets_outside_strings_only():
    assert not too_deep(json.dumps({"a": "[" * 1000, "b": ["]]]]{{{", {"c": '\\"[[[['}]}).encode())
    assert not too_deep(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)
    assert too_deep(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1))
    assert too_deep(b'{"a": ' * (MAX_JSON_DEPTH + 1) + b"1" + b"}" * (MAX_JSON_DEPTH + 1))
    hidden = b'["]",' * (MAX_JSON_DEPTH + 1) + b"1" + b"]" * (MAX_JSON_DEPTH + 1)  # strings' closers hide it
    assert json.loads(hidden) and too_deep(hidden)
    assert not too_deep(b"[}")  # invalid, shallow: the parser says so with its position
    assert too_deep(b"[" * 10_000)  # invalid and deep: the parser would recurse first


@pytest.mark.parametrize("body", [b'"' + b'\\"' * 500_000, b'"' + b'\\"' * 500_000 + b"\\", b'"a' * 500_000,
                                  b"[" * MIB, b"[]" * (MIB // 2)])
def test_the_depth_check_of_a_full_size_body_is_quick(body):
    started = time.perf_counter()
    too_deep(body)
    assert time.perf_counter() - started < 1.0  # linear: ~10 ms; a quadratic scan takes minutes


def test_json_bodies_are_parsed_off_the_event_loop(client, dns_capture, monkeypatch):
    import asyncio

    from tracepcap.present.api import offloop
    parsed_in: list[object] = []
    real_loads = json.loads

    def loads(text, *args, **kwargs):
        try:
            parsed_in.append(asyncio.get_running_loop())
        except RuntimeError:
            parsed_in.append(None)  # a worker thread: no event loop here
        return real_loads(text, *args, **kwargs)

    monkeypatch.setattr(offloop.json, "loads", loads)
    response = client.post(f"/captures/{dns_capture}/adjudications/host-identity/10.0.0.1/evidence",
                           json={"label": "Router", "weight": 10, "reason": "the diagram says so"})
    assert response.status_code in (200, 201, 404), response.text
    assert parsed_in == [None]
