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
from distributed import Client, Event, Future, LocalCluster

from support.shards import build_stress_capture
from tracepcap.ingest import capture_path
from tracepcap.present.app import create_app
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.store.models import Capture, CaptureStatus
from tracepcap.testing.writers import PcapWriter

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



@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_capture_sharded_from_inside_its_task_gives_the_same_verdicts(serve, cluster, dask_client, captures,
                                                                      tmp_path):
    """Every capture past TRACEPCAP_PARALLEL_MIN_BYTES (here: all) is sharded on the same cluster
    by its own task, which leaves its worker thread to its shards: 3 at once on 2 threads do
    not wait for each other for ever, and give one walk's verdicts."""
    api = serve(dask_scheduler=cluster.scheduler_address, parallel_min_bytes=0)
    paths = [captures / name for name in SMALL[:3]]
    ids = _upload_all(api, paths)
    with api.client() as c:
        assert [api.wait(c, cid, timeout=180)["status"] for cid in ids] == ["done"] * 3
        sharded = {path.name: _hosts(c, cid) for path, cid in zip(paths, ids, strict=True)}
    assert sharded == _in_process(tmp_path, paths)
    shards = [key for key in _task_keys(dask_client) if key.startswith("tracepcap-shard-")]
    assert {cid for cid in ids if any(key.startswith(f"tracepcap-shard-{cid}-") for key in shards)} == set(ids)

def _task_keys(client) -> set[str]:
    """The keys of every task the scheduler has moved along."""
    def keys(dask_scheduler):
        return [str(entry[0]) for entry in dask_scheduler.transition_log]
    return set(client.run_on_scheduler(keys))


def _hold_the_workers(client, name: str):
    """A task on each worker thread of the cluster, each waiting for the Event `name`; returns
    their futures once all are running: an analysis sent now waits in the scheduler's queue."""
    def hold(event_name: str, index: int) -> int:
        Event(event_name).wait(120)
        return index
    futures = [client.submit(hold, name, i, pure=False) for i in range(2)]
    deadline = time.monotonic() + 30
    while sum(len(keys) for keys in client.processing().values()) < 2:
        assert time.monotonic() < deadline, "the holding tasks did not start"
        time.sleep(0.05)
    return futures


def test_the_server_analyzes_as_many_captures_at_once_as_the_cluster_has_worker_threads(settings, db, cluster):
    configured = Settings(**{**settings.model_dump(), "dask_scheduler": cluster.scheduler_address,
                             "analysis_workers": 1})
    app = create_app(configured, db=db)
    with serving(app):
        assert app.state.worker.threads == 2
    local = create_app(Settings(**{**settings.model_dump(), "analysis_workers": 1}), db=db)
    with serving(local):
        assert local.state.worker.threads == 1


def test_a_failure_on_a_worker_marks_the_capture_failed_with_its_reason(serve, cluster, dask_client, captures):
    """The capture's file is gone from the store when its task runs on a worker: the worker's
    analysis records the failure, naming its kind and where its details are."""
    api = serve(dask_scheduler=cluster.scheduler_address)
    release = f"release-{time.time_ns()}"
    held = _hold_the_workers(dask_client, release)
    try:
        with api.client() as c:
            response = api.upload(c, captures / "http_demo.pcap")
            assert response.status_code == 202, response.text
            cid = response.json()["id"]
            time.sleep(0.5)
            assert c.get(f"/captures/{cid}").json()["status"] == "queued"  # waiting for a worker thread
            capture_path(api.settings.capture_dir, response.json()["sha256"]).unlink()
            Event(release, client=dask_client).set()
            failed = api.wait(c, cid, timeout=60)
    finally:
        Event(release, client=dask_client).set()
        dask_client.gather(held)
    assert failed["status"] == "failed"
    assert "FileNotFoundError" in failed["error"] and "the Dask worker's log" in failed["error"], failed


@pytest.fixture
def fragile_cluster():
    """A cluster whose scheduler gives a task up the first time its worker dies."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                         scheduler_port=0, silence_logs=40) as local, \
            Client(local.scheduler_address, set_as_default=False) as client:
        yield local, client


@pytest.fixture(scope="module")
def long_capture(tmp_path_factory):
    """The shard-stress capture's frames 400 times over: its analysis takes seconds."""
    from tracepcap.extract.reader import CaptureReader
    from tracepcap.limits import Limits
    stress = build_stress_capture(tmp_path_factory.mktemp("stress") / "stress.pcap")
    with CaptureReader(stress, Limits()) as reader:
        frames = [bytes(data) for _, _, _, data in reader.records()]
    path = tmp_path_factory.mktemp("long") / "long.pcap"
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for i in range(400):
            for j, frame in enumerate(frames):
                writer.write(1_700_000_000 + i + j * 1e-4, frame)
    return path


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_task_whose_worker_dies_is_recorded_failed_by_the_server(serve, fragile_cluster, long_capture):
    cluster, client = fragile_cluster
    api = serve(dask_scheduler=cluster.scheduler_address)
    with api.client() as c:
        response = api.upload(c, long_capture)
        assert response.status_code == 202, response.text
        cid = response.json()["id"]
        deadline = time.monotonic() + 60
        while c.get(f"/captures/{cid}").json()["status"] != "analyzing":  # the worker's walk began
            assert time.monotonic() < deadline, "the analysis did not start"
            time.sleep(0.05)
        busy = [worker for worker, keys in client.processing().items()
                if any(str(key).startswith(f"tracepcap-analysis-{cid}-") for key in keys)]
        assert len(busy) == 1
        os.kill(client.run(os.getpid, workers=busy)[busy[0]], signal.SIGKILL)
        failed = api.wait(c, cid, timeout=60)
    assert failed["status"] == "failed"
    assert "the Dask workers running it died" in failed["error"], failed
    with api.db.session() as s:  # the staging capture the dead task opened is gone
        assert s.query(Capture).filter(Capture.status == CaptureStatus.STAGING).count() == 0


