"""No two modules of src/tracepcap import each other, directly or around a loop: every import
statement counts, also one inside a function (the usual way a cycle is hidden)."""

from __future__ import annotations

import ast
from pathlib import Path

import tracepcap

SRC = Path(tracepcap.__file__).resolve().parent.parent


def module_names() -> dict[str, Path]:
    names = {}
    for path in (SRC / "tracepcap").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports(name: str, path: Path, names: dict[str, Path]) -> set[str]:
    """The modules of src/tracepcap that `name` imports, not counting its own packages (those
    are loaded before it anyway)."""
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
            if target in names and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


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
    names = module_names()
    graph = {name: imports(name, path, names) for name, path in names.items()}
    assert sum(map(len, graph.values())) > len(names)  # the imports were read
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_loop_of_three_and_not_its_visitor():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
