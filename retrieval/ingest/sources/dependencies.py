"""The other releases a release's docs document members of: Flask's `Request` shows werkzeug's.

`.. autoclass:: Request` with `:inherited-members:` documents the members of each of the class's
bases, also of a base another distribution defines (Flask 2.2's `class Request(RequestBase)`,
`from werkzeug.wrappers import Request as RequestBase`: `args`, `form`, `cookies` ... are
werkzeug's). Sphinx, importing the package, finds them in the dependency installed beside it;
the builder reads that dependency's source as it reads the release's, never running either.

Which release of it: the lowest the release requires (`Werkzeug>=2.2.2` gives 2.2.2), the one
version its metadata names, so the docs of one release are the same in every build and every
project (a newest one would change as the index does); a requirement that names no lowest
version (`Werkzeug`, `<3`) gives none, and the members are left out, said in one line. Only
the distributions such a directive needs are fetched: a class's bases the release does not
define, imported from a top-level module a requirement of the release is named as. (An `env:`
build fetches nothing: the distributions a package requires are installed beside it, and
packages.py hands them to the format, which reads those its classes derive from.)
"""

import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path

from ...core.names import normalized_name as normalized
from ...core.names import same_version, version_key
from ..readers import autodoc
from ..readers.docstrings import CLASS, EXCEPTION, read_package
from ..tree import Unreadable, iter_source_files, read_tree_file
from .layout import pyproject_data, setup_requirements

# A Requires-Dist value: NAME [extras] specifiers [; marker] (PEP 508, without URLs).
_REQUIRES = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^;()]*)\)?"
                       r"\s*(?:;(.*))?")
# A specifier clause that names the lowest version allowed: `>=2.2.2`, `==2.2.2`, `~=2.2`.
_LOWEST = re.compile(r"\s*(?:>=|===?|~=)\s*([0-9][0-9A-Za-z.+!-]*)\s*")
# The docs' pages that may hold autodoc directives (a Sphinx source_suffix of reST).
_PAGE_SUFFIXES = (".rst", ".txt", ".rest")
# A larger page is not looked into here (its own reading reports it if over --max-file-bytes).
_MAX_PAGE_BYTES = 4 * 1024 * 1024


def inherited_releases(top: Path, docs: str, modules: tuple, requires: list,
                       note: Callable[[str], None]) -> list:
    """Return (distribution, version) of each release that defines a base of a class the docs
    folder documents with `:inherited-members:`, or with `:members:` where the class has a
    member without a docstring (which autodoc shows with its base's); note says, one line
    each, what a base `:inherited-members:` asks for is imported from that no requirement of
    the release gives a version of.

    requires: the release's Requires-Dist values.
    """
    directives = _inheriting_directives(top / docs)
    if not directives:
        return []
    package = read_package(str(top), modules)
    # top-level module -> (a base imported from it, as written; whether :inherited-members:
    # asks for its members, not only for docstrings)
    outside: dict = {}
    for directive in directives:
        # The class alone: its members are what the dependency is fetched to find.
        documented = autodoc.resolve(dataclasses.replace(directive, options={}), package)
        if not documented or documented[0].obj.kind not in (CLASS, EXCEPTION):
            continue
        asked = "inherited-members" in directive.options
        if asked or _undocumented_members(documented[0].module, documented[0].obj):
            for name in package.foreign_bases(documented[0].module, documented[0].obj):
                module = name.partition(".")[0]
                base, asked_before = outside.get(module, (name, False))
                outside[module] = (base, asked or asked_before)
    own = {name.partition(".")[0] for name in package.modules}
    lowest = _lowest_versions(requires)
    found = []
    for module, (base, asked) in sorted(outside.items()):
        if module in own:
            continue
        dist = lowest.get(normalized(module))
        if not asked and (dist is None or dist[1] is None):
            continue  # docstrings alone: a release that gives none is no loss to say
        if module in sys.stdlib_module_names:
            note(f"members inherited from {base} left out: it is Python's own, which no "
                 "release gives")
        elif dist is None:
            note(f"members inherited from {base} left out: no requirement of the release is "
                 f"named {module}")
        elif dist[1] is None:
            note(f"members inherited from {base} left out: the release requires {dist[0]} "
                 "without a lowest version")
        else:
            found.append(dist)
    return found


