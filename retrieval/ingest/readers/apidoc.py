"""sphinxcontrib-apidoc's pages, written out as `sphinx-apidoc` writes them, statically.

The extension (rdflib's, CherryPy's, nltk's and many OpenStack projects') runs `sphinx-apidoc`
on each build (builder-inited): it walks `apidoc_module_dir` (relative to conf.py's folder) and
writes, below `apidoc_output_dir` (default `api`), one page per package (`PKG.rst`: "PKG
package", its subpackages' toctree, its submodules each in a section "MOD module" holding
`.. automodule:: MOD` with `:members:`, `:undoc-members:` and `:show-inheritance:`, or, with
`apidoc_separate_modules`, a toctree of their own pages `MOD.rst`, then "Module contents", the
package's own automodule) and a table of contents (`modules.rst`, `apidoc_toc_file`). Those
pages exist only on the published site: the sdist holds the source they are made from.

Here the same pages are written from the release's tree, as Sphinx 5-7's `sphinx.ext.apidoc`
walks it (recurse_tree: packages by `__init__.py`; a `_private` module or folder only with
`--private`; `apidoc_excluded_paths` as fnmatch patterns below the module dir; a folder that is
no package ends the walk there unless `--implicit-namespaces`), with its default templates
(module.rst_t, package.rst_t, toc.rst_t); the caller reads them as the project's pages. A
project's own apidoc templates are not rendered: the defaults stand in, and the build says so.
"""

import dataclasses
import fnmatch
import itertools
import os
import posixpath
import re
import shlex
from dataclasses import dataclass

from .autosummary_templates import rst_escape

# The extension, as conf.py's `extensions` names it.
EXTENSION = "sphinxcontrib.apidoc"
# sphinx.ext.apidoc's OPTIONS: what each automodule it writes takes (`private-members` too with
# --private).
_OPTIONS = ("members", "undoc-members", "show-inheritance")
# PY_SUFFIXES (a compiled extension's suffixes too, which an sdist seldom holds).
_SUFFIXES = (".py", ".pyx")
# The templates a project may give apidoc in apidoc_template_dir.
TEMPLATES = ("module.rst_t", "package.rst_t", "toc.rst_t")


@dataclass(frozen=True)
class ApidocSettings:
    """conf.py's apidoc_* settings, with what apidoc_extra_args says."""

    module_dir: str  # relative to conf.py's folder
    output_dir: str = "api"
    template_dir: str = "templates"
    excluded: tuple = ()  # fnmatch patterns, relative to module_dir
    separate: bool = False
    toc_file: str | None = "modules"  # None: no table of contents
    module_first: bool = False
    private: bool = False
    implicit_namespaces: bool = False
    headings: bool = True
    max_depth: int = 4


def settings(known: dict, extensions: tuple) -> ApidocSettings | None:
    """Return the apidoc settings of a conf.py's literal assignments (known), or None where
    the extension is not enabled or names no module dir (it then writes nothing)."""
    module_dir = known.get("apidoc_module_dir")
    if EXTENSION not in extensions or not isinstance(module_dir, str) or not module_dir:
        return None
    default = ApidocSettings(module_dir)
    toc = known.get("apidoc_toc_file")
    found = dataclasses.replace(
        default, output_dir=_text(known.get("apidoc_output_dir"), default.output_dir),
        template_dir=_text(known.get("apidoc_template_dir"), default.template_dir),
        excluded=_texts(known.get("apidoc_excluded_paths")),
        separate=known.get("apidoc_separate_modules") is True,
        toc_file=None if toc is False else _text(toc, default.toc_file or ""),
        module_first=known.get("apidoc_module_first") is True)
    return _with_arguments(found, list(_texts(known.get("apidoc_extra_args"))))


# How a shell line runs sphinx-apidoc: its script, or the module (`python -m sphinx.ext.apidoc`).
_COMMANDS = ("sphinx-apidoc", "sphinx.ext.apidoc")
# What ends one command of a shell line.
_SHELL_ENDS = frozenset({")", ";", "&&", "||", "|", "&", ">", ">>", "<"})
# sphinx-apidoc's options that take a value this does not use (-H project, -A author, ...).
_VALUED = frozenset({"-H", "--doc-project", "-A", "--doc-author", "-V", "--doc-version",
                     "-R", "--doc-release", "-s", "--suffix"})


def command_settings(line: str, cwd: str, conf_root: str) -> ApidocSettings | None:
    """Return the settings of the `sphinx-apidoc` command a shell line (a Makefile recipe's,
    continuation lines joined) runs in cwd, for the project at conf_root (both '/'-separated
    below the tree's top): lxml's `sphinx-apidoc -e -P -T -o doc/api src/lxml "*includes"`.
    None where the line runs none, names something the shell would expand (`$(VAR)`), or
    writes outside the project's folder."""
    starts = sorted(match.start() for command in _COMMANDS
                    for match in re.finditer(re.escape(command), line))
    # The first that reads as a command (lxml's line first tests `which sphinx-apidoc`).
    return next((found for found in (_command_at(line[start:], cwd, conf_root)
                                     for start in starts) if found is not None), None)


