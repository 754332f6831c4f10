"""What a project pins: its lock file, else requirements, else pyproject.toml and what is installed.

In order of trust, the first found in the project's folder: `pylock.toml` (PEP 751), `uv.lock`,
`poetry.lock`, `pdm.lock`, `Pipfile.lock`, `requirements.txt` (else every `requirements*.txt`),
else `pyproject.toml`'s dependencies at the versions installed in the environment. PATH may also
name one of these files. Each reader gives Pins: a distribution (PEP 503 name), its version,
whether the project names it itself (direct) or only something it depends on does, and where
the lock says it comes from. Markers are evaluated for the target interpreter (markers.py); a
dependency whose marker does not hold there is left out, as an installer would leave it out.
Dependency groups asked for (`--group`, the target's `dependency_groups`) add their dependencies
to the direct ones: PEP 735's `[dependency-groups]`, Poetry's and PDM's groups in
pyproject.toml, uv.lock's project `dev-dependencies`, pylock.toml's group markers, a
Pipfile.lock section; a group that is not defined is refused, naming those that are.

Nothing here fetches: it reads files (tomllib, json) and an environment's metadata.
"""

import importlib.metadata
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..core.errors import UserError
from ..core.names import normal_version, normalized_name, same_version
from ..ingest.sources.packages import site_packages
from .markers import MarkerError, evaluate

# The lock files, most trusted first; requirements files and pyproject.toml come after them.
LOCKFILES = ("pylock.toml", "uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock")
INDEX = "index"  # a Pin's origin when the lock has it from a package index


class PinsError(UserError):
    """A project whose pins cannot be read: one line naming the file and why."""


@dataclass(frozen=True)
class Pin:
    """One dependency as the project pins it."""

    name: str  # PEP 503 normal form
    version: str | None  # None: not pinned (note says what was given)
    direct: bool = True  # the project names it itself
    origin: str = INDEX  # "index", else where the lock has it from (a git URL, a path)
    note: str = ""  # what the reader has to say about it (not pinned, a URL, a constraint)
    installed: str | None = None  # the version in the environment, if one was read


@dataclass(frozen=True)
class Pins:
    """What a project pins: the file read, its pins (sorted by name), and notes on stderr."""

    lockfile: str  # the file's name (uv.lock, requirements.txt, pyproject.toml)
    path: str
    pins: tuple
    notes: tuple = ()
    environment: str | None = None  # the environment whose versions were read, if any
    closure: bool = False  # the pins include what the project's own depend on (--all, a lock)


# --- PEP 508 requirement strings -------------------------------------------------------------

_REQUIREMENT = re.compile(r"""\s*
    (?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*
    (?:\[(?P<extras>[^\]]*)\])?\s*
    (?:@\s*(?P<url>[^;\s]+)\s*|(?P<spec>\(?[^;@]*?\)?))\s*
    (?:;\s*(?P<marker>.*?))?\s*$""", re.VERBOSE)


@dataclass(frozen=True)
class Requirement:
    """One PEP 508 requirement: `name[extras] specifier ; marker` or `name @ url`."""

    name: str  # normalised
    extras: tuple
    specifier: str  # "==2.2.2", ">=1,<2", "" (none)
    marker: str
    url: str | None

    def exact(self) -> str | None:
        """Return the version of an `==` (or `===`) pin of one version, else None."""
        match = re.fullmatch(r"\s*===?\s*([^,*\s]+)\s*", self.specifier.strip("()"))
        return match.group(1) if match else None


def parse_requirement(text: str, where: str) -> Requirement:
    """Parse one PEP 508 requirement string; refuse (PinsError) what is not one."""
    match = _REQUIREMENT.fullmatch(text)
    if match is None:
        raise PinsError(f"{where}: {text.strip()!r} is not a requirement (PEP 508)")
    extras = tuple(e.strip() for e in (match["extras"] or "").split(",") if e.strip())
    return Requirement(normalized_name(match["name"]), extras, (match["spec"] or "").strip(),
                       (match["marker"] or "").strip(), match["url"])


