"""Reads while slow uploads are held open (slowloris, issue 17 item 5).

Serves the app under uvicorn on a loopback port (SQLite in a temporary directory), then times
GET /api/captures (a synchronous route, run in the thread pool the reads share) from a client:
first with no other traffic, then while N clients (default 45) each hold an upload open,
sending one body byte every quarter second. Prints the median, p95 and maximum read time in
milliseconds, how the slow uploads were answered (503 at once past the cap, 408 when cut) and
how long the cut ones were held.

    .venv/bin/python benchmarks/slow_upload_bench.py [--clients 45] [--reads 60] [--idle 5]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import uvicorn

from tracepcap.present.app import create_app
from tracepcap.settings import Settings

CAPTURE_HEAD = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000") + bytes(40)  # a pcap header


def serve(app) -> tuple[str, uvicorn.Server, threading.Thread]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return f"127.0.0.1:{sock.getsockname()[1]}", server, thread


def slow_upload(address: str) -> socket.socket:
    host, port = address.split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"POST /api/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nX-TracePcap-Request: 1\r\n"
                 b"Content-Type: multipart/form-data; boundary=B\r\nContent-Length: 100000000\r\n\r\n"
                 b'--B\r\nContent-Disposition: form-data; name="file"; filename="slow.pcap"\r\n\r\n' + CAPTURE_HEAD)
    return sock


def status_of(sock: socket.socket, timeout: float) -> int:
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            piece = sock.recv(4096)
            if not piece:
                return 0
            data += piece
    except TimeoutError:
        return 0  # still held
    return int(data.split()[1])


def reads(address: str, count: int) -> list[float]:
    times = []
    with httpx.Client(base_url=f"http://{address}/api", timeout=120) as client:
        for _ in range(count):
            started = time.perf_counter()
            assert client.get("/captures").status_code == 200
            times.append(1000 * (time.perf_counter() - started))
    return times


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    return (f"median {statistics.median(ordered):7.1f} ms   p95 {ordered[int(0.95 * (len(ordered) - 1))]:7.1f} ms"
            f"   max {ordered[-1]:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=45)
    parser.add_argument("--reads", type=int, default=60)
    parser.add_argument("--idle", type=float, default=5, help="TRACEPCAP_UPLOAD_IDLE_TIMEOUT_SECONDS")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), upload_idle_timeout_seconds=args.idle)
        address, server, thread = serve(create_app(settings))
        print(f"settings: idle timeout {settings.upload_idle_timeout_seconds:g} s, minimum rate "
              f"{settings.upload_min_bytes_per_second} B/s, {settings.max_concurrent_uploads} upload slots")
        print(f"GET /api/captures, no other traffic:     {summary(reads(address, args.reads))}")

        socks = [slow_upload(address) for _ in range(args.clients)]
        opened = time.monotonic()
        stop = threading.Event()

        def trickle() -> None:
            while not stop.wait(0.25):
                for sock in socks:
                    try:
                        sock.sendall(b"\0")
                    except OSError:
                        pass
        threading.Thread(target=trickle, daemon=True).start()
        busy = reads(address, args.reads)
        print(f"GET /api/captures, {args.clients} slow uploads open: {summary(busy)}")
        answers, held = Counter(), []
        for sock in socks:
            status = status_of(sock, timeout=4 * args.idle)
            answers[status] += 1
            if status == 408:
                held.append(time.monotonic() - opened)
        stop.set()
        for sock in socks:
            sock.close()
        print("slow uploads answered: " + ", ".join(f"{n} x {s or 'no answer'}" for s, n in sorted(answers.items())))
        if held:
            print(f"cut uploads held at most {max(held):.1f} s")
        server.should_exit = True
        thread.join(10)


if __name__ == "__main__":
    main()
