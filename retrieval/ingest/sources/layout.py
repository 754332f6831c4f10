"""Where an unpacked release keeps its importable code, read from its own metadata, and which of
its modules are its API: nothing is imported or run, `setup.py` least of all.

An sdist's import packages are found, in this order, from:

1. its build configuration: `setup.cfg` (read with configparser) `[options] package_dir`,
   `packages` and `[options.packages.find] where`; the literal `package_dir`, `packages` and
   `py_modules` of setup.py's `setup(...)` call (parsed with ast); `pyproject.toml` (read
   with tomllib) `[tool.setuptools] package-dir`, `packages` and
   `[tool.setuptools.packages.find] where`, Poetry's `packages` (`include`, `from`), Hatch's
   wheel `packages`, scikit-build-core's `wheel.packages`, maturin's `python-source` and
   `module-name` (a Rust extension's: pydantic-core's `python/`) and flit's module
   (`[tool.flit.module] name`, else the project's name);
2. the names its `*.egg-info/top_level.txt` lists (setuptools writes it into the sdist beside
   the code: sqlalchemy 1.4.46's `lib/SQLAlchemy.egg-info/`), of its own distribution (its
   PKG-INFO's Name), not of one it bundles;
3. the tree: the first of the declared roots, the egg-info's directory, `src/`, `lib/` and the
   top that holds a Python package (lightgbm 4.3.0's `src/` is C++, its package `lightgbm/`).

Several top-level packages, flat modules and namespace packages (a directory without
`__init__.py` that the metadata names, or that holds packages where nothing else does) are read
alike. Tests, benchmarks and examples are not API wherever they are (NOT_API_DIRECTORIES,
pytest's `test_*.py` and `*_test.py`, `conftest.py`, a `test/` holding such modules); a
top-level `test/` or `testing/` of an sdist is its test suite, while a package's own `testing`
or `test` module of helpers is API (`numpy.testing`, `django.test`).
"""

import ast
import configparser
import os
import tomllib
from collections.abc import Collection
from pathlib import Path

from ...core.names import normalized_name
from ..formats.sphinx_docs import pages_below, sphinx_project
from ..readers.code_deprecation import base_name
from ..readers.docstrings import PARSED, module_name
from ..tree import DEFAULT_MAX_FILE_BYTES, Unreadable, read_tree_file

# Directories that hold no API wherever they are in a package.
NOT_API_DIRECTORIES = frozenset({"tests", "benchmarks", "benchmark", "examples", "example",
                                 "__pycache__"})
# Top-level directories of an sdist that hold no importable part of the package (beside the above).
_NOT_PACKAGES = NOT_API_DIRECTORIES | frozenset({
    "test", "testing", "docs", "doc", "Doc", "scripts", "build", "dist", "asv_bench", "ci",
    "tools", "_backend"})
# Top-level modules of an sdist that are its build and tooling, not its API.
_NOT_MODULES = frozenset({"setup", "conftest", "noxfile", "fabfile", "tasks", "versioneer"})
# Where a tree without metadata saying otherwise keeps its code, after the top.
_CONVENTIONAL_ROOTS = ("src", "lib")


def is_test_module(name: str) -> bool:
    """Tell whether a file name is a test module by pytest's default `python_files`
    (`test_*.py`, `*_test.py`), or a conftest.py."""
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def test_suites(paths) -> set:
    """Return the `test` directories among '/'-separated file paths that hold a test module
    themselves (tornado/test/web_test.py): a test suite, as a `tests` directory is anywhere,
    while a package's `test` of helpers alone is API (django.test)."""
    return {directory for directory, _, name in (path.rpartition("/") for path in paths)
            if directory.rpartition("/")[2] == "test" and is_test_module(name)}


