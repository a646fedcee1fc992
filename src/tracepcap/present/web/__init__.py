"""The web UI: server-rendered pages (Jinja2) with htmx partials, served by `tracepcap serve`
at `/` beside the API. `mount_web(app)` adds it to the API's app."""

from .routes import mount_web

__all__ = ["mount_web"]
