"""The `tracepcap` commands, one module each, loaded only when their command runs: `cli.py`
parses the arguments with nothing heavy imported, then imports the one module the command
names. What every command shares is here and stays light (no store, no analysis)."""

from __future__ import annotations

import argparse
import gc
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  #: the analysis completed
    FAILED = 1  #: an internal error; the message says what
    UNUSABLE_INPUT = 2  #: not a capture, missing file, bad arguments, unknown reference
    PARTIAL = 3  #: the capture was only partly readable; the manifest says what was lost


def settings_for(args: argparse.Namespace):
    """The settings, with the command line's --db, --workers and --scheduler over the environment."""
    from ...settings import Settings
    overrides = {"database_url": args.db} if getattr(args, "db", None) else {}
    if getattr(args, "workers", None):
        overrides["capture_workers"] = args.workers
    if getattr(args, "scheduler", None):
        overrides["dask_scheduler"] = args.scheduler
    settings = Settings(**overrides)
    settings.check_dask()  # a refused scheduler is a usage error before anything is stored
    return settings


#: gen-0 collection threshold for a one-shot analysis (Python's default is 700): a many-host
#: capture keeps millions of objects alive (facts, votes, verdict documents), and collecting
#: every 700 allocations re-walked them for about 13 % of the run. Cyclic garbage is still
#: collected, only less often; the server (`serve`) keeps the default.
BATCH_GC_THRESHOLD = 10_000


def batch_gc() -> None:
    gc.set_threshold(BATCH_GC_THRESHOLD, *gc.get_threshold()[1:])