def is_api_path(relative: str, suites: Collection[str] = ()) -> bool:
    """Tell whether a module path (below its import root, '/'-separated) may be API: no
    directory of it is a test, benchmark or example directory or one of suites (test_suites
    of the paths beside it), nor is it a test module."""
    return _api_directories(relative, suites) and not is_test_module(relative.rpartition("/")[2])


def _api_directories(relative: str, suites: Collection[str] = ()) -> bool:
    """Tell whether no directory of a module path is a test, benchmark or example directory
    or one of suites."""
    directories = relative.split("/")[:-1]
    return not any(part in NOT_API_DIRECTORIES for part in directories) and not any(
        "/".join(directories[:end]) in suites for end in range(1, len(directories) + 1))


def _imported_beside(top: Path, directory: str, names: list, package: str) -> set:
    """Return the absolute dotted names the API modules of a package's directory import
    (package: its dotted name)."""
    imported: set = set()
    for name in names:
        if not name.endswith(".py") or is_test_module(name):
            continue
        relative = Path(directory, name).relative_to(top).as_posix()
        dotted = package if name == "__init__.py" else f"{package}.{name[:-3]}".lstrip(".")
        try:
            module = PARSED.parse(dotted, relative,
                                  read_tree_file(str(top), relative, DEFAULT_MAX_FILE_BYTES))
        except (OSError, Unreadable, UnicodeDecodeError, SyntaxError, ValueError,
                RecursionError):
            continue
        imported.update(module.imports.values())
    return imported


_INITS = ("__init__.py", "__init__.pyi")


def source_module_name(path: str, beside: Collection[str], packaged: bool = True) -> str | None:
    """Return the dotted name of the module a file below its import root is the source of, or
    None: a `.py`; a `.pyx` without a `.py` of its name (beside: the names of the files in its
    directory); a `.pyi` without either, in a package (packaged: each directory below the
    top-level one holds an `__init__`; mypy's `typeshed/` of the standard library's stubs is
    data, no package)."""
    stem, dot, suffix = path.rpartition(".")
    name = path.rpartition("/")[2][:-len(suffix) - 1] if dot else ""
    if suffix == "pyx" and f"{name}.py" not in beside:
        # A Cython module: what it defines for Python (readers/cython.py).
        return module_name(f"{stem}.py")
    if suffix == "pyi" and f"{name}.py" not in beside and f"{name}.pyx" not in beside:
        # A compiled module's stub (pydantic-core's _pydantic_core.pyi, a Rust extension's):
        # its signatures and docstrings are all the source says of it.
        return module_name(f"{stem}.py") if packaged else None
    return module_name(path)


def in_packages(path: str, files: dict) -> bool:
    """Tell whether each directory of a '/'-separated path below its top-level one holds an
    `__init__` (files: directory -> the names of its files)."""
    directories = path.split("/")[:-1]
    return all(any(init in files.get("/".join(directories[:end]), ()) for init in _INITS)
               for end in range(2, len(directories) + 1))


def _python_files(top: Path, base: Path, below: Path, prefix: str = "") -> list:
    """Return (path below top, module name) of every API module under below; base is the
    import root its names are relative to, prefix what they start with (package_dir maps)."""
    found = []
    packaged: dict = {}  # directory -> whether it and those above it up to below are packages
    for directory, subdirectories, names in os.walk(below):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".")
                                   and d not in NOT_API_DIRECTORIES)
        if test_suites(f"{os.path.basename(directory)}/{name}" for name in names):
            subdirectories[:] = []
            continue
        imported: set | None = None
        present = set(names)
        packaged[directory] = directory == str(below) or (
            packaged.get(os.path.dirname(directory), False)
            and any(init in present for init in _INITS))
        for name in names:
            path = Path(directory, name)
            relative = path.relative_to(base).as_posix()
            # Named as if below its package's own directory (package_dir's lib/__init__.py is
            # the package psycopg2 itself).
            named = f"{prefix.replace('.', '/')}/{relative}" if prefix else relative
            dotted = source_module_name(named, present, packaged[directory])
            if dotted is None or not _api_directories(relative):
                continue
            if is_test_module(name):
                # Named as pytest's tests are, yet imported by its package's own modules: a
                # module of the API (falcon 3.1.1's falcon/testing/test_case.py, whose
                # TestCase falcon.testing imports and its docs' autoclass documents).
                if imported is None:
                    imported = _imported_beside(top, directory, names,
                                                dotted.rpartition(".")[0])
                if not any(written == dotted or written.startswith(f"{dotted}.")
                           for written in imported):
                    continue
            found.append((path.relative_to(top).as_posix(), dotted))
    return sorted(found)


