"""The REST API's routers, schemas and middleware; `present/app.py` builds the app from them
(with the web UI beside it). Nothing here imports `present/web/`."""
