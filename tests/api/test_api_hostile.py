"""Hostile captures through the API (issue 17, items 3 and 10), on SQLite and PostgreSQL: a
capture that would hold the analysis worker for minutes is ended by deleting it and the next
upload is analyzed at once; temporary files of killed uploads are swept when the server starts."""

from __future__ import annotations

import gzip
import logging
import os
import time

from api_helpers import DNS_DEMO, assert_error

from tracepcap.ingest.store import INFLATE_PREFIX, STALE_UPLOAD_SECONDS, UPLOAD_PREFIX


def test_deleting_a_capture_in_analysis_frees_the_worker_for_the_next(serve, captures, tmp_path, caplog):
    # a ratio this loose lets the bomb walk for minutes, as it must to be deleted mid-walk
    api = serve(max_decompression_ratio=1_000_000)
    with api.client() as client:
        _delete_mid_analysis(api, client, captures, tmp_path, caplog)


def _delete_mid_analysis(api, client, captures, tmp_path, caplog):
    bomb = tmp_path / "zeros.pcap.gz"  # 256 MiB of empty records in ~250 KiB: ~minutes to walk
    with gzip.open(bomb, "wb") as f:
        f.write((captures / DNS_DEMO).read_bytes()[:24])
        for _ in range(256):
            f.write(bytes(1 << 20))
    caplog.set_level(logging.INFO, logger="tracepcap")
    slow = api.upload(client, bomb).json()["id"]
    deadline = time.monotonic() + 30
    while client.get(f"/captures/{slow}").json()["status"] != "analyzing":
        assert time.monotonic() < deadline, "the bomb never started"
        time.sleep(0.05)
    started = time.monotonic()
    assert client.delete(f"/captures/{slow}").status_code == 204
    queued_after = api.upload(client, captures / DNS_DEMO).json()["id"]
    assert api.wait(client, queued_after, timeout=30)["status"] == "done"
    assert time.monotonic() - started < 20  # the bomb alone would take minutes
    assert client.get(f"/captures/{slow}").status_code == 404
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # no worker traceback


def test_server_start_sweeps_temporary_files_of_killed_uploads(settings, serve):
    settings.capture_dir.mkdir(parents=True)
    orphan = settings.capture_dir / f"{UPLOAD_PREFIX}killed-mid-upload"
    inflating = settings.capture_dir / "ab" / f"{INFLATE_PREFIX}{'ab' + '0' * 62}-killed-mid-copy"
    inflating.parent.mkdir()
    hours_ago = time.time() - 2 * STALE_UPLOAD_SECONDS
    for path in (orphan, inflating):
        path.write_bytes(b"half a file")
        os.utime(path, (hours_ago, hours_ago))
    serve()
    assert not orphan.exists() and not inflating.exists()


def test_a_corrupt_gzip_upload_is_415_and_a_damaged_one_is_analyzed_partial(api, client, captures, tmp_path):
    unreadable = tmp_path / "unreadable.pcap.gz"
    unreadable.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 200)  # a gzip header, no valid deflate
    assert_error(api.upload(client, unreadable), 415, None, "gzip data unreadable")
    damaged = tmp_path / "damaged.pcap.gz"
    packed = bytearray(gzip.compress((captures / DNS_DEMO).read_bytes()))
    packed[-8] ^= 0xFF  # bad CRC: every packet is read, then the stream is refused
    damaged.write_bytes(bytes(packed))
    response = api.upload(client, damaged)
    assert response.status_code == 202
    capture = api.wait(client, response.json()["id"])
    assert capture["status"] == "partial" and "incorrect data check" in capture["error"]
