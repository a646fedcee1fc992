"""Captures over HTTP: upload (streamed, analyzed in the background), dedupe, listing,
lookup by id / prefix / sha256, deletion with its audit event, and every refusal."""

from __future__ import annotations

import gzip
import hashlib
import socket

from api_helpers import DNS_DEMO, assert_error
from sqlalchemy import select

from tracepcap.ingest import capture_path, store_capture
from tracepcap.store.models import AuditEvent, Capture, Host


def test_upload_returns_at_once_then_analysis_finishes(api, client, captures):
    data = (captures / DNS_DEMO).read_bytes()
    response = api.upload(client, captures / DNS_DEMO)
    assert response.status_code == 202, response.text
    created = response.json()
    assert created["sha256"] == hashlib.sha256(data).hexdigest() and created["name"] == DNS_DEMO
    assert created["status"] == "queued" and created["size"] == len(data)
    assert response.headers["location"] == f"/api/captures/{created['id']}"
    done = api.wait(client, created["id"])
    assert (done["status"], done["progress"], done["packets"]) == ("done", 100, done["packets"])
    assert done["packets"] > 0 and done["uploaded_by"] == "system" and done["format"] == "pcap"
    assert [m["extractor"] for m in done["manifest"]][:2] == ["reader", "decoder"]
    assert isinstance(done["findings"], list)

    again = api.upload(client, captures / DNS_DEMO, name="renamed.pcap")
    assert again.status_code == 200 and again.json()["id"] == created["id"]
    assert again.json()["name"] == DNS_DEMO  # the existing capture, as first uploaded

    listed = client.get("/captures").json()
    assert [c["id"] for c in listed] == [created["id"]]
    assert set(listed[0]) >= {"id", "name", "size", "sha256", "status", "progress", "uploaded_at", "uploaded_by"}


def test_gzip_and_pcapng_are_sniffed_from_the_bytes(api, client, captures, tmp_path):
    packed = tmp_path / "voice.bin"
    packed.write_bytes(gzip.compress((captures / "telegram_voice.pcapng").read_bytes()))
    response = api.upload(client, packed)
    assert response.status_code == 202
    capture = api.wait(client, response.json()["id"])
    assert capture["format"] == "pcapng+gzip" and capture["status"] in ("done", "partial")


def test_capture_by_prefix_and_sha256_or_404_saying_which(api, client, dns_capture):
    full = client.get(f"/captures/{dns_capture}").json()
    assert client.get(f"/captures/{dns_capture[:6]}").json()["id"] == dns_capture
    assert client.get(f"/captures/{full['sha256'].upper()}").json()["id"] == dns_capture
    assert_error(client.get("/captures/ffff0000"), 404, "not_found",
                 "no capture with id, prefix or sha256 'ffff0000'")


def test_not_a_capture_is_415_and_nothing_is_stored(api, client, tmp_path):
    fake = tmp_path / "picture.pcap"
    fake.write_bytes(b"GIF89a" + bytes(200))
    assert_error(api.upload(client, fake), 415, "unusable_capture", "match no pcap or pcapng magic")
    assert client.get("/captures").json() == []
    assert not any(p.is_file() for p in api.settings.capture_dir.rglob("*"))


def test_upload_needs_a_multipart_file_part(client):
    error = assert_error(client.post("/captures", files={"other": ("x.pcap", b"abc")}), 422,
                         "missing_file", 'no "file" part')
    assert error["details"]["problems"][0]["field"] == "file"
    assert_error(client.post("/captures", content=b"\xd4\xc3\xb2\xa1",
                             headers={"Content-Type": "application/octet-stream"}),
                 422, "missing_file", "multipart/form-data")


def test_declared_length_over_the_limit_is_refused_before_reading(serve, captures):
    api = serve(max_capture_bytes=1000)
    with api.client() as client:
        assert_error(api.upload(client, captures / DNS_DEMO), 413, "capture_too_large", "limit of 1000 bytes")


def _raw_response(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    return data


def test_over_the_limit_is_413_while_the_upload_is_still_streaming(serve, captures):
    """A chunked upload (no Content-Length) that never ends: the server answers 413 once the
    limit is passed, without waiting for (or holding) the rest."""
    limit = 256 * 1024
    api = serve(max_capture_bytes=limit)
    head = (captures / DNS_DEMO).read_bytes()[:24]
    host, port = api.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"POST /api/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nX-TracePcap-Request: 1\r\n"
                     b"Transfer-Encoding: chunked\r\n"
                     b"Content-Type: multipart/form-data; boundary=XyZ\r\n\r\n")

        def chunk(data: bytes) -> None:
            sock.sendall(b"%x\r\n%s\r\n" % (len(data), data))
        chunk(b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="big.pcap"\r\n\r\n' + head)
        sent = 0
        while sent < 2 * limit:  # twice the limit, then stop sending: the body stays open
            chunk(bytes(16384))
            sent += 16384
        response = _raw_response(sock)
    assert response.startswith(b"HTTP/1.1 413"), response[:200]
    assert b'"code":"capture_too_large"' in response
    with api.client() as client:
        assert client.get("/captures").json() == []
    assert not any(p.is_file() for p in api.settings.capture_dir.rglob("*"))


def test_delete_removes_rows_and_file_but_the_audit_log_keeps_it(api, client, dns_capture, db):
    capture = client.get(f"/captures/{dns_capture}").json()
    stored = capture_path(api.settings.capture_dir, capture["sha256"])
    assert stored.is_file()
    override = client.put(f"/captures/{dns_capture}/adjudications/host-identity/192.168.1.1/override",
                          json={"label": "Router", "rationale": "before deletion"})
    assert override.status_code == 200
    response = client.delete(f"/captures/{dns_capture}")
    assert response.status_code == 204 and response.content == b""
    assert_error(client.get(f"/captures/{dns_capture}"), 404, "not_found")
    assert_error(client.delete(f"/captures/{dns_capture}"), 404, "not_found")
    assert not stored.exists()
    with db.session() as s:
        assert s.scalars(select(Host).where(Host.capture_id == dns_capture)).all() == []
        events = s.scalars(select(AuditEvent).where(AuditEvent.capture_id == dns_capture)
                           .order_by(AuditEvent.id)).all()
    assert [(e.action, e.actor) for e in events] == [("override.set", "system"), ("capture.deleted", "system")]
    assert events[1].before["sha256"] == capture["sha256"] and events[1].before["name"] == DNS_DEMO


def test_captures_left_queued_are_analyzed_when_the_server_starts(settings, db, serve, captures):
    with db.session() as s:
        capture, _ = store_capture(s, settings.capture_dir, open(captures / DNS_DEMO, "rb"), name="left.pcap",
                                   uploaded_by="system", max_bytes=settings.max_capture_bytes)
        cid = capture.id
    with db.session() as s:
        assert s.get(Capture, cid).status == "queued"
    api = serve()
    with api.client() as client:
        assert api.wait(client, cid)["status"] == "done"


def test_upload_after_delete_stores_the_bytes_again(api, client, dns_capture, captures):
    assert client.delete(f"/captures/{dns_capture}").status_code == 204
    response = api.upload(client, captures / DNS_DEMO)
    assert response.status_code == 202 and response.json()["id"] == dns_capture
    assert api.wait(client, dns_capture)["status"] == "done"
    assert capture_path(api.settings.capture_dir, response.json()["sha256"]).is_file()
