"""Running `tracepcap` in process: `run_cli` for any store, and the `cli` fixture (registered by
the rootdir conftest) for the test's own store, SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from unittest import mock

import pytest

from tracepcap.present.cli import main


def run_cli(*args, db: str, data_dir: Path) -> tuple[int, str, str]:
    """`tracepcap ARGS --db DB` with its data directory at `data_dir`: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with (mock.patch.dict(os.environ, {"TRACEPCAP_DATA_DIR": str(data_dir)}),
          contextlib.redirect_stdout(out), contextlib.redirect_stderr(err)):
        code = main([*map(str, args), "--db", db])
    return code, out.getvalue(), err.getvalue()


def sqlite_store(directory: Path) -> str:
    """A SQLite database URL in `directory`, for a store a test module shares."""
    return f"sqlite:///{directory / 'tracepcap.sqlite3'}"


@pytest.fixture
def cli(settings):
    """cli(*args) -> (exit code, stdout, stderr), against the test's store and data directory."""
    def run(*args):
        return run_cli(*args, db=settings.database_url, data_dir=settings.data_dir)
    return run
