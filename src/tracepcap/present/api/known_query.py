"""An app-wide dependency: a query parameter the route does not take is a 422 naming it (and
the ones it takes), instead of being ignored - `?severity=high` on a route without that
filter must not quietly answer with everything. Applies to the API's routes (under /api);
the web pages read their own query strings."""

from __future__ import annotations

from fastapi import Request
from fastapi.routing import APIRoute

from ...errors import InvalidText

API_PREFIX = "/api/"
_TAKEN: dict[int, frozenset[str]] = {}


def taken(route: APIRoute) -> frozenset[str]:
    """The query parameter names `route` (its dependencies included) declares."""
    if (names := _TAKEN.get(id(route))) is None:
        found, todo = set(), [route.dependant]
        while todo:  # the route's own parameters and those of every dependency under it
            dependant = todo.pop()
            found |= {p.alias or p.name for p in dependant.query_params}
            todo.extend(dependant.dependencies)
        names = _TAKEN[id(route)] = frozenset(found)
    return names


def known_query(request: Request) -> None:
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or not request.url.path.startswith(API_PREFIX):
        return
    allowed = taken(route)
    for name in request.query_params:
        if name not in allowed:
            takes = f"it takes {', '.join(sorted(allowed))}" if allowed else "it takes none"
            raise InvalidText(name, "unknown-parameter",
                              f"unknown query parameter {name!r} for {request.method} {route.path}; {takes}",
                              location="query")
