"""The gates that keep the code honest, run with the suite (so `.ci/run` runs them): ruff is
clean, mypy's error count never rises above the committed baseline, the models and the
migrations agree. Each gate also shows it fails on a planted defect."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tracepcap.store import db as store_db
from tracepcap.store.models import Base

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.txt"  # the most mypy errors src/ may have; lower it, never raise it
BIN = Path(sys.executable).parent


def ruff(*paths: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([BIN / "ruff", "check", "--no-cache", *map(str, paths)], cwd=ROOT,
                          capture_output=True, text=True)


def mypy_errors(output: str) -> int:
    found = re.search(r"^Found (\d+) errors? in", output, re.M)
    if found:
        return int(found.group(1))
    if re.search(r"^Success: no issues found", output, re.M):
        return 0
    raise AssertionError(f"mypy printed no summary:\n{output[-2000:]}")


def within_baseline(errors: int) -> None:
    allowed = int(BASELINE.read_text().split()[0])
    assert errors <= allowed, (f"mypy finds {errors} errors in src/, above the baseline of {allowed}:"
                               " fix the new ones")


def test_ruff_is_clean():
    result = ruff("src")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_fails_on_a_planted_undefined_name(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""Planted by test_gates."""\n\n\ndef broken():\n    return undefined_name\n')
    result = ruff("--config", ROOT / "pyproject.toml", planted)
    assert result.returncode == 1 and "F821" in result.stdout


def test_mypy_stays_at_or_below_its_baseline():
    result = subprocess.run([BIN / "mypy", "src"], cwd=ROOT, capture_output=True, text=True)
    within_baseline(mypy_errors(result.stdout))


def test_the_mypy_gate_fails_above_the_baseline():
    allowed = int(BASELINE.read_text().split()[0])
    within_baseline(mypy_errors(f"x.py:1: error: planted\nFound {allowed} errors in 9 files (checked 9 source files)\n"))
    with pytest.raises(AssertionError, match="above the baseline"):
        within_baseline(mypy_errors(f"Found {allowed + 1} errors in 9 files (checked 9 source files)\n"))


def drift(metadata: sa.MetaData, tmp_path: Path) -> list:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'gate.db'}")
    store_db.migrate(engine)  # the migrations themselves: `upgrade` creates a new file from the models
    with engine.connect() as connection:
        return compare_metadata(MigrationContext.configure(connection), metadata)


def test_models_and_migrations_agree(tmp_path):
    assert drift(Base.metadata, tmp_path) == []


def test_the_migration_gate_sees_a_planted_column(tmp_path):
    planted = sa.MetaData()
    for table in Base.metadata.tables.values():
        copy = table.to_metadata(planted)
        if table.name == "capture":
            copy.append_column(sa.Column("planted_gate_check", sa.Integer))
    differences = drift(planted, tmp_path)
    assert any(diff[0] == "add_column" and diff[3].name == "planted_gate_check" for diff in differences)
