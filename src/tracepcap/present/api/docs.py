"""The interactive API docs, served offline: Swagger UI's script and styles (swagger-ui-dist
5.35.0 from the npm registry, Apache-2.0, vendored beside the web UI's other vendored files)
are served by the app under `/api/docs/assets`, so `/api/docs` works on a machine that
reaches no CDN. Swagger UI 5 is the first to read OpenAPI 3.1, which FastAPI writes."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

SWAGGER_UI = Path(__file__).resolve().parent.parent / "web" / "static" / "vendor" / "swagger-ui-5.35.0"


def mount_docs(app: FastAPI, path: str) -> str:
    """Serve Swagger UI at `path` for the app's OpenAPI document; returns the page's path."""
    assets = f"{path}/assets"
    app.mount(assets, StaticFiles(directory=SWAGGER_UI), name="swagger-ui")

    @app.get(path, include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url or "", title=f"{app.title} API",
                                   swagger_js_url=f"{assets}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{assets}/swagger-ui.css",
                                   swagger_favicon_url=f"{assets}/favicon-32x32.png")

    return path