def _undocumented_members(module, obj) -> bool:
    """Tell whether a class defines a public member without a docstring of its own, which
    autodoc's `:members:` shows with its base's (autodoc_inherit_docstrings: Flask's
    `FlaskGroup.get_command`, click's `MultiCommand.get_command`'s)."""
    return any(not name.startswith("_") and member is not None and member.docstring is None
               for name, member in ((name, module.member(obj, name)) for name in obj.members))


def _inheriting_directives(docs: Path) -> list:
    """Return the autoclass and autoexception directives with `:inherited-members:` or
    `:members:` of the docs folder's reST pages: what a base another release defines may give
    members or docstrings to."""
    found: list = []
    for relative, _ in iter_source_files(str(docs)):
        if not relative.endswith(_PAGE_SUFFIXES):
            continue
        try:
            text = read_tree_file(str(docs), relative, _MAX_PAGE_BYTES).decode("utf-8", "replace")
        except (Unreadable, OSError):
            continue  # the page's own reading says why; here it only has no directive
        if "members" in text:
            found.extend(directive for directive in autodoc.directives(text)
                         if directive.kind in ("class", "exception")
                         and {"inherited-members", "members"} & directive.options.keys())
    return found


def release_requirements(top: Path, metadata) -> list:
    """Return the requirements (PEP 508 strings) an unpacked release declares: its metadata's
    Requires-Dist, else (an sdist's PKG-INFO of metadata 2.1 has none) its egg-info's
    requires.txt before its first `[extra]` section, else pyproject.toml's dependencies, else
    what its setup.cfg or setup.py writes out (layout.setup_requirements)."""
    declared = metadata.get_all("Requires-Dist") if metadata is not None else None
    if declared:
        return list(declared)
    for path in sorted([*top.glob("*.egg-info/requires.txt"),
                        *top.glob("*/*.egg-info/requires.txt")]):
        text = path.read_text(encoding="utf-8", errors="replace")
        unconditional = ("\n" + text).partition("\n[")[0]  # before the first [extra] section
        return [line.strip() for line in unconditional.split("\n") if line.strip()]
    project = pyproject_data(top).get("project")
    dependencies = project.get("dependencies") if isinstance(project, dict) else None
    if isinstance(dependencies, list):
        return [value for value in dependencies if isinstance(value, str)]
    return setup_requirements(top)


def _requirements(requires: list):
    """Yield (normalized name, name as written, its specifier clauses) of each requirement a
    release has whatever extras are asked for."""
    for value in requires:
        match = _REQUIRES.fullmatch(value)
        if match is not None and "extra" not in (match.group(3) or ""):
            yield (normalized(match.group(1)), match.group(1),
                   [clause.strip() for clause in match.group(2).split(",")])


def requirement_names(requires: list) -> list:
    """Return the normalized names of what a release requires whatever extras are asked for."""
    return list(dict.fromkeys(name for name, _, _ in _requirements(requires)))


def _lowest_versions(requires: list) -> dict:
    """Return {normalized name: (name as written, lowest version or None)} of the requirements
    a release has whatever extras are asked for."""
    found: dict = {}
    for name, written, clauses in _requirements(requires):
        versions = [lowest.group(1) for lowest in map(_LOWEST.fullmatch, clauses)
                    if lowest is not None and "*" not in lowest.group(1)]
        version = max(versions, key=version_key) if versions else None
        if version is not None and any(
                clause.startswith("!=") and same_version(clause[2:].strip(), version)
                for clause in clauses):
            version = None  # `>=2.0,!=2.0`: the lowest allowed is not named
        found.setdefault(name, (written, version))
    return found
