"""The REST API (FastAPI): `create_app` builds it; `tracepcap serve` runs it."""

from .app import create_app

__all__ = ["create_app"]
