"""Every path segment and query parameter of every route (API and web UI) under one rule,
before any handler or dependency reads it: no control characters, at most 255 characters
(`tracepcap.text.PARAMETER`). A NUL in a capture reference, an entity or a search would
otherwise reach PostgreSQL, which refuses it with an error the client saw as a 500."""

from __future__ import annotations

from fastapi import Request

from ...text import PARAMETER


def plain_parameters(request: Request) -> None:
    """An app-wide dependency: InvalidText (422) naming the parameter, else nothing."""
    for name, value in request.path_params.items():
        if isinstance(value, str):
            PARAMETER.check(name, value, location="path")
    for name, value in request.query_params.multi_items():
        PARAMETER.check(name, value, location="query")
