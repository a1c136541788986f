"""Check the package's import boundaries: no file imports another package's underscore module, no import circle
between files, no source file over a line limit. CI runs it; it reads the code (ast), it imports nothing.

    python scripts/check_imports.py [--root src/corral] [--max-lines 800]

What counts as an import: every ``import``/``from ... import`` statement, also inside functions (a lazy import
still ties two files at run time), except those under ``if TYPE_CHECKING:`` (they never run). ``from pkg import
name`` ties the file to ``pkg/__init__.py``, or to ``pkg/name.py`` alone when every name is a submodule. A package is a
folder with ``__init__.py``; "another package's underscore module" is a module whose name starts with ``_`` (not
``__init__``) of a package the importing file is not inside (a subpackage may use its parent's private modules,
being part of its implementation; a parent may not reach into a subpackage's).
Exit status 1 with one line per problem, 0 when clean.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path, name: str, is_package: bool) -> list[tuple[int, str, list[str]]]:
    """(line, absolute module, imported names) for each import statement that runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _type_checking_lines(tree)
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
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
    for circle in _circles(edges):
        problems.append("import circle: " + " -> ".join(sorted(circle)))
    return problems


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
