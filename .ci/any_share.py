"""How many public parameters are typed bare ``Any`` (issue 23), per package and overall.

A public parameter is one of a public function or method (no leading underscore; ``__init__``
of a public class counts) in a module that is not private, ``self``/``cls`` left out.  Bare
``Any`` is the annotation ``Any`` / ``typing.Any`` itself (``list[Any]``, ``Any | None`` are
not counted).  ``*args`` / ``**kwargs`` are counted apart: ``**kwargs: Any`` is usually right.

    python .ci/any_share.py [--list] [package ...]      (default: engine studio)
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bare_any(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Attribute):
        return node.attr == "Any" and isinstance(node.value, ast.Name) and node.value.id == "typing"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip() == "Any"
    return False


def _public(name: str) -> bool:
    return not name.startswith("_") or name == "__init__"


def _functions(tree: ast.Module):
    """(qualified name, function) of the public functions and methods of a module."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
            yield node.name, node, False
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _public(item.name):
                    yield f"{node.name}.{item.name}", item, True


def scan(package: str) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    found: list[str] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT)
        if any(part.startswith("_") and part != "__init__.py" for part in rel.parts):
            continue  # a private module or package
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, fn, method in _functions(tree):
            args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
            if method and args and args[0].arg in ("self", "cls"):
                args = args[1:]
            for arg in args:
                counts["params"] += 1
                if _bare_any(arg.annotation):
                    counts["any"] += 1
                    found.append(f"{rel}: {name}({arg.arg})")
            for arg in (fn.args.vararg, fn.args.kwarg):
                if arg is not None:
                    counts["varargs"] += 1
                    counts["varargs_any"] += _bare_any(arg.annotation)
    return counts, found


def main(argv: list[str]) -> int:
    show = "--list" in argv
    packages = [a for a in argv if not a.startswith("--")] or ["engine", "studio"]
    total: Counter[str] = Counter()
    for package in packages:
        counts, found = scan(package)
        total += counts
        share = counts["any"] / counts["params"] if counts["params"] else 0.0
        print(
            f"{package}: {counts['any']} of {counts['params']} public parameters bare Any "
            f"({share:.1%}); *args/**kwargs: {counts['varargs_any']} of {counts['varargs']}"
        )
        if show:
            print("\n".join(f"  {line}" for line in found))
    share = total["any"] / total["params"] if total["params"] else 0.0
    print(f"all: {total['any']} of {total['params']} ({share:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
