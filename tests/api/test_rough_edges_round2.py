"""Smaller defects of the second hostile round (issue 23, item 6): a conversation id past
BIGINT, a full disk on upload or on a database write, a network named like another's id,
frame lists in digits of other scripts."""

from __future__ import annotations

import errno
import os
import sqlite3

import pytest
from api_helpers import DNS_DEMO, assert_error
from sqlalchemy.exc import OperationalError

from tracepcap.adjudicate import networks
from tracepcap.ingest import store as ingest_store
from tracepcap.present.api.errors import disk_full
from tracepcap.present.read.frames import BadFrames, parse_frames


@pytest.mark.parametrize("conversation", [2**63, 2**64, 10**30, 0, -1])
def test_a_conversation_id_out_of_range_is_422_not_500(client, dns_capture, conversation):
    assert_error(client.get(f"/captures/{dns_capture}/conversations/{conversation}.pcap"), 422,
                 "validation_error", "conversation")
    assert_error(client.get(f"/captures/{dns_capture}/conversations/{2**63 - 1}.pcap"), 404, "not_found")


@pytest.mark.parametrize("spec", ["\u0663", "1-\u0663", "\uff11", "\u09e7,2", "\U0001d7cf"])
def test_frame_lists_take_ascii_digits_only(spec):
    with pytest.raises(BadFrames, match="not a frame number"):
        parse_frames(spec, 100)
    assert parse_frames("3,1-2", 100) == [1, 2, 3]


def test_frames_in_other_scripts_digits_are_400_over_the_api(client, dns_capture):
    assert_error(client.get(f"/captures/{dns_capture}/frames.pcap", params={"frames": "\u0663"}), 400,
                 None, "not a frame number")


class _FullFile:
    def __init__(self, f):
        self.f = f

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def write(self, _data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _FullDisk:
    """`os` as ingest/store.py sees it, on a disk that is full: every file write fails."""

    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def fdopen(fd, *args, **kwargs):
        return _FullFile(os.fdopen(fd, *args, **kwargs))


def test_a_full_disk_on_upload_is_507_with_a_message_and_leaves_no_file(api, client, captures, monkeypatch):
    monkeypatch.setattr(ingest_store, "os", _FullDisk())
    error = assert_error(api.upload(client, captures / DNS_DEMO), 507, "insufficient_storage", "disk is full")
    assert "nothing was stored" in error["message"]
    assert not [p for p in api.settings.capture_dir.rglob("*") if p.is_file()]
    monkeypatch.undo()
    assert api.upload(client, captures / DNS_DEMO).status_code == 202  # and it recovers


def test_a_full_database_on_a_write_is_507(client, monkeypatch):
    def full(*_args, **_kwargs):
        driver = sqlite3.OperationalError("database or disk is full")
        driver.sqlite_errorcode = 13
        raise OperationalError("INSERT INTO networks ...", {}, driver)

    monkeypatch.setattr(networks, "create_network", full)
    assert_error(client.post("/networks", json={"name": "lab"}), 507, "insufficient_storage")


def test_what_counts_as_a_full_disk():
    class PgError(Exception):
        sqlstate = "53100"

    wrapped = RuntimeError("while storing")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    assert disk_full(OSError(errno.ENOSPC, "x")) and disk_full(wrapped)
    assert disk_full(OperationalError("x", {}, PgError()))
    assert not disk_full(OSError(errno.EACCES, "x")) and not disk_full(ValueError("x"))
    other = sqlite3.OperationalError("no such table")
    other.sqlite_errorcode = 1
    assert not disk_full(OperationalError("x", {}, other))


def test_a_network_cannot_be_named_like_a_network_id(client):
    first = client.post("/networks", json={"name": "hq"}).json()
    for name in (first["id"], first["id"].upper(), "0123456789abcdef"):
        assert_error(client.post("/networks", json={"name": name}), 422, None, "shape of a network id")
    second = client.post("/networks", json={"name": f"{first['id']} annex"})
    assert second.status_code == 201, second.text  # a word besides: a name, no id
    assert client.get(f"/networks/{first['id']}").json()["name"] == "hq"
    assert client.get(f"/networks/{first['id']} annex").json()["id"] == second.json()["id"]