def _below(top: Path, relative: str) -> Path | None:
    """Return a directory a configuration names below top, or None (outside, or none)."""
    relative = relative.strip().strip("/") or "."
    path = (top / relative).resolve()
    root = top.resolve()
    if path != root and root not in path.parents:
        return None
    return path if path.is_dir() else None


def _lines(value: str) -> list:
    return [line.strip() for line in value.replace(",", "\n").split("\n") if line.strip()]


class Declared:
    """What a release's build configuration says about where its packages are."""

    def __init__(self) -> None:
        self.roots: list[str] = []  # directories below the top whose children are importable
        self.mapped: list[tuple] = []  # (dotted package, directory below the top)
        self.names: list[str] = []  # top-level packages or modules it names

    def package_dir(self, mapping: dict):
        for package, directory in mapping.items():
            if not isinstance(directory, str):
                continue
            if package in ("", None):
                self.roots.append(directory)
            elif isinstance(package, str):
                self.mapped.append((package, directory))

    def packages(self, names):
        if isinstance(names, list):
            self.names.extend(name.split(".")[0] for name in names
                              if isinstance(name, str) and name.split(".")[0].isidentifier())

    def where(self, directories):
        if isinstance(directories, str):
            directories = [directories]
        if isinstance(directories, list):
            self.roots.extend(d for d in directories if isinstance(d, str))


def pyproject_data(top: Path) -> dict:
    """Return a source tree's pyproject.toml as data ({} if it has none or it is no TOML)."""
    path = top / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _build_backend(pyproject: dict) -> str | None:
    """Return the build backend pyproject.toml names, or None."""
    system = pyproject.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    return backend if isinstance(backend, str) else None


def _setuptools_builds(pyproject: dict) -> bool:
    """Tell whether setuptools builds the release (its configuration is then the one that
    counts): no build backend named, or setuptools'. lightgbm 4.3.0's setup.cfg says
    `where = lightgbm`, a leftover: scikit-build-core builds it."""
    backend = _build_backend(pyproject)
    return backend is None or backend.startswith("setuptools")


def setup_cfg_parser(top: Path) -> configparser.ConfigParser | None:
    """Return a release's setup.cfg read (never interpolated), or None if it has none that
    reads."""
    path = top / "setup.cfg"
    if not path.is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return None
    return parser


def _setup_calls(top: Path) -> list:
    """Return each `setup(...)` call of a release's setup.py (parsed, never run), with the
    names its top binds (_bound_at_top); [] if it has none that parses."""
    path = top / "setup.py"
    if not path.is_file():
        return []
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    bound = _bound_at_top(tree)
    return [(node, bound) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and base_name(node) == "setup"]


def _setup_cfg(top: Path, declared: Declared):
    parser = setup_cfg_parser(top)
    if parser is None:
        return
    if parser.has_option("options", "package_dir"):
        mapping = {}
        for line in _lines(parser.get("options", "package_dir")):
            package, _, directory = line.rpartition("=")
            mapping[package.strip()] = directory.strip()
        declared.package_dir(mapping)
    if parser.has_option("options", "packages"):
        value = parser.get("options", "packages").strip()
        if not value.startswith(("find:", "find_namespace:")):
            declared.packages(_lines(value))
    if parser.has_option("options.packages.find", "where"):
        declared.where(_lines(parser.get("options.packages.find", "where")))


