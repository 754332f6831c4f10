"""sphinx-automodapi's `.. automodapi::`, written out as the extension writes it, statically.

The extension (astropy's, and its affiliated packages') is no directive: on Sphinx's
"source-read" it replaces each `.. automodapi:: MODULE` of a page's own source with reST
(automodapi_replace): a section "MODULE Module" (or "Package") holding the module's docstring
(`.. automodule::`), then sections "Functions", "Classes" and, with `:include-all-objects:`,
"Variables", each an automodsumm table of the module's public objects, and a "Class
Inheritance Diagram". automodsumm is autosummary over the names find_mod_objs finds; each
entry is a stub page `api/MODULE.NAME.html` (automodapi_toctreedirnm, below the docs' root)
written with automodapi's own templates (autosummary_core/class.rst documents a class's own
public attributes and methods on its page; base.rst the object alone), unless the project's
templates_path has one of that name.

Here the same text is written from the package source (`written`), the table's entries being
those find_mod_objs would import (`listing`); the caller reads it as the page's text.
"""

import re
from dataclasses import dataclass

from .docstrings import CLASS, EXCEPTION, FUNCTION, MODULE, PackageSource
from .rst import DELIMITER

# automodapi's own pattern (_automodapirex): a directive at the line's start, its options on
# the lines right after it.
DIRECTIVE = re.compile(r"\.\.\s+automodapi" + DELIMITER + r"\s*([A-Za-z0-9_.]+)\s*")
OPTION = re.compile(r"\s+:([a-zA-Z_\-]+):(.*)")

# automodapi_toctreedirnm's default: the stubs' folder, below the docs' root.
DEFAULT_TOCTREE = "api"

# Where the stub of a class (and of anything else) is written from, in automodapi's templates
# folder; a project's templates_path may have its own of these names.
CLASS_TEMPLATE = "autosummary_core/class.rst"
BASE_TEMPLATE = "autosummary_core/base.rst"

# automodapi's templates, as the extension ships them (BSD-3-Clause, the Astropy Developers),
# but for class.rst's `{% set caught_result = methods.remove('__init__') %}`, written here as
# a test in each loop over methods, which the template renderer evaluates (the same text).
TEMPLATES = {
    CLASS_TEMPLATE: """{{ objname }}
{{ underline }}

.. currentmodule:: {{ module }}

.. autoclass:: {{ objname }}
   :show-inheritance:

   {% if attributes %}

   .. rubric:: Attributes Summary

   .. autosummary::
   {% for item in attributes %}
      ~{{ name }}.{{ item }}
   {%- endfor %}

   {% endif %}

   {% if methods and methods != ['__init__'] %}

   .. rubric:: Methods Summary

   .. autosummary::
   {% for item in methods %}{% if item != '__init__' %}
      ~{{ name }}.{{ item }}
   {%- endif %}{% endfor %}

   {% endif %}

   {% if attributes %}

   .. rubric:: Attributes Documentation

   {% for item in attributes %}
   .. autoattribute:: {{ item }}
   {%- endfor %}

   {% endif %}

   {% if methods and methods != ['__init__'] %}

   .. rubric:: Methods Documentation

   {% for item in methods %}{% if item != '__init__' %}
   .. automethod:: {{ item }}
   {%- endif %}{% endfor %}

   {% endif %}
""",
    BASE_TEMPLATE: """{{ objname }}
{{ underline }}

.. currentmodule:: {{ module }}

.. auto{{ objtype }}:: {{ objname }}
""",
}


@dataclass(frozen=True)
class Listing:
    """What find_mod_objs finds of a module: its public objects' names, by kind, in order."""

    package: bool  # a package (its heading says "Package"), else a module
    functions: tuple
    classes: tuple  # classes and exceptions
    variables: tuple  # anything else, but modules


