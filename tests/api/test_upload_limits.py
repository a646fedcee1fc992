"""Slow uploads (issue 17, item 5): 45 clients sending one byte at a time froze every route,
each holding one of the threads the synchronous routes share. Now an upload is cut with 408
when it stalls or crawls (its temporary file removed), uploads past the cap are answered 503
with Retry-After, and reads keep answering meanwhile. Real uvicorn, raw sockets."""

from __future__ import annotations

import socket
import threading
import time

import httpx
from api_helpers import DNS_DEMO

SLOW_CLIENTS = 45  # the red team's count: more than the 40 threads of anyio's shared pool
BOUNDARY = b"XyZ"


def _open_upload(url: str, first_bytes: bytes) -> socket.socket:
    """A capture upload whose request head and first body bytes are sent; the rest never is."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"POST /api/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nX-TracePcap-Request: 1\r\n"
                 b"Content-Type: multipart/form-data; boundary=" + BOUNDARY + b"\r\nContent-Length: 1000000\r\n\r\n"
                 b"--" + BOUNDARY + b'\r\nContent-Disposition: form-data; name="file"; filename="slow.pcap"\r\n\r\n'
                 + first_bytes)
    return sock


def _response(sock: socket.socket, timeout: float = 20) -> tuple[int, dict[str, str], str]:
    """The status, headers and body of the one response on `sock`."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        assert piece, f"connection closed without a response: {data!r}"
        data += piece
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    while len(body) < int(headers["content-length"]):
        body += sock.recv(65536)
    return int(lines[0].split()[1]), headers, body.decode()


def _leftover_files(api) -> list:
    return [p for p in api.settings.capture_dir.rglob("*") if p.is_file()]


def test_slow_uploads_are_cut_and_reads_keep_answering(serve, captures):
    idle = 4
    api = serve(upload_idle_timeout_seconds=idle, upload_min_bytes_per_second=1000, max_concurrent_uploads=4)
    data = (captures / DNS_DEMO).read_bytes()
    socks = [_open_upload(api.url, data[:64]) for _ in range(SLOW_CLIENTS)]
    stop = threading.Event()

    def trickle() -> None:  # one byte per connection every quarter second: never idle, far too slow
        sent = 64
        while not stop.wait(0.25):
            for sock in socks:
                try:
                    sock.sendall(data[sent:sent + 1])
                except OSError:
                    pass  # that one was answered and closed
            sent += 1
    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    try:
        # while the slow uploads hold their slots, reads (synchronous routes, run in the
        # shared thread pool) answer; each must come back before the uploads are cut
        started = time.monotonic()
        with api.client() as client:
            client.timeout = httpx.Timeout(idle / 2)
            for _ in range(5):
                listed = client.get("/captures")
                assert listed.status_code == 200 and listed.json() == []
                assert client.get("/health").status_code == 200
        assert time.monotonic() - started < idle
        answers = [_response(sock) for sock in socks]
    finally:
        stop.set()
        trickler.join()
        for sock in socks:
            sock.close()

    busy = [a for a in answers if a[0] == 503]
    cut = [a for a in answers if a[0] == 408]
    assert (len(cut), len(busy)) == (4, SLOW_CLIENTS - 4), [a[0] for a in answers]
    for _, headers, body in busy:
        assert headers["retry-after"] == str(idle)
        assert '"code":"uploads_busy"' in body and "4 uploads are being received already" in body
    for _, headers, body in cut:
        assert '"code":"upload_timeout"' in body and "under the minimum of 1000 bytes/s" in body, body
        assert headers["connection"] == "close"
    assert _leftover_files(api) == []  # no temporary file left behind

    # the slots are free again: a normal upload goes through
    with api.client() as client:
        assert api.upload(client, captures / DNS_DEMO).status_code == 202


def test_a_stalled_upload_is_cut_after_the_idle_timeout(serve, captures):
    api = serve(upload_idle_timeout_seconds=1)
    sock = _open_upload(api.url, (captures / DNS_DEMO).read_bytes()[:100])
    try:
        status, headers, body = _response(sock)
    finally:
        sock.close()
    assert status == 408 and "the upload was cut: it sent nothing for 1 seconds" in body, body
    assert _leftover_files(api) == []
    with api.client() as client:
        assert client.get("/captures").json() == []


def test_a_stalled_request_before_the_file_part_is_cut_too(serve):
    """The wait for the first part's headers is bounded the same way."""
    api = serve(upload_idle_timeout_seconds=1)
    host, port = api.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"POST /api/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nX-TracePcap-Request: 1\r\n"
                     b"Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 500\r\n\r\n--Xy")
        status, _headers, body = _response(sock)
    assert status == 408 and "sent nothing for 1 seconds" in body