def _setup_py(top: Path, declared: Declared):
    """Read the literal `package_dir`, `packages` and `py_modules` of setup.py's `setup(...)`
    call (parsed, never run: psycopg2 2.9.5's `package_dir={'psycopg2': 'lib'}` is said
    nowhere else). The names count only where every one of them is written out: sympy 1.9's
    `packages=['sympy'] + modules` beside `py_modules=['isympy']` names more than isympy."""
    for node, bound in _setup_calls(top):
        names: list | None = []
        for keyword in node.keywords:
            value = _setup_value(keyword.value, bound)
            if keyword.arg == "package_dir" and isinstance(value, dict):
                declared.package_dir(value)
            elif keyword.arg in ("packages", "py_modules", None) and names is not None:
                # None: `**options`, which may name packages too.
                names = names + list(value) if isinstance(value, (list, tuple)) \
                    and keyword.arg is not None else None
        if names:
            declared.packages(names)


def setup_requirements(top: Path) -> list:
    """Return the requirements a release's setuptools configuration writes out: setup.cfg's
    `[options] install_requires`, else the literal `install_requires` of setup.py's
    `setup(...)` call, or a list a name bound at its top gives (python-ldap 3.4.3's
    `'pyasn1 >= 0.3.7'`, said nowhere else); parsed, never run."""
    parser = setup_cfg_parser(top)
    written = parser.get("options", "install_requires", fallback=None) \
        if parser is not None else None
    if written is not None:
        return [line.strip() for line in written.split("\n")
                if line.strip() and not line.strip().startswith("#")]
    for node, bound in _setup_calls(top):
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                found = _setup_value(keyword.value, bound)
                return [item for item in found if isinstance(item, str)] \
                    if isinstance(found, (list, tuple)) else []
    return []


def _bound_at_top(tree) -> dict:
    """Return the names setup.py binds at its top level (the last binding of each)."""
    return {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}


def _setup_value(node, bound: dict, depth: int = 0):
    """Return the value an argument of setup.py's `setup(...)` is written as: a literal, a
    name its top binds to one, a list or dict of those, or `os.path.join` of strings (pycurl's
    `package_dir={PY_PACKAGE: os.path.join('python', 'curl')}`); None for anything else."""
    if depth > 8:  # a name bound to itself, or names bound in a chain that long
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Name) and node.id in bound:
        return _setup_value(bound[node.id], bound, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_setup_value(item, bound, depth + 1) for item in node.elts]
        return items if all(item is not None for item in items) else None
    if isinstance(node, ast.Dict) and None not in node.keys:
        keys = [_setup_value(key, bound, depth + 1) for key in node.keys]
        values = [_setup_value(value, bound, depth + 1) for value in node.values]
        return dict(zip(keys, values, strict=True)) \
            if all(isinstance(key, str) for key in keys) else None
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.path.join" \
            and not node.keywords:
        parts = [_setup_value(argument, bound, depth + 1) for argument in node.args]
        return "/".join(parts) if parts and all(isinstance(p, str) for p in parts) else None
    return None


