"""The package's layering: no module of retrieval/ imports itself back through another.

The import graph is read from the source with ast, so it sees what a test run might not: imports
inside functions count (they run the first time the function does, and a cycle through one only
shows up then, in whichever order modules happen to load). Imports under `if TYPE_CHECKING:` do
not count: they never run.
"""

import ast
import os
import unittest

from tests.support import ROOT, temporary_directory

PACKAGE = "retrieval"


def module_files(root: str = ROOT) -> dict:
    """Return {dotted module name: path} of every Python module under retrieval/."""
    modules = {}
    for directory, _, files in os.walk(os.path.join(root, PACKAGE)):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            parts = os.path.relpath(path, root)[:-len(".py")].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, type_only: bool = False):
    """Yield every Import and ImportFrom node that runs (with type_only, also those under
    `if TYPE_CHECKING:`), wherever it sits."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_only:
            children = node.orelse
        stack.extend(children)


def imported_modules(module: str, path: str, modules: dict, type_only: bool = False) -> set:
    """Return the modules of the package that one module imports."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    found = set()
    for node in _imports(tree, type_only):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from X import name` imports the submodule X.name when there is one, else X itself.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
        found.update(target for target in targets if target in modules and target != module)
    return found


def import_graph(root: str = ROOT, type_only: bool = False) -> dict:
    """Return {module: set of package modules it imports} for the whole package."""
    modules = module_files(root)
    return {module: imported_modules(module, path, modules, type_only)
            for module, path in modules.items()}


def find_cycle(graph: dict):
    """Return one import cycle as a list of modules (first == last), or None when there is none."""
    done, path, on_path = set(), [], set()

    def visit(module):
        path.append(module)
        on_path.add(module)
        for target in sorted(graph.get(module, ())):
            if target in on_path:
                return path[path.index(target):] + [target]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        on_path.discard(path.pop())
        done.add(module)
        return None

    for module in sorted(graph):
        if module not in done:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


class ImportCycleTest(unittest.TestCase):
    def test_the_package_has_no_import_cycle(self):
        graph = import_graph()
        self.assertIn("retrieval.core.database", graph)  # the walk found the package
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, "import cycle: " + " -> ".join(cycle or ()))

    def test_core_has_no_import_cycle_even_through_type_only_imports(self):
        # A type-only circle never runs, but it still says the modules cannot be read apart.
        graph = {module: targets for module, targets in import_graph(type_only=True).items()
                 if module.startswith("retrieval.core.")}
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, "import cycle: " + " -> ".join(cycle or ()))

    def test_a_cycle_is_found_however_it_is_imported(self):
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
        self.assertEqual(find_cycle(graph), ["a", "b", "c", "a"])
        self.assertIsNone(find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}))

    def test_function_level_imports_count_and_type_checking_ones_do_not(self):
        modules = {"retrieval.core.a": None, "retrieval.core.b": None, "retrieval.core.c": None,
                   "retrieval.core": None}
        source = ("from typing import TYPE_CHECKING\n"
                  "if TYPE_CHECKING:\n    from .c import C\n"
                  "def load():\n    from .b import load_b\n"
                  "from . import c as _c\n")
        path = os.path.join(temporary_directory(self), "a.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        self.assertEqual(imported_modules("retrieval.core.a", path, modules),
                         {"retrieval.core.b", "retrieval.core.c"})
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source.replace("from . import c as _c\n", ""))
        self.assertEqual(imported_modules("retrieval.core.a", path, modules), {"retrieval.core.b"})


if __name__ == "__main__":
    unittest.main()
