"""JSON request bodies parsed in a worker thread, never on the event loop (issue 23).

FastAPI reads a route's JSON body with `await request.json()`, which runs `json.loads` on the
loop: while a large body parses, every other request (the health check, the pages) waits.
The body cap (body_limit.py) bounds that to 1 MiB; this moves even that parse off the loop.
Every API router is built with `route_class=OffLoopJsonRoute`."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response


class OffLoopJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            self._json = await anyio.to_thread.run_sync(json.loads, body)
        return self._json


class OffLoopJsonRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        handler = super().get_route_handler()

        async def parse_off_the_loop(request: Request) -> Response:
            return await handler(OffLoopJsonRequest(request.scope, request.receive))

        return parse_off_the_loop