def _pyproject(pyproject: dict, declared: Declared):
    tool = pyproject.get("tool", {})
    if not isinstance(tool, dict):
        return
    declared.names.extend(_flit_module(pyproject, tool))
    setuptools = tool.get("setuptools")
    if isinstance(setuptools, dict) and _setuptools_builds(pyproject):
        if isinstance(setuptools.get("package-dir"), dict):
            declared.package_dir(setuptools["package-dir"])
        declared.packages(setuptools.get("packages"))
        packages = setuptools.get("packages")
        if isinstance(packages, dict) and isinstance(packages.get("find"), dict):
            declared.where(packages["find"].get("where"))
    poetry = tool.get("poetry")
    if isinstance(poetry, dict) and isinstance(poetry.get("packages"), list):
        for entry in poetry["packages"]:
            if isinstance(entry, dict) and isinstance(entry.get("include"), str):
                declared.names.append(entry["include"].split("/")[0].split(".")[0])
                if isinstance(entry.get("from"), str):
                    declared.roots.append(entry["from"])
    maturin = tool.get("maturin")
    if isinstance(maturin, dict) and (_build_backend(pyproject) or "").startswith("maturin"):
        # A Rust extension's Python part (pydantic-core's `python/pydantic_core/`): maturin
        # packs python-source's package of module-name's first part, its stub beside it.
        declared.where(maturin.get("python-source"))
        if isinstance(maturin.get("module-name"), str):
            declared.names.append(maturin["module-name"].split(".")[0])
        declared.packages(maturin.get("python-packages"))
    hatch = tool.get("hatch", {})
    wheel = hatch.get("build", {}).get("targets", {}).get("wheel", {}) \
        if isinstance(hatch, dict) else {}
    scikit = tool.get("scikit-build", {})
    for packages in (wheel.get("packages") if isinstance(wheel, dict) else None,
                     scikit.get("wheel", {}).get("packages") if isinstance(scikit, dict)
                     and isinstance(scikit.get("wheel"), dict) else None):
        if isinstance(packages, list):
            for entry in packages:
                if isinstance(entry, str):
                    parent, _, name = entry.strip("/").rpartition("/")
                    declared.names.append(name)
                    if parent:
                        declared.roots.append(parent)


def _flit_module(pyproject: dict, tool: dict) -> list:
    """Return the import names flit builds into a wheel, where flit_core builds the release:
    `[tool.flit.module] name`, else the project's name with `-` as `_` (flit_core's config),
    as written and lowercased; else none."""
    if not (_build_backend(pyproject) or "").startswith("flit_core"):
        return []
    flit = tool.get("flit")
    module = flit.get("module") if isinstance(flit, dict) else None
    project = pyproject.get("project")
    name = module.get("name") if isinstance(module, dict) else \
        project.get("name") if isinstance(project, dict) else None
    if not isinstance(name, str):
        return []
    top = name.replace("-", "_").split(".")[0]
    return list(dict.fromkeys([top, top.lower()]))


def _top_level(top: Path, distribution: str | None) -> tuple:
    """Return (the names *.egg-info/top_level.txt lists, the directories holding it), of the
    egg-info of the distribution the sdist is, where its name is given: another's it bundles
    (astroquery 0.4.6's `astropy_helpers/astropy_helpers.egg-info`, a build helper) says
    nothing of its code."""
    names, roots = [], []
    for info in sorted([*top.glob("*.egg-info/top_level.txt"),
                        *top.glob("*/*.egg-info/top_level.txt")]):
        if distribution is not None and normalized_name(
                info.parent.name.removesuffix(".egg-info")) != normalized_name(distribution):
            continue
        roots.append(info.parent.parent)
        for line in info.read_text(encoding="utf-8", errors="replace").split("\n"):
            name = line.strip().replace("/", ".").split(".")[0]
            if name.isidentifier():
                names.append(name)
    return names, roots


def _holds_python(directory: Path) -> bool:
    return any(name.endswith(".py") for _, _, names in os.walk(directory) for name in names)


def _scan(base: Path, names) -> list:
    """Return the top-level packages (directories) and modules (.py files) of an import root,
    those named where names is given, else every one that looks like one."""
    found = []
    if names is not None:
        for name in dict.fromkeys(names):
            if (base / name).is_dir() and _holds_python(base / name):
                found.append(base / name)
            elif (base / f"{name}.py").is_file():
                found.append(base / f"{name}.py")
        return found
    namespaces = []
    for entry in sorted(base.iterdir()):
        if not entry.name.isidentifier() and not entry.name.endswith(".py"):
            continue
        if entry.is_dir() and entry.name not in _NOT_PACKAGES:
            if (entry / "__init__.py").is_file():
                found.append(entry)
            elif any((child / "__init__.py").is_file() for child in entry.iterdir()
                     if child.is_dir()):
                namespaces.append(entry)
        elif entry.is_file() and entry.suffix == ".py" and entry.stem not in _NOT_MODULES \
                and entry.stem.isidentifier() and entry.stem != "__init__":
            found.append(entry)
    # A namespace package is read where no regular package is (a top-level `tools/` with a
    # package in it is no more API than its neighbours).
    packages = [entry for entry in found if entry.is_dir()]
    return found if packages else found + namespaces