def _command_at(command: str, cwd: str, conf_root: str) -> ApidocSettings | None:
    """Return command_settings' settings of a shell text starting with the command's name."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(itertools.takewhile(lambda word: word not in _SHELL_ENDS, lexer))[1:]
    except ValueError:  # an unclosed quote
        return None
    if any("$" in word or "`" in word for word in words):
        return None
    output, positional, flags = None, [], []
    iterator = iter(words)
    for word in iterator:
        flag, _, value = word.partition("=")
        if flag in ("-o", "--output-dir"):
            output = value or next(iterator, None)
        elif flag in _VALUED:
            if not value:
                next(iterator, None)
        elif word.startswith("-"):
            flags.append(word)
            if flag in ("-d", "--maxdepth", "--tocfile", "-t", "--templatedir") and not value:
                flags.append(next(iterator, ""))
        else:
            positional.append(word)
    if output is None or not positional:
        return None
    output = posixpath.normpath(posixpath.join(cwd, output))
    module = posixpath.normpath(posixpath.join(cwd, positional[0]))
    below = posixpath.relpath(output, conf_root)
    if below.startswith(".."):
        return None
    excluded = tuple(
        posixpath.relpath(posixpath.normpath(posixpath.join(cwd, pattern)), module)
        if not pattern.startswith("*") else pattern for pattern in positional[1:])
    found = ApidocSettings(posixpath.relpath(module, conf_root), output_dir=below,
                           excluded=excluded)
    return _with_arguments(found, flags)


def _text(value, default: str) -> str:
    return value if isinstance(value, str) and value else default


def _texts(value) -> tuple:
    return tuple(item for item in value if isinstance(item, str)) \
        if isinstance(value, (list, tuple)) else ()


def _with_arguments(found: ApidocSettings, arguments: list) -> ApidocSettings:
    """Return found with sphinx-apidoc's command-line flags among arguments applied (after the
    extension's own, as it passes them); a flag this does not know changes nothing."""
    changes: dict = {}
    words = iter(arguments)
    for word in words:
        flag, _, value = word.partition("=")
        if flag in ("-P", "--private"):
            changes["private"] = True
        elif flag == "--implicit-namespaces":
            changes["implicit_namespaces"] = True
        elif flag in ("-e", "--separate"):
            changes["separate"] = True
        elif flag in ("-M", "--module-first"):
            changes["module_first"] = True
        elif flag in ("-E", "--no-headings"):
            changes["headings"] = False
        elif flag in ("-T", "--no-toc"):
            changes["toc_file"] = None
        elif flag in ("-d", "--maxdepth", "--tocfile", "-t", "--templatedir"):
            value = value or next(words, "")
            if flag in ("-d", "--maxdepth") and value.isdigit():
                changes["max_depth"] = int(value)
            elif flag == "--tocfile" and value:
                changes["toc_file"] = value
            elif flag in ("-t", "--templatedir") and value:
                changes["template_dir"] = value
    return dataclasses.replace(found, **changes)


def _heading(text: str, level: int = 1) -> str:
    escaped = rst_escape(text)
    return f"{escaped}\n{'=-~'[level - 1] * len(escaped)}"


def _automodule(name: str, options: tuple) -> str:
    return "\n".join([f".. automodule:: {name}", *(f"   :{option}:" for option in options)])


def _toctree(names: list, max_depth: int) -> str:
    return "\n".join([".. toctree::", f"   :maxdepth: {max_depth}", "",
                      *(f"   {name}" for name in names)])


def _join(*names: str) -> str:
    return ".".join(name for name in names if name)


@dataclass(frozen=True)
class _Walk:
    """One walk of a module dir (on disk) as sphinx-apidoc walks it."""

    root: str  # the module dir, absolute
    found: ApidocSettings

    def excluded(self, path: str) -> bool:
        return any(fnmatch.fnmatch(path, os.path.join(self.root, pattern))
                   for pattern in self.found.excluded)

    def walk(self):
        prefixes = (".",) if self.found.private else (".", "_")
        for directory, subdirectories, names in os.walk(self.root):
            files = sorted(name for name in names if name.endswith(_SUFFIXES)
                           and not self.excluded(os.path.join(directory, name)))
            subdirectories[:] = sorted(
                name for name in subdirectories if not name.startswith(prefixes)
                and not self.excluded(os.path.join(directory, name))
                and not os.path.islink(os.path.join(directory, name)))
            yield directory, subdirectories, files

    def skipped_package(self, directory: str) -> bool:
        if not os.path.isdir(directory):
            return False
        files = sorted(name for name in os.listdir(directory) if name.endswith(".py"))
        if not any(_is_init(name) for name in files) and not self.found.implicit_namespaces:
            return True
        return all(self.excluded(os.path.join(directory, name)) for name in files)

    def skipped_module(self, path: str) -> bool:
        return not os.path.exists(path) or (
            os.path.basename(path).startswith("_") and not self.found.private)

    def has_child_module(self, directory: str) -> bool:
        return any(files for _, _, files in _Walk(directory, self.found).walk())


