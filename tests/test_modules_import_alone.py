"""Every module of src/tracepcap imports alone, first, in an interpreter where no other module
of ours is loaded: a circle that works only in one import order (module A before module B)
fails here for the order that breaks it, whatever order the suite happens to import in.

Four fresh interpreters share the modules; each loads the third-party libraries once, checks
that no module of ours is loaded yet, then forks one child per module, which imports that
module alone and exits (a fork starts from the same state a fresh interpreter with those
libraries loaded would be in, in milliseconds instead of seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tracepcap

SRC = Path(tracepcap.__file__).resolve().parent.parent
PROCESSES = 4
#: a hang guard for each interpreter (wall seconds), not a speed target: 330 modules import in
#: ~80-100 s of processor time over the four, which depends on the machine (speed is measured
#: by benchmarks/startup_bench.py, not here)
HANG_SECONDS = 600

#: loaded once per interpreter before the forks; none of them imports a module of ours
LIBRARIES = ("sqlalchemy", "sqlalchemy.orm", "alembic", "alembic.op", "pydantic", "pydantic_settings", "fastapi",
             "fastapi.routing", "fastapi.openapi.models", "fastapi.responses", "fastapi.security",
             "fastapi.staticfiles", "starlette", "jinja2", "httpx", "jwt", "urllib.request", "cryptography.x509",
             "cryptography.hazmat.primitives.asymmetric.dh", "tqdm", "uvicorn", "pygments", "multipart")
#: files that are scripts of a tool, not modules: Alembic runs its environment script itself
SCRIPTS = ("store/migrations/env.py",)

WORKER = """
import importlib, json, os, sys, traceback
top, libraries = sys.argv[1], sys.argv[2].split(",")
for library in libraries:
    try:
        importlib.import_module(library)
    except ImportError:
        pass
ours = sorted(m for m in sys.modules if m == top or m.startswith(top + "."))
if ours:
    raise SystemExit(f"loaded before any module was imported: {ours}")
failed = {}
for name in json.load(sys.stdin):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            importlib.import_module(name)
        except BaseException:
            os.write(write_end, traceback.format_exc(limit=-4).encode())
            code = 1
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        said = pipe.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        failed[name] = said or f"exit status {os.waitstatus_to_exitcode(status)}"
print(json.dumps(failed))
"""


def module_names(root: Path, top: str) -> list[str]:
    names = []
    for path in sorted((root / top).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] != "__main__" and path.relative_to(root / top).as_posix() not in SCRIPTS:  # run, not imported
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def import_failures(root: Path, top: str, processes: int = PROCESSES) -> dict[str, str]:
    """Each module of package `top` under `root` that fails to import alone, with the end of
    its traceback."""
    names = module_names(root, top)
    batches = [names[i::processes] for i in range(processes)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    runs = [subprocess.Popen([sys.executable, "-c", WORKER, top, ",".join(LIBRARIES)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root)
            for batch in batches if batch]
    failed: dict[str, str] = {}
    for run, batch in zip(runs, [b for b in batches if b], strict=True):
        out, err = run.communicate(json.dumps(batch), timeout=HANG_SECONDS)
        assert run.returncode == 0, err
        failed.update(json.loads(out.splitlines()[-1]))
    return failed


def test_every_module_imports_alone_in_a_fresh_interpreter():
    failed = import_failures(SRC, "tracepcap")
    assert failed == {}, "\n\n".join(f"{name}:\n{text}" for name, text in sorted(failed.items()))
    assert len(module_names(SRC, "tracepcap")) > 100  # the modules were found


def test_a_module_that_imports_only_after_its_partner_is_caught(tmp_path):
    """`pkg.a` imports `pkg.b`, which takes a name from the half-run `pkg.a`: imported first,
    `pkg.a` fails; `pkg.b` first works (a suite importing b before a would never see it)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\nVALUE = 1\n")
    (package / "b.py").write_text("from .a import VALUE\n")
    (package / "fine.py").write_text("import json\n")
    failed = import_failures(tmp_path, "pkg", processes=2)
    assert sorted(failed) == ["pkg.a"]
    assert "partially initialized module 'pkg.a'" in failed["pkg.a"]