def sdist_modules(top: Path, distribution: str | None = None) -> tuple:
    """Return (path below top, module name) of the API modules of an unpacked sdist;
    distribution: its name, as its metadata (PKG-INFO's Name) gives it, where known."""
    declared = Declared()
    pyproject = pyproject_data(top)
    if _setuptools_builds(pyproject):
        _setup_cfg(top, declared)
        _setup_py(top, declared)
    _pyproject(pyproject, declared)
    listed, info_roots = _top_level(top, distribution)
    found: list = []
    for package, directory in declared.mapped:
        path = _below(top, directory)
        if path is not None and package.replace(".", "").isidentifier():
            found.extend(_python_files(top, path, path, package))
    names = list(dict.fromkeys(declared.names + listed)) or None
    # A directory with an __init__.py is a package, not where packages are, unless the build
    # configuration says it is (future 0.18's `package_dir={'': 'src'}` beside a
    # `src/__init__.py` that only setup.py imports).
    declared_roots = [_below(top, root) for root in declared.roots]
    roots = [path for path in declared_roots if path is not None] + [
        path for path in (*info_roots, *(_below(top, root) for root in _CONVENTIONAL_ROOTS))
        if path is not None and not (path / "__init__.py").is_file()] + [top]
    for base in dict.fromkeys(roots):
        entries = _scan(base, names)
        if not entries:
            continue
        for entry in entries:
            if entry.is_dir():
                found.extend(_python_files(top, base, entry))
            else:
                found.append((entry.relative_to(top).as_posix(), entry.stem))
        break
    return tuple(sorted(dict.fromkeys(found)))


def other_docs_folder(top: Path, max_file_bytes: int) -> str | None:
    """Return the top-level folder of an sdist that is its Sphinx docs under another name than
    docs/, doc/ or Doc/ (nltk's `web/`, invoke's `sites/`): neither an import package nor a
    folder of tests, examples or tooling, with a conf.py at most as deep as a docs folder's
    (sphinx_docs.sphinx_project) beside its root document; of several, the one with the most
    pages; None if there is none."""
    found = []
    for entry in sorted(top.iterdir()) if top.is_dir() else ():
        if not entry.is_dir() or entry.is_symlink() or entry.name.startswith((".", "_")) \
                or entry.name in _NOT_PACKAGES or (entry / "__init__.py").exists():
            continue
        project = sphinx_project(str(top), entry.name, max_file_bytes)
        if project is not None and any(
                (top / project.root / (project.conf.root_doc + suffix)).is_file()
                for suffix in project.conf.source_suffix):
            found.append((pages_below(str(top), entry.name), entry.name))
    return max(found)[1] if found else None


def wheel_modules(top: Path) -> tuple:
    """Return (path below top, module name) of every API module of an unpacked wheel."""
    found = []
    entries = sorted(top.iterdir())
    at_top = {entry.name for entry in entries}
    for entry in entries:
        if entry.name.endswith((".dist-info", ".data")):
            continue
        if entry.is_dir() and entry.name not in NOT_API_DIRECTORIES:
            found.extend(_python_files(top, top, entry))
        elif (dotted := source_module_name(entry.name, at_top)) is not None \
                and is_api_path(entry.name):
            found.append((entry.name, dotted))
    return tuple(found)