def holds(marker: str | None, environment: Mapping, where: str) -> bool:
    """Whether a marker holds for the target (an empty one always does); refuse a broken one."""
    if not marker:
        return True
    try:
        return evaluate(marker, environment)
    except MarkerError as error:
        raise PinsError(f"{where}: {error}") from None


# --- the environment -------------------------------------------------------------------------

def installed_versions(env: str) -> dict:
    """Return {normalised name: version} of the distributions installed in env (a venv or
    site-packages); refuse a path that is neither."""
    path = Path(env)
    site = site_packages(path) if path.is_dir() else None
    if site is None:
        raise PinsError(f"--env {env}: not a virtual environment or site-packages directory "
                        "(no site-packages with *.dist-info in it)")
    versions: dict = {}
    for dist in importlib.metadata.distributions(path=[str(site)]):
        name = normalized_name(dist.metadata["Name"] or "")
        if name and dist.version and name not in versions:
            versions[name] = dist.version
    return versions


# --- finding the file ------------------------------------------------------------------------

def find_pins_file(path: str) -> tuple:
    """Return (kind, files) of what a project path pins, most trusted first.

    kind is a LOCKFILES name, "requirements" or "pyproject.toml"; a file given is read as its
    name says (any *.txt as requirements).
    """
    given = Path(path)
    if given.is_file():
        name = given.name
        if name in LOCKFILES or name == "pyproject.toml":
            return name, [given]
        if name.endswith(".txt"):
            return "requirements", [given]
        raise PinsError(f"{path}: not a lock file ({', '.join(LOCKFILES)}), a requirements "
                        "file (*.txt) or pyproject.toml")
    if not given.is_dir():
        raise PinsError(f"{path}: no such file or directory")
    for name in LOCKFILES:
        if (given / name).is_file():
            return name, [given / name]
    if (given / "requirements.txt").is_file():
        return "requirements", [given / "requirements.txt"]
    found = sorted(given.glob("requirements*.txt"))
    if found:
        return "requirements", found
    if (given / "pyproject.toml").is_file():
        return "pyproject.toml", [given / "pyproject.toml"]
    raise PinsError(f"{path}: pins nothing this reads: no {', '.join(LOCKFILES)}, "
                    "requirements*.txt or pyproject.toml")


