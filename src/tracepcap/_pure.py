"""Which of the package's modules run compiled, and the switch that runs none of them.

setup.py compiles the per-packet hot path with mypyc when the machine has a C compiler; the
.py files stay beside the compiled modules, and Python prefers the compiled ones. With
`TRACEPCAP_PURE=1` in the environment, `tracepcap/__init__.py` calls `install()`, and every
module of the package is loaded from its .py source instead: the path a machine without a
compiler runs, kept testable on one that has one (tests/extract/test_compiled_parity.py).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType

ENV = "TRACEPCAP_PURE"
PACKAGE = __name__.rpartition(".")[0]  # "tracepcap"
EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def forced() -> bool:
    """True when the environment asks for the pure-Python modules."""
    return os.environ.get(ENV) == "1"


def is_compiled(module: ModuleType) -> bool:
    """True when `module` was loaded from a compiled extension rather than Python source."""
    return (getattr(module, "__file__", None) or "").endswith(EXTENSIONS)


class _SourceFirst(importlib.machinery.PathFinder):
    """Finds the package's modules as the standard path finder does, but where it would
    load an extension module that has a .py file beside it, loads the .py file."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):  # type: ignore[override]
        if not fullname.startswith(PACKAGE + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(EXTENSIONS):
            return spec
        source = os.path.join(os.path.dirname(origin), fullname.rpartition(".")[2] + ".py")
        if not os.path.isfile(source):
            return spec  # compiled only (e.g. mypyc's shared library): nothing to prefer
        return importlib.util.spec_from_file_location(fullname, source)


def install() -> None:
    """Make every later import of the package's modules load Python source."""
    if not any(finder is _SourceFirst for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst)
