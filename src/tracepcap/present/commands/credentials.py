"""`tracepcap credentials CAPTURE`: the logins clients sent in an analysed capture, one line
each in frame order (or `--json`), the secret masked: it is never stored. `--reveal` re-reads
each secret (or the line a cracker reads) from the stored capture and shows it, recording one
`credential.revealed` audit event per credential as the local CLI actor."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from ...adjudicate.actor import SYSTEM_ACTOR
from ...adjudicate.annotations import record_reveal
from ...ingest import find_capture
from ...store import open_database
from ..read.credentials import Revealed, credentials, reveal
from . import ExitCode, settings_for

NOTE = "secrets are never stored: each shows masked (******) or as not seen"
REVEALED = "secrets read again from the stored capture; each reveal is in the audit log"


def cmd_credentials(args: argparse.Namespace) -> ExitCode:
    settings = settings_for(args)
    db = open_database(settings.database_url)
    shown: dict[int, Revealed] = {}
    try:
        with db.session(write=bool(args.reveal)) as s:
            capture = find_capture(s, args.capture)
            found = credentials(s, capture.id)
            for c in found if args.reveal else ():
                got = shown[c.id] = reveal(s, settings.capture_dir, capture, c.id, settings.extract_limits)
                record_reveal(s, SYSTEM_ACTOR, capture.id, credential=got.id, protocol=got.protocol, user=got.user,
                              server=got.server, port=got.port, frame=got.frame, shown=got.secret is not None)
    finally:
        db.dispose()
    if args.json:
        entries = [asdict(c) | ({"revealed": {"secret": shown[c.id].secret, "format": shown[c.id].format,
                                           "note": shown[c.id].note}} if c.id in shown else {}) for c in found]
        print(json.dumps({"capture": capture.id, "credentials": entries}, indent=2))
        return ExitCode.OK
    if not found:
        print(f"no credentials in {capture.name} ({capture.id})")
        return ExitCode.OK
    rows = [("FRAME", "PROTOCOL", "USER", "CLIENT", "SERVER", "SECRET")] + [
        (str(c.first_frame), c.protocol, c.user or "-", c.client_address if c.client_address == c.client
         else f"{c.client_address} ({c.client})", f"[{c.server}]:{c.port}" if ":" in c.server else f"{c.server}:{c.port}",
         _shown(shown[c.id]) if c.id in shown else c.secret)
        for c in found]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=False)) + "  " + r[-1])
    print(f"{len(found)} credential{'s' if len(found) != 1 else ''} in {capture.name}; "
          f"{REVEALED if args.reveal else NOTE}")
    return ExitCode.OK


def _shown(r: Revealed) -> str:
    if r.secret is None:
        return f"({r.note})"
    return r.secret if r.format == "cleartext" else f"{r.secret}  [{r.format}]"