def _is_init(name: str) -> bool:
    return any(name == "__init__" + suffix for suffix in _SUFFIXES)


def pages(top: str, conf_root: str, found: ApidocSettings) -> dict:
    """Return {page path below conf_root ('/'-separated, with .rst): its text} of what
    sphinx-apidoc writes for found; top: the release's tree on disk, conf_root the project's
    folder below it; {} where the module dir is no folder of the tree."""
    top = os.path.normpath(top)
    root = os.path.normpath(os.path.join(top, conf_root, found.module_dir))
    if not root.startswith(top + os.sep) or not os.path.isdir(root):
        return {}
    walk = _Walk(root, found)
    options = _OPTIONS + (("private-members",) if found.private else ())
    written: dict = {}
    implicit = found.implicit_namespaces
    root_package = os.path.basename(root) if any(
        _is_init(name) for name in os.listdir(root)) or implicit else None
    top_levels = []
    for directory, subdirectories, files in walk.walk():
        is_package = any(_is_init(name) for name in files)
        namespace = not is_package and implicit
        if not is_package and directory != root and not implicit:
            subdirectories[:] = []
            continue
        if is_package or namespace:
            if subdirectories or len(files) > 1 or not walk.skipped_package(directory):
                below = os.path.relpath(directory, root)
                sub = "" if below == "." else below.replace(os.sep, ".")
                if not namespace or walk.has_child_module(directory):
                    name = _join(root_package or "", sub)
                    _package_page(walk, directory, name, files, subdirectories, namespace,
                                  options, written)
                    top_levels.append(name)
        elif directory == root:
            for file in files:
                if not walk.skipped_module(os.path.join(root, file)):
                    module = file.split(".")[0]
                    written[module] = _module_page(module, options, found.headings)
                    top_levels.append(module)
    if found.toc_file:
        written[found.toc_file] = _toc_page(top_levels, os.path.basename(root), found.max_depth)
    output = posixpath.normpath(found.output_dir.replace("\\", "/"))
    return {posixpath.normpath(posixpath.join(output, f"{name}.rst")): text
            for name, text in written.items()}


def _module_page(name: str, options: tuple, headings: bool) -> str:
    """Return a module's own page (module.rst_t: apidoc writes each at its full name)."""
    head = f"{_heading(f'{name} module')}\n\n" if headings else ""
    return f"{head}{_automodule(name, options)}\n"


def _package_page(walk: _Walk, directory: str, name: str, files: list, subdirectories: list,
                  namespace: bool, options: tuple, written: dict) -> None:
    found = walk.found
    subpackages = [_join(name, sub) for sub in subdirectories
                   if not walk.skipped_package(os.path.join(directory, sub))]
    submodules = sorted({file.split(".")[0] for file in files
                         if not walk.skipped_module(os.path.join(directory, file))
                         and not _is_init(file)})
    submodules = [_join(name, module) for module in submodules]
    parts = [_heading(f"{name} {'namespace' if namespace else 'package'}")]
    if namespace:
        parts.append(f".. py:module:: {name}")
    if found.module_first and not namespace:
        parts.append(_automodule(name, options))
    if subpackages:
        parts.append(f"{_heading('Subpackages', 2)}\n\n{_toctree(subpackages, found.max_depth)}")
    if submodules:
        if found.separate:
            parts.append(f"{_heading('Submodules', 2)}\n\n"
                         f"{_toctree(submodules, found.max_depth)}")
        else:
            parts.append(_heading("Submodules", 2))
            for module in submodules:
                if found.headings:
                    parts.append(_heading(f"{module} module", 2))
                parts.append(_automodule(module, options))
    if not found.module_first and not namespace:
        parts.append(f"{_heading('Module contents', 2)}\n\n{_automodule(name, options)}")
    written[name] = "\n\n".join(parts) + "\n"
    if submodules and found.separate:
        for module in submodules:
            written[module] = _module_page(module, options, found.headings)


def _toc_page(modules: list, header: str, max_depth: int) -> str:
    names, previous = [], ""
    for module in sorted(modules):
        if previous and module.startswith(previous + "."):
            continue  # a subpackage: its package's page lists it
        names.append(module)
        previous = module
    return f"{_heading(header)}\n\n{_toctree(names, max_depth)}\n"
