"""`tracepcap serve`: the REST API, the web UI and the background analysis worker."""

from __future__ import annotations

import argparse

import uvicorn
from pydantic import ValidationError

from ...errors import UsageError
from ..app import create_app
from . import ExitCode, settings_for

WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")  # every interface: no name to allow; see TRACEPCAP_ALLOWED_HOSTS


def cmd_serve(args: argparse.Namespace) -> ExitCode:
    """Serve the REST API (and its background analysis worker) until interrupted."""
    try:
        settings = settings_for(args)
    except ValidationError as err:
        problems = "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())
        raise UsageError(f"invalid settings: {problems}") from err
    bound = args.host.strip("[]").lower()
    if bound not in WILDCARD_ADDRESSES and bound not in settings.allowed_hosts:
        settings.allowed_hosts.append(bound)  # the address it listens on is a name it answers to
    # a keep-alive connection idle for 5 s is closed (slow uploads: see present/api/upload.py)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, timeout_keep_alive=5)
    return ExitCode.OK
