"""The web UI: server-rendered pages (Jinja2) with htmx partials, served by `tracepcap serve`
at `/` beside the API. `mount_web(app)` adds it to the app `present/app.py` builds: the capture pages
(`routes`) and the network pages (`networks`, built on `routes`' helpers)."""

from fastapi import FastAPI

from . import networks, routes


def mount_web(app: FastAPI) -> None:
    app.include_router(networks.router)  # before routes' static mount, beside its pages
    routes.mount_web(app)


__all__ = ["mount_web"]
