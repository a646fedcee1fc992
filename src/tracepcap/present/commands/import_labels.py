"""`tracepcap import-labels FILE CAPTURE`: a CSV (or JSON) of overrides, evidence and
dismissals applied to one capture in one transaction, all or nothing
(adjudicate/annotations/bulk.py), as the CLI's actor."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...adjudicate.actor import SYSTEM_ACTOR
from ...adjudicate.annotations import bulk
from ...adjudicate.registry import get_registry
from ...errors import UsageError
from ...ingest import find_capture
from ...store import open_database
from . import ExitCode, settings_for


def cmd_import_labels(args: argparse.Namespace) -> ExitCode:
    path = Path(args.path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    kind = "application/json" if path.suffix.lower() == ".json" else "text/csv"
    rows = bulk.parse_rows(data, kind)
    settings = settings_for(args)
    db = open_database(settings.database_url)
    try:
        with db.session(write=True) as s:
            result = bulk.apply_bulk(s, get_registry(), find_capture(s, args.capture).id, rows, actor=SYSTEM_ACTOR)
    except bulk.BulkRejected as err:
        for problem in err.details["problems"]:
            where = f"row {problem['row']}" + (f" (line {problem['line']})" if "line" in problem else "")
            print(f"{where}: {problem['message']}", file=sys.stderr)
        raise UsageError(f"{len(err.details['problems'])} of {err.details['rows']} rows refused, "
                         "nothing was applied") from None
    finally:
        db.dispose()
    document = result.to_document()
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(f"applied {document['rows']} rows: {document['overrides']} overrides, {document['evidence']} "
              f"evidence, {document['dismissals']} dismissals; {document['keys_readjudicated']} verdicts "
              "re-adjudicated")
    return ExitCode.OK
