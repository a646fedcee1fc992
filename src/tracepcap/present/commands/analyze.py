"""`tracepcap analyze`: store a capture, analyze it, print its hosts and facts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...adjudicate.actor import SYSTEM_ACTOR
from ...adjudicate.registry import get_registry
from ...analysis import DELETED, analyze
from ...errors import NotFound
from ...ingest import store_file
from ...store import open_database
from ...store.models import Capture, CaptureStatus
from ..report import write_capture
from . import ExitCode, batch_gc, settings_for


def _demo_capture(settings) -> Path:
    from ...testing.demo import build_demo_office
    path = settings.data_dir / "demo" / "demo-office.pcap"
    path.parent.mkdir(parents=True, exist_ok=True)
    return build_demo_office(path)


def cmd_analyze(args: argparse.Namespace) -> ExitCode:
    batch_gc()
    settings = settings_for(args)
    path = Path(args.path) if args.path else _demo_capture(settings)
    db = open_database(settings.database_url)
    try:
        with db.session() as s:
            capture, _created = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name,
                                           max_bytes=settings.max_capture_bytes)
            capture_id = capture.id
            if args.network:  # joined before the analysis, which carries answers into it at its end
                from ...adjudicate import networks
                networks.attach(s, networks.find_network(s, args.network), capture_id, actor=SYSTEM_ACTOR)
        from ..progress import terminal_progress
        with terminal_progress(as_json=args.json) as progress:
            status = analyze(db, settings, capture_id, raise_failure=True, progress=progress)
        if status == DELETED:
            raise NotFound(f"capture {capture_id} was deleted while it was analyzed")
        with db.session() as s:
            capture = s.get(Capture, capture_id)
            args.outcome = ExitCode.OK if status == CaptureStatus.DONE else ExitCode.PARTIAL  # kept if `| head` cuts us
            if args.json or args.long:
                write_capture(s, capture, get_registry(), sys.stdout, as_json=args.json)
            else:
                from ..table import write_table
                write_table(s, capture, get_registry(), sys.stdout)
    finally:
        db.dispose()
    return args.outcome
