"""The web UI: server-rendered pages (Jinja2) with htmx partials, served by `tracepcap serve`
at `/` beside the API. `mount_web(app)` adds it to the app `present/app.py` builds: the capture
pages (`routes`), a capture's listings (`listings`) and the network pages (`networks`, both
built on `routes`' helpers)."""

from fastapi import FastAPI

from . import listings, networks, routes


def mount_web(app: FastAPI) -> None:
    app.include_router(networks.router)  # before routes' static mount, beside its pages
    app.include_router(listings.router)  # a capture's credentials, software and applications
    routes.mount_web(app)


__all__ = ["mount_web"]
