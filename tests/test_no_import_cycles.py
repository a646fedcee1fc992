"""No two modules of src/tracepcap import each other, directly or around a loop: every import
statement counts, also one inside a function (the usual way a cycle is hidden), and so does
every package `__init__` Python runs on the way (`import a.b.c` runs a/__init__ and
a/b/__init__ first: a module that imports a.b.c depends on those packages too)."""

from __future__ import annotations

import ast
from pathlib import Path

import tracepcap

SRC = Path(tracepcap.__file__).resolve().parent.parent


def module_names(root: Path = SRC, top: str = "tracepcap") -> dict[str, Path]:
    names = {}
    for path in (root / top).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports(name: str, path: Path, names: dict[str, Path]) -> set[str]:
    """The modules of src/tracepcap that `name` imports, with the packages above each of them,
    not counting its own packages (those are loaded before it anyway)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(above + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in names else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target not in names and "." in target:
                target = target.rpartition(".")[0]
            for loaded in (target, *ancestors(target)):
                if loaded in names and loaded != name and not name.startswith(loaded + "."):
                    found.add(loaded)
    return found


def ancestors(name: str) -> list[str]:
    """The packages Python initialises before `name`: a, a.b for a.b.c."""
    parts = name.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def graph_of(root: Path = SRC, top: str = "tracepcap") -> dict[str, set[str]]:
    names = module_names(root, top)
    return {name: imports(name, path, names) for name, path in names.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                out.append(sorted(component))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_no_import_cycle_in_src():
    graph = graph_of()
    assert sum(map(len, graph.values())) > len(graph)  # the imports were read
    assert cycles(graph) == []


def plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_loop_through_a_package_init_is_found(tmp_path):
    """`high` imports only `low.y`, which imports nothing; but importing it runs low/__init__,
    which imports `low.x`, which imports `high` inside a function."""
    plant(tmp_path, {"pkg/__init__.py": "",
                     "pkg/low/__init__.py": "from .x import helper\n",
                     "pkg/low/x.py": "def helper():\n    from .. import high\n    return high\n",
                     "pkg/low/y.py": "VALUE = 1\n",
                     "pkg/high.py": "from .low.y import VALUE\n"})
    graph = graph_of(tmp_path, "pkg")
    assert "pkg.low" in graph["pkg.high"]  # the package high's import runs
    assert cycles(graph) == [["pkg.high", "pkg.low", "pkg.low.x"]]


def test_a_package_importing_its_own_modules_is_no_loop(tmp_path):
    plant(tmp_path, {"pkg/__init__.py": "from .a import A\nfrom .b import B\n",
                     "pkg/a.py": "from .b import B\nA = B\n",
                     "pkg/b.py": "import pkg.c\nB = 1\n",
                     "pkg/c.py": ""})
    assert cycles(graph_of(tmp_path, "pkg")) == []


def test_the_cycle_finder_finds_a_loop_of_three_and_not_its_visitor():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