def listing(package: PackageSource, name: str, sort: bool = False) -> Listing | None:
    """Return what automodsumm lists of a module (find_mod_objs, onlylocals): the names its
    __all__ gives (sorted with `:sort:`), else those of its namespace without a leading "_",
    sorted as dir() gives them; of those, what it or a module below it defines; modules none.
    As sphinx-automodapi before 0.18 (September 2024) did, the versions that built the sites
    of the releases up to then (Debian's astroquery 0.4.6: `clean_catalog`, in
    astroquery.ukidss' __all__ but defined in astroquery.wfau, is not listed there), __all__
    does not lift that test. Of an __all__ partly computed (astropy.logger's `__all__ +=
    logging_levels`), the names the source gives: a stub of a name it does not list is no
    page of the site. None: no module of that name is read."""
    module = package.module(name)
    if module is None:
        return None
    if module.all_names is not None:
        names = sorted(module.all_names) if sort else list(module.all_names)
    else:
        names = sorted(local for local in package.star_names(name) if not local.startswith("_"))
    functions: list[str] = []
    classes: list[str] = []
    variables: list[str] = []
    for local in names:
        found = package.resolve(f"{name}.{local}")
        if found is None or found[1].kind == MODULE:
            continue
        obj = found[1]
        kind = obj.kind
        # find_mod_objs' fully qualified name: where a function or class is defined (its
        # __module__), a variable's under the module itself.
        defined = obj.name if kind in (FUNCTION, CLASS, EXCEPTION) else f"{name}.{local}"
        if not defined.startswith(name):
            continue
        (functions if kind == FUNCTION else classes if kind in (CLASS, EXCEPTION)
         else variables).append(local)
    return Listing(module.path.endswith("__init__.py"), tuple(functions), tuple(classes),
                   tuple(variables))


def options_of(lines: list) -> dict:
    """Return {option: [its values, in order]} of a directive's option lines."""
    options: dict = {}
    for line in lines:
        match = OPTION.fullmatch(line)
        if match is not None:
            options.setdefault(match.group(1), []).append(match.group(2).strip())
    return options


def written(name: str, options: dict, found: Listing, toctree: str,
            inheritance_diagram: bool = True) -> list:
    """Return the lines automodapi_replace writes for `.. automodapi:: name` with options
    (options_of), its tables' entries found's, their stubs in toctree (relative to the page)."""
    # Each `:skip:` (or `:include:`) names one object or several, comma-separated, as the
    # automodsumm options it is passed on as read them.
    skipped = {part.strip() for value in options.get("skip", ()) for part in value.split(",")}
    included = {part.strip() for value in options.get("include", ())
                for part in value.split(",")} - {""}

    def kept(names: tuple) -> tuple:
        return tuple(local for local in names if local not in skipped
                     and (not included or local in included))

    functions, classes, variables = (kept(found.functions), kept(found.classes),
                                     kept(found.variables))
    headings = (options.get("headings") or ["-^"])[-1].strip()
    if len(headings) < 2:
        headings = "-^"
    top, sub = headings[0], headings[1]
    if "inheritance-diagram" in options:
        inheritance_diagram = True
    if "no-inheritance-diagram" in options:
        inheritance_diagram = False
    lines = [""]
    if "no-heading" not in options:
        kind = "Package" if found.package else "Module"
        lines += [f"{name} {kind}", top * (len(name) + 1 + len(kind)), ""]
    lines += [f".. automodule:: {name}" if "no-main-docstr" not in options else "", ""]
    sections = [("Functions", functions, BASE_TEMPLATE), ("Classes", classes, CLASS_TEMPLATE)]
    if "include-all-objects" in options:
        sections.append(("Variables", variables, BASE_TEMPLATE))
    # automodsumm's own options its tables pass on to the stubs of their classes.
    passed = [f"    :{option}:" for option in ("inherited-members", "no-inherited-members")
              if option in options]
    for title, names, template in sections:
        if not names:
            continue
        lines += ["", title, sub * len(title), "", f".. currentmodule:: {name}", "",
                  ".. autosummary::", f"    :toctree: {toctree}", f"    :template: {template}",
                  *passed, "", *(f"    {local}" for local in names), ""]
    if inheritance_diagram and classes:
        title = "Class Inheritance Diagram"
        lines += ["", title, sub * len(title), ""]
    return lines
