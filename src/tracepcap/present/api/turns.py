"""Requests take turns at the database, waiting in the event loop rather than in a thread.

A request that needs the store first waits here for one of `slots` turns (as many as the
pool's connections), holding neither a worker thread nor a connection while it waits; on
SQLite a writing request also waits for the one writer's turn, so writes run one after another
instead of racing for the file's lock. The waits are first come, first served. A request that
waited `wait_seconds` without a turn gets 503 with Retry-After: the server is overloaded, and
nothing was done.

Why: a session dependency holds its connection from the dependency's thread-pool step into the
handler's. Admitting every request at once let a burst take every connection and every worker
thread, requests holding connections waiting for threads held by requests waiting for
connections, until the pool's timeout turned them into 500s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import anyio

from ...errors import Busy

WAIT_SECONDS = 120


class Turns:
    def __init__(self, slots: int, *, one_writer: bool, wait_seconds: float = WAIT_SECONDS) -> None:
        self._slots = anyio.Semaphore(slots)
        self._writer = anyio.Lock() if one_writer else None
        self._wait_seconds = wait_seconds

    @asynccontextmanager
    async def take(self, *, write: bool) -> AsyncIterator[None]:
        async with AsyncExitStack() as held:
            try:
                with anyio.fail_after(self._wait_seconds):
                    if write and self._writer is not None:
                        await held.enter_async_context(self._writer)
                    await held.enter_async_context(self._slots)
            except TimeoutError as err:
                raise Busy(f"the database is busy: no turn came within {self._wait_seconds:.0f} s; "
                           "nothing was done, try again", retry_after=5) from err
            yield
