"""`tracepcap credentials CAPTURE`: the logins clients sent in an analysed capture, one line
each in frame order (or `--json`), the secret masked: it is never stored."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from ...ingest import find_capture
from ...store import open_database
from ..read.credentials import credentials
from . import ExitCode, settings_for

NOTE = "secrets are never stored: each shows masked (******) or as not seen"


def cmd_credentials(args: argparse.Namespace) -> ExitCode:
    settings = settings_for(args)
    db = open_database(settings.database_url)
    try:
        with db.session() as s:
            capture = find_capture(s, args.capture)
            found = credentials(s, capture.id)
    finally:
        db.dispose()
    if args.json:
        print(json.dumps({"capture": capture.id, "credentials": [asdict(c) for c in found]}, indent=2))
        return ExitCode.OK
    if not found:
        print(f"no credentials in {capture.name} ({capture.id})")
        return ExitCode.OK
    rows = [("FRAME", "PROTOCOL", "USER", "CLIENT", "SERVER", "SECRET")] + [
        (str(c.first_frame), c.protocol, c.user or "-", c.client_address if c.client_address == c.client
         else f"{c.client_address} ({c.client})", f"[{c.server}]:{c.port}" if ":" in c.server else f"{c.server}:{c.port}", c.secret)
        for c in found]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=False)) + "  " + r[-1])
    print(f"{len(found)} credential{'s' if len(found) != 1 else ''} in {capture.name}; {NOTE}")
    return ExitCode.OK
