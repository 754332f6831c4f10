"""The package's layering: no import cycle, and the imports that must never be.

The rules are docs/architecture.md's.

The import graph is read from the source with ast, so it sees what a test run might not: imports
inside functions count (they run the first time the function does, and a cycle through one only
shows up then, in whichever order modules happen to load). For cycles, imports under
`if TYPE_CHECKING:` do not count: they never run. For the layering rules they do: a type the
core names from above it is a dependency on what is above it all the same.
"""

import ast
import os
import sys
import unittest

from tests.support import ROOT, temporary_directory

TIER = "unit"

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
    """Yield every Import and ImportFrom node that runs (type_only: and those for mypy alone)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_only:
            children = node.orelse
        stack.extend(children)


def _targets(module: str, path: str, modules: dict, type_only: bool) -> set:
    """Return every dotted name one module imports: package modules, else what it names."""
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
        found.update(target for target in targets if target != module)
    return found


def imported_modules(module: str, path: str, modules: dict, type_only: bool = False) -> set:
    """Return the modules of the package that one module imports."""
    return {target for target in _targets(module, path, modules, type_only) if target in modules}


def import_graph(root: str = ROOT, type_only: bool = False) -> dict:
    """Return {module: set of package modules it imports} for the whole package."""
    modules = module_files(root)
    return {module: imported_modules(module, path, modules, type_only)
            for module, path in modules.items()}


def external_imports(root: str = ROOT) -> dict:
    """Return {module: top-level names it imports from outside the package}, type-only included."""
    modules = module_files(root)
    return {module: {target.split(".")[0] for target in _targets(module, path, modules, True)
                     if target.split(".")[0] != PACKAGE}
            for module, path in modules.items()}


def within(module: str, package: str) -> bool:
    """Tell whether a dotted module is package itself or inside it."""
    return module == package or module.startswith(package + ".")


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

    def test_no_cycle_even_through_type_only_imports(self):
        # A type-only circle never runs, but it still says the modules cannot be read apart.
        cycle = find_cycle(import_graph(type_only=True))
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


# The imports that must never be, each (who, what they may not import, why): package prefixes.
# Every import counts, type-only ones too.
FORBIDDEN = (
    ("retrieval.http", "retrieval.ingest", "the HTTP layer serves snapshots; it builds none"),
    ("retrieval.http", "retrieval.serve", "the app runs under any WSGI server"),
    ("retrieval.ingest", "retrieval.http", "a build knows nothing of HTTP"),
    ("retrieval.ingest", "retrieval.serve", "a build knows nothing of serving"),
    ("retrieval.ingest", "retrieval.mcp", "a build knows nothing of serving"),
    ("retrieval.settings", "retrieval.http", "every layer reads the settings"),
    ("retrieval.settings", "retrieval.serve", "every layer reads the settings"),
    ("retrieval.hosts", "retrieval.http", "the settings read the hosts"),
    ("retrieval.rerank", "retrieval.http", "a model serves the core, not a route"),
    ("retrieval.rerank", "retrieval.ingest", "a model serves the core, not a build"),
    # The builder's wings, bottom up: readers (one document), formats (one kind of tree),
    # sources (where trees come from), then the builder; nothing reaches up a floor.
    ("retrieval.ingest.readers", "retrieval.ingest.formats", "a reader reads one document"),
    ("retrieval.ingest.readers", "retrieval.ingest.sources", "a reader fetches nothing"),
    ("retrieval.ingest.readers", "retrieval.ingest.builder", "a reader builds nothing"),
    ("retrieval.ingest.formats", "retrieval.ingest.sources", "a format reads a tree on disk"),
    ("retrieval.ingest.formats", "retrieval.ingest.builder", "a format builds nothing"),
    ("retrieval.ingest.sources", "retrieval.ingest.builder", "a source fetches, builds nothing"),
    ("retrieval.ingest.tree", "retrieval.ingest.readers", "the model is the bottom floor"),
    ("retrieval.ingest.unit", "retrieval.ingest.readers", "the model is the bottom floor"),
    ("retrieval.ingest", "retrieval.project", "a project build is made of builds"),
)
# All serve/ may read of http/: the contract and the admission mark it shares with the app,
# never the app's internals.
SERVE_MAY_READ = ("retrieval.http.contract", "retrieval.http.inflight")
# The libraries beyond the standard library each package may import: the runtime dependency
# (Waitress) in serve/ alone, each extra's in its own package; everything else is stdlib only.
DEPENDENCIES = {
    "retrieval.serve": {"waitress"},
    "retrieval.rerank": {"numpy", "threadpoolctl", "tokenizers"},  # the semantic extra
    "retrieval.mcp": {"mcp", "mcp_types", "anyio", "h11", "uvicorn", "requests"},
    "retrieval.integrations": {"langchain_core", "llama_index", "pydantic"},
    "retrieval.client": {"requests", "urllib3"},  # the client extra
}
# SQL is the snapshot's: the core reads it, the build writes it.
SQL_OWNERS = ("retrieval.core", "retrieval.ingest")


class LayeringTest(unittest.TestCase):
    def test_the_core_imports_nothing_above_it(self):
        graph = import_graph(type_only=True)
        above = [f"{module} imports {target}" for module, targets in sorted(graph.items())
                 if within(module, "retrieval.core")
                 for target in sorted(targets) if not within(target, "retrieval.core")]
        self.assertEqual(above, [])

    def test_no_module_imports_what_its_layer_may_not(self):
        graph = import_graph(type_only=True)
        broken = [f"{module} imports {target}: {why}"
                  for module, targets in sorted(graph.items()) for who, what, why in FORBIDDEN
                  if within(module, who) for target in sorted(targets) if within(target, what)]
        self.assertEqual(broken, [])

    def test_serve_reads_only_the_contract_of_http(self):
        graph = import_graph(type_only=True)
        reads = {target for module, targets in graph.items() if within(module, "retrieval.serve")
                 for target in targets if within(target, "retrieval.http")}
        self.assertLessEqual(reads, set(SERVE_MAY_READ))

    def test_only_the_entry_point_imports_the_command_line(self):
        graph = import_graph(type_only=True)
        importers = {module for module, targets in graph.items()
                     if not within(module, "retrieval.cli")
                     and any(within(target, "retrieval.cli") for target in targets)}
        self.assertEqual(importers, {"retrieval.__main__"})

    def test_each_library_is_imported_only_where_it_is_a_dependency(self):
        found = external_imports()
        self.assertIn("sqlite3", found["retrieval.core.database"])  # the walk sees externals
        stdlib = set(sys.stdlib_module_names) | {"__future__"}
        broken = []
        for module, names in sorted(found.items()):
            allowed = set().union(*(libraries for package, libraries in DEPENDENCIES.items()
                                    if within(module, package)))
            broken += [f"{module} imports {name}" for name in sorted(names - stdlib - allowed)]
            if "sqlite3" in names and not any(within(module, owner) for owner in SQL_OWNERS):
                broken.append(f"{module} imports sqlite3")
        self.assertEqual(broken, [])

    def test_a_forbidden_import_is_caught_even_when_only_for_types(self):
        directory = temporary_directory(self)
        path = os.path.join(directory, "a.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("from typing import TYPE_CHECKING\n"
                         "if TYPE_CHECKING:\n    from ..http.app import RetrievalApp\n")
        modules = {"retrieval.core.a": path, "retrieval.http.app": None}
        self.assertEqual(imported_modules("retrieval.core.a", path, modules), set())
        self.assertEqual(imported_modules("retrieval.core.a", path, modules, type_only=True),
                         {"retrieval.http.app"})


if __name__ == "__main__":
    unittest.main()