def _toml(path: Path) -> dict:
    try:
        with open(path, "rb") as source:
            return tomllib.load(source)
    except OSError as error:
        raise PinsError(f"{path}: cannot read it: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PinsError(f"{path}: not TOML: {error}") from None


def asked_groups(environment: Mapping) -> list:
    """Return the dependency groups asked for (`--group`), sorted."""
    return sorted(environment.get("dependency_groups") or ())


def _unknown_group(group: str, where: str, defined) -> PinsError:
    """The error of a --group that where does not define, naming those it does."""
    return PinsError(f"--group {group}: {where} defines no such dependency group (it defines: "
                     f"{', '.join(sorted(defined)) or 'none'})")


def _requirement_names(texts, environment: Mapping, where: str) -> list:
    """Return the names of requirement strings whose markers hold."""
    names = []
    for text in texts:
        requirement = parse_requirement(str(text), where)
        if holds(requirement.marker, environment, where):
            names.append(requirement.name)
    return names


def _group_tables(document: dict) -> dict:
    """Return {normalised group: its entries} of a pyproject.toml: PEP 735's
    `[dependency-groups]`, PDM's `[tool.pdm.dev-dependencies]` (requirement strings, include
    tables), Poetry's `[tool.poetry.group.NAME.dependencies]` and its old `dev-dependencies`
    (name tables: the names as requirements)."""
    tool = document.get("tool")
    if not isinstance(tool, dict):
        tool = {}
    groups: dict = {}
    for table in (document.get("dependency-groups"), tool.get("pdm", {}).get("dev-dependencies")):
        if isinstance(table, dict):
            for name, entries in table.items():
                if isinstance(entries, list):
                    groups.setdefault(normalized_name(name), []).extend(entries)
    poetry = tool.get("poetry", {})
    tables = {name: group.get("dependencies") for name, group in
              (poetry.get("group") or {}).items() if isinstance(group, dict)}
    if isinstance(poetry.get("dev-dependencies"), dict):
        tables.setdefault("dev", poetry["dev-dependencies"])
    for name, dependencies in tables.items():
        if isinstance(dependencies, dict):
            groups.setdefault(normalized_name(name), []).extend(
                dependency for dependency in dependencies if dependency.lower() != "python")
    return groups


def _group_names(document: dict, environment: Mapping, path: Path) -> list:
    """Return the names the asked-for dependency groups of a pyproject.toml hold, includes
    (PEP 735's `{include-group = "..."}`) followed; refuse a group it does not define."""
    groups = _group_tables(document)
    names: list = []

    def add(group: str, including: tuple) -> None:
        if group in including:
            raise PinsError(f"{path}: dependency group {group} includes itself")
        if group not in groups:
            raise _unknown_group(group, str(path), groups)
        for entry in groups[group]:
            if isinstance(entry, dict) and isinstance(entry.get("include-group"), str):
                add(normalized_name(entry["include-group"]), (*including, group))
            elif isinstance(entry, str):
                names.extend(_requirement_names(
                    [entry], environment, f"{path} dependency group {group}"))

    for group in asked_groups(environment):
        add(group, ())
    return names


def _project_names(folder: Path, environment: Mapping) -> list | None:
    """Return the names pyproject.toml beside a lock file says the project depends on, or None.

    `[project].dependencies` (markers evaluated), else Poetry's `[tool.poetry.dependencies]`
    (without python), and the dependency groups asked for; None without a pyproject.toml or
    either table (and no group asked for).
    """
    path = folder / "pyproject.toml"
    if not path.is_file():
        return None
    document = _toml(path)
    grouped = _group_names(document, environment, path)
    project = document.get("project")
    if isinstance(project, dict) and isinstance(project.get("dependencies"), list):
        return _requirement_names(project["dependencies"], environment,
                                  f"{path} [project].dependencies") + grouped
    poetry = document.get("tool", {}).get("poetry", {}).get("dependencies")
    if isinstance(poetry, dict):
        return [normalized_name(name) for name in poetry if name.lower() != "python"] + grouped
    return grouped or None


# --- the readers -----------------------------------------------------------------------------

def _closure(direct: list, edges: Mapping) -> list:
    """Return direct's names and every name they reach through edges ({name: [name]})."""
    seen: dict = {}
    stack = list(reversed(direct))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen[name] = True
        stack.extend(reversed(edges.get(name, ())))
    return list(seen)


def _select(locked: Mapping, direct: list | None, edges: Mapping, transitive: bool,
            notes: list, where: str) -> list:
    """Return the Pins of a lock: direct ones by default, their closure with transitive.

    locked: {name: Pin (direct=False)}; direct: the names the project names, or None when the
    lock does not say (then every locked package counts as direct, and a note says so).
    """
    if direct is None:
        notes.append(f"{where} does not say which dependencies are the project's own: "
                     "every locked package is read as direct")
        direct = list(locked)
    wanted = _closure(direct, edges) if transitive else list(dict.fromkeys(direct))
    pins = []
    for name in wanted:
        if name in locked:
            pins.append(replace(locked[name], direct=name in direct))
        elif name in direct:
            pins.append(Pin(name, None, True, note=f"not in {where}"))
    return pins


def _origin(source: object) -> str:
    """Return where a uv.lock or pylock.toml package comes from: "index", or the place named."""
    if not isinstance(source, dict) or "registry" in source or not source:
        return INDEX
    for key in ("git", "url", "path", "directory", "editable", "virtual"):
        if key in source:
            return f"{key}: {source[key]}"
    return INDEX


def _packages(document: dict, table: str, marker: str, environment: Mapping, path: Path):
    """Yield (normalised name, package) of a lock's package tables whose marker holds."""
    for package in document.get(table, []):
        if not isinstance(package, dict) or "name" not in package:
            continue
        if not isinstance(package.get(marker), str | None):
            continue  # not a marker: (an old poetry.lock's) nothing to evaluate
        if holds(package.get(marker), environment, str(path)):
            yield normalized_name(package["name"]), package


def read_uv_lock(path: Path, environment: Mapping, transitive: bool, notes: list) -> list:
    """uv.lock: the project (a package whose source is editable or virtual) names the direct
    dependencies; each package's dependencies (markers on the edges) the rest."""
    document = _toml(path)
    packages = [p for p in document.get("package", []) if isinstance(p, dict) and "name" in p]
    roots = [p for p in packages if isinstance(p.get("source"), dict)
             and ({"editable", "virtual"} & set(p["source"])) and p["source"].get(
                 "editable", p["source"].get("virtual")) in (".", "")]
    if not roots:  # a workspace member, or a lock of a script
        roots = [p for p in packages if isinstance(p.get("source"), dict)
                 and {"editable", "virtual"} & set(p["source"])]
    root_names = {normalized_name(p["name"]) for p in roots}
    locked: dict = {}
    for package in packages:
        name = normalized_name(package["name"])
        if name in root_names:
            continue
        markers = package.get("resolution-markers") or []
        if name in locked and not any(holds(m, environment, str(path)) for m in markers):
            continue  # a fork of the resolution for another environment
        locked[name] = Pin(name, package.get("version"), False, _origin(package.get("source")))

    def edges_of(package) -> list:
        found = []
        for edge in package.get("dependencies", []):
            if isinstance(edge, dict) and "name" in edge \
                    and holds(edge.get("marker"), environment, str(path)):
                found.append(normalized_name(edge["name"]))
        for extra in (package.get("optional-dependencies") or {}):
            if extra in environment.get("extras", ()):
                found += [normalized_name(edge["name"])
                          for edge in package["optional-dependencies"][extra]]
        return found

    edges = {normalized_name(p["name"]): edges_of(p) for p in packages}
    direct = None
    if roots:
        direct = [name for root in roots for name in edges_of(root) if name not in root_names]
        groups = {group: edges for root in roots
                  for group, edges in (root.get("dev-dependencies") or {}).items()}
        for group in asked_groups(environment):
            if group not in groups:
                raise _unknown_group(group, str(path), groups)
            direct += [normalized_name(edge["name"]) for edge in groups[group]
                       if isinstance(edge, dict) and "name" in edge
                       and holds(edge.get("marker"), environment, str(path))]
    elif asked_groups(environment):
        raise PinsError(f"--group {asked_groups(environment)[0]}: {path} has no project whose "
                        "dependency groups it could read")
    return _select(locked, direct, edges, transitive, notes, path.name)


def read_pylock(path: Path, environment: Mapping, transitive: bool, notes: list) -> list:
    """pylock.toml (PEP 751): every package whose marker holds; direct ones from pyproject.toml
    beside it, else those no other package depends on (when the lock records dependencies)."""
    document = _toml(path)
    listed = document.get("dependency-groups")
    for group in asked_groups(environment):
        if isinstance(listed, list) and group not in map(normalized_name, listed):
            raise _unknown_group(group, str(path), listed)
    environment = dict(environment, dependency_groups=frozenset(
        document.get("default-groups") or ()) | set(asked_groups(environment)))
    locked: dict = {}
    edges: dict = {}
    recorded = False
    for name, package in _packages(document, "packages", "marker", environment, path):
        origin = INDEX
        for key in ("vcs", "directory", "archive"):
            if isinstance(package.get(key), dict):
                where = package[key].get("url") or package[key].get("path") or "?"
                origin = f"{key}: {where}"
        locked[name] = Pin(name, package.get("version"), False, origin)
        if "dependencies" in package:
            recorded = True
            edges[name] = [normalized_name(d["name"]) for d in package["dependencies"]
                           if isinstance(d, dict) and "name" in d]
    direct = _project_names(path.parent, environment)
    if direct is None and recorded:
        needed = {target for targets in edges.values() for target in targets}
        direct = [name for name in locked if name not in needed]
    return _select(locked, direct, edges, transitive, notes, path.name)


def read_poetry_lock(path: Path, environment: Mapping, transitive: bool, notes: list) -> list:
    """poetry.lock: direct ones from pyproject.toml beside it; [package.dependencies] the rest."""
    document = _toml(path)
    locked: dict = {}
    edges: dict = {}
    for name, package in _packages(document, "package", "markers", environment, path):
        source = package.get("source")
        if not isinstance(source, dict):
            source = {}
        origin = INDEX if source.get("type") in (None, "legacy") else \
            f"{source.get('type')}: {source.get('url')}"
        locked[name] = Pin(name, package.get("version"), False, origin)
        targets = []
        for dependency, constraint in (package.get("dependencies") or {}).items():
            constraints = constraint if isinstance(constraint, list) else [constraint]
            if any(not isinstance(c, dict) or holds(c.get("markers"), environment, str(path))
                   for c in constraints):
                targets.append(normalized_name(dependency))
        edges[name] = targets
    return _select(locked, _project_names(path.parent, environment), edges, transitive, notes,
                   path.name)


def read_pdm_lock(path: Path, environment: Mapping, transitive: bool, notes: list) -> list:
    """pdm.lock: direct ones from pyproject.toml beside it; each package's `dependencies`
    (requirement strings with their markers) the rest."""
    document = _toml(path)
    locked: dict = {}
    edges: dict = {}
    for name, package in _packages(document, "package", "marker", environment, path):
        locked[name] = Pin(name, package.get("version"), False,
                           INDEX if "version" in package else "url or path")
        targets = []
        for text in package.get("dependencies") or ():
            requirement = parse_requirement(str(text), f"{path} {name}")
            if holds(requirement.marker, environment, str(path)):
                targets.append(requirement.name)
        edges[name] = targets
    return _select(locked, _project_names(path.parent, environment), edges, transitive, notes,
                   path.name)


def read_pipfile_lock(path: Path, environment: Mapping, transitive: bool, notes: list) -> list:
    """Pipfile.lock: its `default` section, and the sections of the groups asked for (`dev`:
    `develop`); direct ones from the Pipfile's [packages] (and the groups' tables) beside it.
    The lock records no edges, so --all reads all of those sections."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PinsError(f"{path}: cannot read it: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise PinsError(f"{path}: not JSON: {error}") from None
    default = document.get("default") if isinstance(document, dict) else None
    if not isinstance(default, dict):
        raise PinsError(f"{path}: no \"default\" section")
    # A group is a section: dev the `develop` one ([dev-packages]), another its own category.
    sections = {PIPENV_DEV.get(name, name): name for name in document
                if name not in ("_meta", "default") and isinstance(document[name], dict)}
    entries = dict(default)
    for group in asked_groups(environment):
        if group not in sections:
            raise _unknown_group(group, str(path), sections)
        entries.update({raw: entry for raw, entry in document[sections[group]].items()
                        if raw not in entries})
    locked: dict = {}
    for raw, entry in entries.items():
        if not isinstance(entry, dict):
            entry = {}
        if not holds(entry.get("markers"), environment, str(path)):
            continue
        name = normalized_name(raw)
        version = str(entry.get("version", "")).removeprefix("==") or None
        origin = next((f"{key}: {entry[key]}" for key in ("git", "path", "file")
                       if key in entry), INDEX)
        locked[name] = Pin(name, version, False, origin,
                           "" if version else "the lock gives no == version")
    direct = None
    pipfile = path.parent / "Pipfile"
    if pipfile.is_file():
        tables = _toml(pipfile)
        direct = [normalized_name(name) for table in (
            "packages", *("dev-packages" if group == "dev" else group
                          for group in asked_groups(environment)))
            for name in (tables.get(table) or {})]
    if transitive:
        direct_names = set(direct if direct is not None else locked)
        return [replace(pin, direct=name in direct_names) for name, pin in locked.items()]
    return _select(locked, direct, {}, False, notes, path.name)


# Pipfile.lock's section of a group whose name is not its own.
PIPENV_DEV = {"develop": "dev"}


_OPTION = re.compile(r"(?:^|\s)(-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)")


def _logical_lines(text: str):
    """Yield (line number, line) of a requirements file: continuations joined, comments off."""
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        line = re.sub(r"(^|\s)#.*$", "", line)
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def _read_requirements(path: Path, environment: Mapping, requirements: dict, constraints: dict,
                       notes: list, seen: set, constraint: bool = False) -> None:
    """Read one requirements (or constraints) file and the files it includes, in order."""
    real = path.resolve()
    if real in seen:
        return
    seen.add(real)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PinsError(f"{path}: cannot read it: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise PinsError(f"{path}: not UTF-8") from None
    for number, line in _logical_lines(text):
        where = f"{path}:{number}"
        line = line.strip()
        if not line:
            continue
        include = _OPTION.match(line)
        if include:
            flag, name = include.groups()
            target = path.parent / name
            if not target.is_file():
                raise PinsError(f"{where}: {flag} {name}: no such file")
            _read_requirements(target, environment, requirements, constraints, notes, seen,
                               constraint or flag in ("-c", "--constraint"))
            continue
        if line.startswith(("-e ", "--editable")):
            notes.append(f"{where}: an editable requirement is left out ({line})")
            continue
        if line.startswith("-"):
            continue  # an index, find-links, --pre, --only-binary...: where, not what
        # Per-requirement options (--hash=..., --config-settings) follow the requirement.
        spec = re.split(r"\s--?[a-z]", " " + line)[0].strip()
        if re.match(r"^(\.|/|[a-z][a-z0-9+.-]*://)", spec, re.IGNORECASE):
            notes.append(f"{where}: a path or URL is left out ({spec})")
            continue
        requirement = parse_requirement(spec, where)
        if not holds(requirement.marker, environment, where):
            continue
        (constraints if constraint else requirements).setdefault(requirement.name, requirement)


def read_requirements(paths: list, environment: Mapping, installed: Mapping | None,
                      notes: list) -> list:
    """requirements*.txt: every requirement is direct; `==` pins it; a `-c` file's `==` pins a
    requirement given without one; an unpinned one takes the environment's version, said so."""
    requirements: dict = {}
    constraints: dict = {}
    seen: set = set()
    for path in paths:
        _read_requirements(path, environment, requirements, constraints, notes, seen)
    pins = []
    for name, requirement in requirements.items():
        version = requirement.exact()
        note = ""
        if requirement.url:
            note = f"a URL requirement ({requirement.url})"
            version = None
        elif version is None and name in constraints and constraints[name].exact():
            version, note = constraints[name].exact(), "pinned by a constraints file"
        elif version is None:
            given = requirement.specifier or "any version"
            if installed and name in installed:
                version, note = installed[name], f"not pinned ({given}): the installed version"
            else:
                note = f"not pinned ({given})"
        pins.append(Pin(name, version, True, INDEX if not requirement.url else "url", note))
    return pins


def read_pyproject(path: Path, environment: Mapping, installed: Mapping | None,
                   notes: list) -> list:
    """pyproject.toml alone: its dependencies at the versions installed in the environment."""
    names = _project_names(path.parent, environment)
    if names is None:
        raise PinsError(f"{path}: no [project].dependencies or [tool.poetry.dependencies]")
    if installed is None:
        raise PinsError(f"{path} pins no versions and no environment was found: give --env "
                        "PATH (where the project is installed) or a lock file")
    notes.append(f"{path.name} pins no versions: the environment's installed ones are used")
    return [Pin(name, installed.get(name), True,
                note="" if name in installed else "not installed in the environment")
            for name in dict.fromkeys(names)]


_READERS = {"pylock.toml": read_pylock, "uv.lock": read_uv_lock,
            "poetry.lock": read_poetry_lock, "pdm.lock": read_pdm_lock,
            "Pipfile.lock": read_pipfile_lock}


def read_pins(path: str, environment: Mapping, transitive: bool = False,
              env: str | None = None) -> Pins:
    """Return what the project at path pins, for the target environment (markers.py).

    transitive: the whole closure (`--all`), else the project's direct dependencies. env: an
    environment whose installed versions are compared with the pins (drift, in each Pin's
    `installed`), and give pyproject.toml and unpinned requirements their versions.
    """
    kind, files = find_pins_file(path)
    if kind == "requirements" and asked_groups(environment):
        raise PinsError(f"--group {asked_groups(environment)[0]}: a requirements file has no "
                        "dependency groups (name the group's own requirements file instead)")
    installed = installed_versions(env) if env else None
    notes: list = []
    if transitive and kind in ("requirements", "pyproject.toml"):
        # Only a lock records what each pin depends on: pip's requirements files and
        # pyproject.toml name the project's own dependencies, so --all has no closure to add.
        notes.append(f"--all: {files[0].name} does not list what its pins depend on, so only "
                     "the pins it names are built (a lock file has them all: uv.lock, "
                     "poetry.lock, pylock.toml; or pin every package in the requirements "
                     "file, as `pip freeze` or `uv pip compile` writes it)")
    if kind == "requirements":
        pins = read_requirements(files, environment, installed, notes)
    elif kind == "pyproject.toml":
        pins = read_pyproject(files[0], environment, installed, notes)
    else:
        pins = _READERS[kind](files[0], environment, transitive, notes)
    pins = [replace(pin, version=pin.version and (normal_version(pin.version) or pin.version),
                    installed=installed.get(pin.name) if installed is not None else None)
            for pin in pins]
    return Pins(files[0].name, ", ".join(str(f) for f in files),
                tuple(sorted(pins, key=lambda pin: pin.name)), tuple(notes), env,
                transitive and kind in LOCKFILES)


def drift(pins: Pins) -> list:
    """Return one line per pin the environment does not hold at its pinned version."""
    if pins.environment is None:
        return []
    lines = []
    for pin in pins.pins:
        if pin.version is None or (pin.installed and same_version(pin.installed, pin.version)):
            continue
        lines.append(f"drift: {pin.name} pinned {pin.version}, " + (
            f"installed {pin.installed}" if pin.installed else "not installed")
            + f" in {pins.environment}")
    return lines


# The folders, beside a project's pins file, that are its environment when --env names none:
# uv's, Poetry's in-project and PEP 405's usual `.venv`, then `venv`, the name the Python
# tutorial's `python -m venv` examples (and many projects) give it.
DEFAULT_ENVS = (".venv", "venv")


def default_env(project: str) -> str | None:
    """Return the project's environment (DEFAULT_ENVS beside its pins file), else None."""
    folder = Path(project) if os.path.isdir(project) else Path(project).parent
    for name in DEFAULT_ENVS:
        venv = folder / name
        if venv.is_dir() and site_packages(venv) is not None:
            return str(venv)
    return None


__all__ = ["LOCKFILES", "Pin", "Pins", "PinsError", "Requirement", "default_env", "drift",
           "find_pins_file", "installed_versions", "parse_requirement", "read_pins"]
