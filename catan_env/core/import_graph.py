"""The distribution's modules and what each imports, read from the sources.

An AST scan: every ``import`` statement counts, at module level, inside a function or
under ``TYPE_CHECKING``.  Importing a module is an edge to it alone; ``from pkg import
name`` is an edge to ``pkg.name`` where that is a module, else to ``pkg``.  A module
named in a string counts too (``importlib.import_module("catan_env.agents.registry")``,
an entry point ``"catan_env.agents.registry:make_agent"``, a lazy map's relative
``".aec_env"``): an import by string is still an import.  Two readers:
the numba cache guard (a cached kernel is stale when its module or anything that module
imports, transitively, changed) and the layering test (``tests/test_layers.py``).
Standard library only: the rules core imports it.
"""
import ast
import os
from typing import Dict, Iterable, List, Mapping, Set

PACKAGE = "catan_env"


def module_files(roots: Mapping[str, str]) -> Dict[str, str]:
    """{dotted module name: source path} below each root folder, ``roots`` mapping a
    folder to the package name it installs as (``{".../catan_env": "catan_env",
    ".../agents": "catan_env.agents"}``)."""
    out: Dict[str, str] = {}
    for root, package in roots.items():
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(("__", ".")))
            for f in sorted(filenames):
                if not f.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out.setdefault(".".join([package] + rel), os.path.join(dirpath, f))
    return out


def _owner(name: str, known: Iterable[str]) -> str:
    """The longest known module that ``name`` is or lies in ("" when none)."""
    known = set(known)
    while name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in known else ""


def imports_in(source: str, name: str, is_package: bool, known: Iterable[str]) -> Set[str]:
    """The known modules that module ``name`` (whose source is ``source``; a package's
    ``__init__`` when ``is_package``) imports anywhere in its source."""
    known = set(known)
    package = name if is_package else name.rsplit(".", 1)[0]
    out: Set[str] = set()
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.add(_named_in_string(node.value, package, known))
        elif isinstance(node, ast.Import):
            out.update(_owner(a.name, known) for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[:len(parts) - node.level + 1]
                source_module = ".".join(base + ([node.module] if node.module else []))
            else:
                source_module = node.module or ""
            if source_module.split(".")[0] != PACKAGE:
                continue
            for a in node.names:
                full = f"{source_module}.{a.name}"
                out.add(full if full in known else _owner(source_module, known))
    out.discard("")
    out.discard(name)
    return out


def _named_in_string(text: str, package: str, known: Set[str]) -> str:
    """The known module a string names whole ("pkg.mod", "pkg.mod:attr", or ".mod"
    relative to package), else ""."""
    text = text.split(":", 1)[0]
    if text.startswith(".") and text.strip(".") and " " not in text:
        level = len(text) - len(text.lstrip("."))
        parts = package.split(".")
        text = ".".join(parts[:len(parts) - level + 1] + [text.lstrip(".")])
    return text if text in known and "." in text else ""  # (the bare package name is a label)


def import_graph(files: Mapping[str, str]) -> Dict[str, Set[str]]:
    """{module: the modules of ``files`` it imports} (``files`` as from :func:`module_files`)."""
    graph: Dict[str, Set[str]] = {}
    for name, path in files.items():
        with open(path, encoding="utf-8") as f:
            graph[name] = imports_in(f.read(), name, path.endswith("__init__.py"), files)
    return graph


def closure(graph: Mapping[str, Iterable[str]], name: str) -> Set[str]:
    """``name`` and every module it imports, directly or through others."""
    seen = {name}
    todo: List[str] = [name]
    while todo:
        for m in graph.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def cycles(graph: Mapping[str, Iterable[str]]) -> List[List[str]]:
    """The groups of two or more modules that import each other, each sorted (Tarjan's
    strongly connected components)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found
