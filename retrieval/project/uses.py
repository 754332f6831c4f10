"""The API names a project's code uses, read from its source with `ast` (never imported or run).

What `retrieval diff --uses PATH` filters a diff to: every name imported (`from flask import
Flask` uses flask.Flask) and every attribute chain on an imported name (`np.linalg.norm(...)`
after `import numpy as np` uses numpy.linalg.norm). A plain `import numpy` alone uses nothing in
particular (it would keep every change), nor does a relative import (the project's own code).
"""

import ast
import os
from dataclasses import dataclass

# Folders of a project that hold no code of its own.
_SKIPPED = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


@dataclass(frozen=True)
class Uses:
    """The dotted names a project's code uses, and the files that could not be parsed."""

    names: tuple  # sorted
    files: int  # Python files read
    unparsed: tuple  # their paths


def _python_files(path: str):
    if os.path.isfile(path):
        yield path
        return
    for folder, subfolders, names in os.walk(path):
        subfolders[:] = sorted(d for d in subfolders
                               if not d.startswith(".") and d not in _SKIPPED)
        for name in sorted(names):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def _chain(node) -> list | None:
    """Return an attribute chain's parts (a.b.c -> [a, b, c]) if it starts at a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def names_in(source: str) -> set:
    """Return the dotted names one module's source uses (raise SyntaxError if it is not Python)."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # a local name -> the dotted name it was imported as
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name == "*":
                    used.add(node.module)
                    continue
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                used.add(f"{node.module}.{alias.name}")
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts = _chain(node)
            if parts is not None and parts[0] in bound:
                used.add(".".join([bound[parts[0]], *parts[1:]]))
    return used


def project_uses(path: str) -> Uses:
    """Return the names the Python files at path (a file, or a folder walked) use."""
    names: set[str] = set()
    files, unparsed = 0, []
    for file in _python_files(path):
        files += 1
        try:
            with open(file, "rb") as handle:
                names |= names_in(handle.read().decode("utf-8", "replace"))
        except (SyntaxError, ValueError, OSError, MemoryError, RecursionError):
            unparsed.append(file)
    return Uses(tuple(sorted(names)), files, tuple(unparsed))