def test_deleting_a_capture_stops_its_task_on_the_cluster(serve, cluster, dask_client, long_capture):
    api = serve(dask_scheduler=cluster.scheduler_address)
    with api.client() as c:
        response = api.upload(c, long_capture)
        cid = response.json()["id"]
        deadline = time.monotonic() + 60
        while c.get(f"/captures/{cid}").json()["status"] != "analyzing":
            assert time.monotonic() < deadline, "the analysis did not start"
            time.sleep(0.05)
        assert any(key.startswith(f"tracepcap-analysis-{cid}-") for key in _running(dask_client))
        assert c.delete(f"/captures/{cid}").status_code == 204
        deadline = time.monotonic() + 30
        while any(str(key).startswith(f"tracepcap-analysis-{cid}-") for key in _running(dask_client)):
            assert time.monotonic() < deadline, "the task went on after its capture was deleted"
            time.sleep(0.1)
        assert c.get(f"/captures/{cid}").status_code == 404
        # the cluster is free for the next upload
        assert api.wait(c, api.upload(c, long_capture).json()["id"], timeout=120)["status"] == "done"


def _running(client) -> list[str]:
    """The keys the workers' threads are running now (a task the scheduler let go of runs on
    in its thread until it returns)."""
    def keys(dask_worker):
        with dask_worker.active_threads_lock:
            return [str(key) for key in dask_worker.active_threads.values()]
    return [key for keys in client.run(keys).values() for key in keys]


def test_a_task_the_cluster_lost_is_sent_again(serve, cluster, dask_client, captures):
    """The scheduler drops the capture's task (as a restarted one forgets it): the server sends
    it again, and the capture is analyzed."""
    api = serve(dask_scheduler=cluster.scheduler_address)
    before = _task_keys(dask_client)  # the module's other tests analyzed the same capture
    release = f"release-{time.time_ns()}"
    held = _hold_the_workers(dask_client, release)
    try:
        with api.client() as c:
            response = api.upload(c, captures / "ftp.pcap")
            assert response.status_code == 202, response.text
            cid = response.json()["id"]
            deadline = time.monotonic() + 30
            while not (first := [key for key in _scheduler_keys(dask_client)
                                 if key.startswith(f"tracepcap-analysis-{cid}-") and key not in before]):
                assert time.monotonic() < deadline, "the analysis was not sent"
                time.sleep(0.05)
            dask_client.cancel([Future(first[0], client=dask_client)], force=True)  # for every client
            Event(release, client=dask_client).set()
            assert api.wait(c, cid, timeout=120)["status"] == "done"
    finally:
        Event(release, client=dask_client).set()
        dask_client.gather(held)
    tried = {key for key in _task_keys(dask_client) - before if key.startswith(f"tracepcap-analysis-{cid}-")}
    assert first[0] in tried and len(tried) == 2


def _scheduler_keys(client) -> list[str]:
    def keys(dask_scheduler):
        return [str(key) for key in dask_scheduler.tasks]
    return client.run_on_scheduler(keys)


def test_a_job_names_the_store_by_absolute_paths_and_refuses_a_database_in_memory(tmp_path, monkeypatch):
    from tracepcap.dask_analysis import job_settings
    from tracepcap.errors import UsageError

    monkeypatch.chdir(tmp_path)
    job = job_settings(Settings(data_dir="data", database_url="sqlite:///data/t.sqlite3",
                                dask_scheduler="tcp://127.0.0.1:8786"))
    assert job["data_dir"] == tmp_path / "data"
    assert job["database_url"] == f"sqlite:///{tmp_path / 'data' / 't.sqlite3'}"
    postgres = "postgresql+psycopg://u:secret@db.example:5432/tracepcap"
    assert job_settings(Settings(data_dir=tmp_path, database_url=postgres))["database_url"] == postgres
    with pytest.raises(UsageError, match="in-memory"):
        job_settings(Settings(data_dir=tmp_path, database_url="sqlite://"))
