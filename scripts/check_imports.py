"""Check the package's import boundaries: no file imports another package's underscore module, no import circle
between files, every import points down the layers (``LAYERS``), no source file over a line limit. CI runs it; it
reads the code (ast), it imports nothing.

    python scripts/check_imports.py [--root src/corral] [--max-lines 800]

What counts as an import: every ``import``/``from ... import`` statement, also inside functions (a lazy import
still ties two files at run time) and under ``if TYPE_CHECKING:`` (a type-only import never runs, but it still
ties the two files' meaning together: a circle of them is still a circle). ``from pkg import
name`` ties the file to ``pkg/__init__.py``, or to ``pkg/name.py`` alone when every name is a submodule. A package is a
folder with ``__init__.py``; "another package's underscore module" is a module whose name starts with ``_`` (not
``__init__``) of a package the importing file is not inside (a subpackage may use its parent's private modules,
being part of its implementation; a parent may not reach into a subpackage's).
A top-level package (or module) of ``corral`` sits on one layer of ``LAYERS``; a file may import its own layer and
the layers below, never one above, and a top-level name missing from ``LAYERS`` is a problem (a new package is
placed there when it is made).
Exit status 1 with one line per problem, 0 when clean.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "version", "paths", "registry", "files", "extras", "jsonl", "memory"),  # the floor
    ("text",),
    ("constraints", "verdicts", "schema", ""),  # "": corral/__init__.py, the face of the whole
    ("grammars",),
    ("decoding", "models"),
    ("metrics", "sql", "retrieval", "tasks"),
    ("suites",),
    ("corpora", "evaluation", "training"),
    ("bridges", "cli"),
)
"""Bottom up, as docs/architecture.md has it: text -> constraints/verdicts/schema -> grammars -> decoding/models ->
metrics/sql/retrieval/tasks -> suites -> corpora/evaluation/training -> bridges/cli."""
_LAYER = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str, is_package: bool) -> list[tuple[int, str, list[str]]]:
    """(line, absolute module, imported names) for each import statement, type-only ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target, [alias.name for alias in node.names]))
    return found


def check(root: Path, max_lines: int) -> list[str]:
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    packages = {name for name, p in files.items() if p.name == "__init__.py"}
    edges: dict[str, set[str]] = {name: set() for name in files}
    problems: list[str] = []
    for name, path in files.items():
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > max_lines:
            problems.append(f"{path}: {lines} lines (the limit is {max_lines})")
        own_package = name if name in packages else name.rpartition(".")[0]
        for line, target, names in imports_of(path, name, name in packages):
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in files]
            # ``from pkg import submodule`` ties the file to the submodule; any other name, to pkg/__init__.py
            targets = submodules if names and len(submodules) == len(names) else [target, *submodules]
            for module in targets:
                if module not in files:
                    continue
                if module != name:
                    edges[name].add(module)
                holder, _, leaf = module.rpartition(".")
                if leaf.startswith("_") and holder != own_package and not own_package.startswith(holder + "."):
                    problems.append(f"{path}:{line}: imports {module}, an underscore module of another package")
                below = _layer_problem(name, module)
                if below:
                    problems.append(f"{path}:{line}: {below}")
    for top in sorted({_top(name) for name in files} - set(_LAYER)):
        problems.append(f"corral.{top} has no place in LAYERS (scripts/check_imports.py)")
    for circle in _circles(edges):
        problems.append("import circle: " + " -> ".join(sorted(circle)))
    return problems


def _top(module: str) -> str:
    """The top-level package or module of ``corral`` a module belongs to ("" for corral/__init__.py)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer_problem(importer: str, imported: str) -> str | None:
    """Why ``importer`` may not import ``imported`` by the layers, or None."""
    mine, theirs = _top(importer), _top(imported)
    if mine not in _LAYER or theirs not in _LAYER:
        return None  # said once for the package (``check``)
    if _LAYER[theirs] > _LAYER[mine]:
        return f"imports {imported}, a layer above corral.{mine}" if mine else f"imports {imported}, above corral"
    return None


def _circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one file (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "src" / "corral")
    parser.add_argument("--max-lines", type=int, default=800)
    args = parser.parse_args()
    problems = check(args.root, args.max_lines)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s) in {args.root}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
