"""The `tracepcap` command line. Errors are one line on stderr; exit codes are `ExitCode`."""

from __future__ import annotations

import argparse
import json
import sys
from enum import IntEnum
from pathlib import Path

from ..analysis import analyze
from ..errors import TracePcapError, UnusableCapture
from ..ingest import store_file
from ..settings import Settings
from ..store import open_database
from .report import capture_document, host_table

SYSTEM_ACTOR = "system"


class ExitCode(IntEnum):
    OK = 0  #: the analysis completed
    FAILED = 1  #: an internal error; the message says what
    UNUSABLE_INPUT = 2  #: not a capture, missing file, bad arguments, unknown reference
    PARTIAL = 3  #: the capture was only partly readable; the manifest says what was lost


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {"database_url": args.db} if getattr(args, "db", None) else {}
    return Settings(**overrides)


def _demo_capture(settings: Settings) -> Path:
    from ..synth.demo import build_demo_office
    path = settings.data_dir / "demo" / "demo-office.pcap"
    path.parent.mkdir(parents=True, exist_ok=True)
    return build_demo_office(path)


def cmd_analyze(args: argparse.Namespace) -> ExitCode:
    settings = _settings(args)
    path = Path(args.path) if args.path else _demo_capture(settings)
    db = open_database(settings.database_url)
    try:
        with db.session() as s:
            capture, _created = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR,
                                           max_bytes=settings.max_capture_bytes)
            capture_id = capture.id
        status = analyze(db, settings, capture_id)
        with db.session() as s:
            from ..store.models import Capture
            capture = s.get(Capture, capture_id)
            if status == "failed":
                raise UnusableCapture(capture.error or "analysis failed")
            document = capture_document(s, capture)
    finally:
        db.dispose()
    if args.json:
        print(json.dumps(document, indent=2, sort_keys=False))
    else:
        print(host_table(document))
    return ExitCode.OK if status == "done" else ExitCode.PARTIAL


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tracepcap", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("analyze", help="store a capture, analyze it, print hosts and facts")
    p.add_argument("path", nargs="?", help="pcap/pcapng file, optionally gzip'd (default: the demo office LAN)")
    p.add_argument("--db", help="SQLAlchemy database URL (default: SQLite in the data directory)")
    p.add_argument("--json", action="store_true", help="print the JSON document instead of the table")
    p.set_defaults(run=cmd_analyze)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UnusableCapture as err:
        print(f"tracepcap: {err}", file=sys.stderr)
        return ExitCode.UNUSABLE_INPUT
    except TracePcapError as err:
        print(f"tracepcap: {err}", file=sys.stderr)
        return ExitCode.UNUSABLE_INPUT if not type(err) is TracePcapError else ExitCode.FAILED


if __name__ == "__main__":
    sys.exit(main())
