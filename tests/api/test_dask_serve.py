"""`serve` with a Dask scheduler (dask_analysis.py): each capture's whole analysis runs as one
task on a real LocalCluster of 2 worker processes, the server only waits. The verdicts are the
in-process path's; a failure on a worker marks the capture failed with its reason; a task whose
workers die is recorded failed by the server; deleting a capture stops its task.

On SQLite the workers and the server write one file from three processes; on PostgreSQL they
share the test's schema."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import dask
import pytest
from api_helpers import Api, serving
from distributed import Client, Event, LocalCluster

from tracepcap.ingest import capture_path
from tracepcap.present.app import create_app
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.testing.writers import PcapWriter

from support.shards import build_stress_capture

SMALL = ["dns_demo.pcap", "http_demo.pcap", "ftp.pcap", "demo_all_rules.pcap", "signal.pcap", "discord.pcap"]


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_port=0, silence_logs=40) as local:
        yield local


@pytest.fixture(scope="module")
def dask_client(cluster):
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        yield client


def _upload_all(api: Api, paths) -> list[str]:
    """Upload every capture at once (one connection each); their ids."""
    def one(path):
        with api.client() as c:
            response = api.upload(c, path)
            assert response.status_code == 202, response.text
            return response.json()["id"]
    with ThreadPoolExecutor(len(paths)) as pool:
        return list(pool.map(one, paths))


def _hosts(client, cid: str) -> list[dict]:
    response = client.get(f"/captures/{cid}/hosts", params={"limit": 1000})
    assert response.status_code == 200, response.text
    return response.json()


def _in_process(tmp_path, paths) -> dict[str, list[dict]]:
    """The same captures analyzed by a server without a scheduler, in a database of its own."""
    settings = Settings(data_dir=tmp_path / "local", database_url=f"sqlite:///{tmp_path / 'local.sqlite3'}",
                        max_concurrent_uploads=len(paths))
    db = open_database(settings.database_url)
    try:
        with serving(create_app(settings, db=db)) as url:
            api = Api(url, settings, db)
            ids = _upload_all(api, paths)
            with api.client() as c:
                for cid in ids:
                    assert api.wait(c, cid, timeout=120)["status"] == "done"
                return {path.name: _hosts(c, cid) for path, cid in zip(paths, ids, strict=True)}
    finally:
        db.dispose()


def test_captures_uploaded_at_once_are_analyzed_on_the_cluster_with_the_in_process_verdicts(
        serve, cluster, dask_client, captures, tmp_path):
    api = serve(dask_scheduler=cluster.scheduler_address, max_concurrent_uploads=len(SMALL))
    assert api.settings.dask_cluster is not None
    paths = [captures / name for name in SMALL]
    ids = _upload_all(api, paths)
    with api.client() as c:
        finished = {cid: api.wait(c, cid, timeout=180) for cid in ids}
        assert {cid: f["status"] for cid, f in finished.items()} == dict.fromkeys(ids, "done")
        on_dask = {path.name: _hosts(c, cid) for path, cid in zip(paths, ids, strict=True)}
    assert all(on_dask.values())
    assert on_dask == _in_process(tmp_path, paths)
    # each analysis ran as a task on the cluster, not in this process
    assert {cid for cid in ids if any(key.startswith(f"tracepcap-analysis-{cid}-")
                                      for key in _task_keys(dask_client))} == set(ids)


def _task_keys(client) -> set[str]:
    """The keys of every task the scheduler has moved along."""
    def keys(dask_scheduler):
        return [str(entry[0]) for entry in dask_scheduler.transition_log]
    return set(client.run_on_scheduler(keys))
