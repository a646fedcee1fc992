"""Which of the package's modules run compiled, and the rules that choose Python source instead.

setup.py compiles the per-packet hot path with mypyc when the machine has a C compiler; the
.py files stay beside the compiled modules, and Python would prefer the compiled ones.
`tracepcap/__init__.py` installs `SourceFirst`, which loads a module of the package from its
.py file instead, for all of them at once (compiled modules share one library and its native
classes: they run together or not at all), when
- `TRACEPCAP_PURE=1` is set: the path a machine without a compiler runs, kept testable on one
  that has one (tests/extract/test_compiled_parity.py); or
- the build's manifest (`extract/_compiled.json`, each compiled module's source sha256) is
  missing or no longer matches the .py files: an edited source is never shadowed by a stale
  build (reinstall to compile it again).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from types import ModuleType

ENV = "TRACEPCAP_PURE"
PACKAGE = __name__.rpartition(".")[0]  # "tracepcap"
# os.path, not pathlib: this module is imported by every command, and pathlib costs ~10 ms
ROOT = os.path.dirname(os.path.abspath(__file__))  # the package's directory
MANIFEST = os.path.join("extract", "_compiled.json")  # written by setup.py beside the compiled modules
EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def forced() -> bool:
    """True when the environment asks for the pure-Python modules."""
    return os.environ.get(ENV) == "1"


def is_compiled(module: ModuleType) -> bool:
    """True when `module` was loaded from a compiled extension rather than Python source."""
    return (getattr(module, "__file__", None) or "").endswith(EXTENSIONS)


def build_matches(root: str | os.PathLike[str]) -> bool:
    """True when the package at `root` has a build manifest and every source it names still
    has the sha256 it was compiled from."""
    import hashlib  # here, not at the top: the package's import stays cheap for every command
    import json
    root = os.fspath(root)
    try:
        with open(os.path.join(root, MANIFEST), encoding="utf-8") as manifest:
            recorded = json.load(manifest)
        for name, digest in recorded.items():
            source = os.path.join(os.path.dirname(root), *name.split(".")[:-1], name.rpartition(".")[2] + ".py")
            with open(source, "rb") as text:
                if hashlib.sha256(text.read()).hexdigest() != digest:
                    return False
    except (OSError, ValueError, AttributeError):
        return False
    return bool(recorded)


_verdict: list[bool] = []  # the answer of `use_compiled`, once asked


def use_compiled() -> bool:
    """Whether this process runs the compiled modules (asked once, on the first import of one)."""
    if not _verdict:
        _verdict.append(not forced() and build_matches(ROOT))
    return _verdict[0]


class SourceFirst(importlib.machinery.PathFinder):
    """Finds the package's modules as the standard path finder does, but where it would
    load an extension module with a .py file beside it while `use_compiled()` says no,
    loads the .py file."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):  # type: ignore[override]
        if not fullname.startswith(PACKAGE + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(EXTENSIONS) or use_compiled():
            return spec
        source = os.path.join(os.path.dirname(origin), fullname.rpartition(".")[2] + ".py")
        if not os.path.isfile(source):
            return spec  # compiled only (mypyc's shared library): imported by none of the .py files
        from importlib.util import spec_from_file_location
        return spec_from_file_location(fullname, source)


def install() -> None:
    """Make every later import of the package's modules follow `SourceFirst`."""
    if SourceFirst not in sys.meta_path:
        sys.meta_path.insert(0, SourceFirst)


def mypyc_attr(*_names: str, **_flags: object):
    """Stands in for `mypy_extensions.mypyc_attr` where mypy is not installed: the decorator
    tells mypyc how to compile a class, and means nothing to the interpreter."""
    return lambda cls: cls
