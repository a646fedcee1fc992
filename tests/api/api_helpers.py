"""Helpers of the API tests: a uvicorn server on a loopback port, an httpx client on it, and
the check of the one error shape."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn

from tracepcap.present.api.request_guard import CLIENT_HEADER
from tracepcap.settings import Settings
from tracepcap.store import Database

DNS_DEMO = "dns_demo.pcap"
DNS_SERVER = "192.168.1.1"  # dns_demo.pcap: answers DNS on 53/udp
DNS_DEVICE = "mac-52-54-00-aa-00-01"  # its entity key: the device owning its MAC (issue 11)
WORKSTATION = "192.168.1.20"


@contextmanager
def serving(app) -> Iterator[str]:
    """Run `app` under uvicorn in a thread on a free loopback port; yield its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


@dataclass
class Api:
    url: str
    settings: Settings
    db: Database

    def client(self, token: str | None = None, **headers: str) -> httpx.Client:
        """A client of the API that says it is no browser page (X-TracePcap-Request), as a
        script must for its writes to pass the CSRF check when auth is off."""
        headers = {CLIENT_HEADER: "1", **headers}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return httpx.Client(base_url=f"{self.url}/api", headers=headers, timeout=30)

    def upload(self, client: httpx.Client, path: Path, *, name: str | None = None) -> httpx.Response:
        with open(path, "rb") as f:
            return client.post("/captures", files={"file": (name or path.name, f, "application/octet-stream")})

    def wait(self, client: httpx.Client, cid: str, timeout: float = 60) -> dict:
        """Poll the capture until its analysis finished; return it."""
        deadline = time.monotonic() + timeout
        while True:
            capture = client.get(f"/captures/{cid}").json()
            if capture["status"] in ("done", "partial", "failed"):
                return capture
            assert time.monotonic() < deadline, f"analysis of {cid} did not finish: {capture}"
            time.sleep(0.02)

    def analyzed(self, client: httpx.Client, path: Path) -> str:
        response = self.upload(client, path)
        assert response.status_code in (200, 202), response.text
        cid = response.json()["id"]
        assert self.wait(client, cid)["status"] == "done"
        return cid


def assert_error(response: httpx.Response, status: int, code: str | None = None, *fragments: str) -> dict:
    """The one error shape: {"error": {"code", "message", "details"}}, with the status, code
    and message fragments expected."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
    if code:
        assert body["error"]["code"] == code, body
    for fragment in fragments:
        assert fragment in body["error"]["message"], body
    return body["error"]
