"""A burst of concurrent requests queues instead of failing (SQLite and PostgreSQL).

Before requests took turns at the database, 120 requests at once were enough to starve the
pool and the worker threads: requests holding a connection waited for a thread held by
requests waiting for a connection, until timeouts turned them into 500s. Here every request
of the burst succeeds, and every write has exactly one audit event."""

from __future__ import annotations

import asyncio
from collections import Counter

import anyio
import httpx
import pytest
from api_helpers import DNS_SERVER, WORKSTATION
from sqlalchemy import select

from tracepcap.errors import Busy
from tracepcap.present.api.turns import Turns
from tracepcap.store.models import AuditEvent

BURST = 120  # half writes, half reads, all in flight at once
DEADLINE = 25  # seconds: the old code's requests hung past this, waiting on the pool


async def _burst(url: str, requests: list[tuple[str, str, dict | None]]) -> list[httpx.Response | Exception]:
    limits = httpx.Limits(max_connections=len(requests), max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=f"{url}/api", timeout=DEADLINE, limits=limits,
                                 headers={"X-TracePcap-Request": "1"}) as client:
        return await asyncio.gather(*(client.request(method, path, json=body) for method, path, body in requests),
                                    return_exceptions=True)


def test_a_burst_of_writes_and_reads_all_succeed(api, client, dns_capture):
    requests = []
    for i in range(BURST // 2):
        base = f"/captures/{dns_capture}/adjudications/host-identity/{(DNS_SERVER, WORKSTATION)[i % 2]}"
        if i % 2:
            requests.append(("POST", f"{base}/evidence", {"label": "Router", "weight": 3, "reason": f"burst-{i}"}))
        else:
            requests.append(("PUT", f"{base}/override", {"label": f"Label {i}", "rationale": f"burst-{i}"}))
        requests.append(("GET", (f"/captures/{dns_capture}/hosts", base)[i % 2], None))
    responses = asyncio.run(_burst(api.url, requests))
    outcomes = Counter(r.status_code if isinstance(r, httpx.Response) else type(r).__name__ for r in responses)
    assert outcomes == {200: BURST // 2 + BURST // 4, 201: BURST // 4}, outcomes
    with api.db.session() as s:
        afters = s.scalars(select(AuditEvent.after)).all()
    markers = Counter((a.get("rationale") or a.get("reason")) for a in afters)
    assert markers == {f"burst-{i}": 1 for i in range(BURST // 2)}


def test_a_request_that_gets_no_turn_in_time_is_refused_with_retry_after():
    async def scenario():
        turns = Turns(1, one_writer=True, wait_seconds=0.2)
        async with turns.take(write=False):
            with pytest.raises(Busy) as refused:
                async with turns.take(write=False):
                    pass
        async with turns.take(write=True):  # the turn came back when the first one ended
            pass
        return refused.value
    refused = anyio.run(scenario)
    assert refused.http_status == 503 and refused.headers == {"Retry-After": "5"}
    assert "nothing was done" in str(refused)


def test_sqlite_writers_wait_for_the_one_writer_turn_and_readers_do_not():
    async def scenario():
        turns = Turns(4, one_writer=True, wait_seconds=0.2)
        writing, done = anyio.Event(), anyio.Event()

        async def writer():
            async with turns.take(write=True):
                writing.set()
                await done.wait()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(writer)
            await writing.wait()
            async with turns.take(write=False):  # a reader is let in beside the writer
                pass
            with pytest.raises(Busy):
                async with turns.take(write=True):
                    pass
            done.set()
    anyio.run(scenario)
