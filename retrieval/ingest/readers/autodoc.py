"""Autodoc directives of a reST page, resolved from the package source (docstrings.py), not run.

`.. autoclass:: Flask` under `.. currentmodule:: flask`, with `:members:`, becomes the class of
flask/app.py (where `flask` re-exports it from) and its public documented members in source
order, each under the dotted name Sphinx would give it an id by ("flask.Flask.register_blueprint").
A directive naming what the source does not define resolves to None: the caller skips and counts it.
"""

import ast
import re
from collections import Counter
from dataclasses import dataclass, replace

from .docstrings import (
    ATTRIBUTE,
    CLASS,
    DATA,
    EXCEPTION,
    FUNCTION,
    METHOD,
    MODULE,
    class_content,
    inheriting,
    is_private_member,
    is_special,
    python_class,
)
from .rst import DELIMITER, LiteralLines
from .templates import mapping_entries

_AUTODOC = re.compile(
    r"[ \t]*\.\.[ \t]+(?:py:)?auto(module|class|function|method|attribute|data|exception|"
    r"decorator|property|interface)" + DELIMITER + r"[ \t]*([\w.]*)(?:::([\w.]+))?")
# A directive's argument alone on the first line of its block, a signature after it or not.
_ARGUMENT_LINE = re.compile(r"[ \t]+([\w.]+)(?:::([\w.]+))?(?:[ \t]*\(.*)?[ \t]*")
_CURRENT = re.compile(r"[ \t]*\.\.[ \t]+(?:py:)?(?:module|currentmodule)" + DELIMITER
                      + r"[ \t]*([\w.]+)")
_OPTION = re.compile(r"[ \t]+:([\w-]+):(?:[ \t]+(.*?))?[ \t]*")
# A hand-written class description, whose content autodoc directives may stand in.
_PLAIN_CLASS = re.compile(r"[ \t]*\.\.[ \t]+(?:py:)?(?:class|exception)" + DELIMITER
                          + r"[ \t]*([\w.]+)")
_AUTODOC_MODULE = re.compile(r"[ \t]*\.\.[ \t]+(?:py:)?automodule" + DELIMITER + r"[ \t]*([\w.]+)")
# A Python-domain cross-reference: `:meth:`text <target>`` or `:func:`~target()``.
_REFERENCE = re.compile(
    r":(?:py:)?(?:func|meth|class|attr|data|exc|obj|const|decorator):`"
    r"(?:[^`<]*<)?([~!]?\.?[A-Za-z_][\w.]*?)(?:\(\))?>?`")
@dataclass(frozen=True)
class Directive:
    """One autodoc directive of a page."""

    line: int  # 1-based line of its `..`
    kind: str  # "class", "module", ...: the directive's name without "auto"
    name: str  # the object's name as written
    module: str | None  # the current module where it stands
    options: dict  # option name -> value ("" when it has none)
    within: str | None = None  # the class of the autoclass whose content it is in, as written
    # The hand-written `.. class::` descriptions whose content it is in, as written, joined
    # with "." (Pillow's `.. autoclass:: PIL.ImageShow.XDGViewer` in `.. class:: UnixViewer`).
    scope: str | None = None
    explicit: bool = False  # whether module is its own `module::` (py_ext_sig_re's), not current


@dataclass(frozen=True)
class Documented:
    """One object a directive documents, under the dotted name its rendered id would be."""

    name: str
    module: object  # docstrings.Module
    obj: object  # docstrings.DocObject
    directive: Directive
    aliases: tuple = ()  # other dotted names it is documented by (no ids of their own)
    keyed: bool = False  # an entry of a mapping: known by its keys, not its Python names
    # The kind its directive describes it as (DIRECTIVE_KINDS), None: as it is defined (a
    # member :members: takes, autodoc choosing by what it is).
    kind: str | None = None


# The kind of object each autodoc directive describes: Sphinx's documenter is the directive's
# (`autoclass` of an exception is a `py:class`, `autofunction` of `select = public_factory(...)`
# a `py:function`), whatever the object is.
DIRECTIVE_KINDS = {"function": FUNCTION, "decorator": FUNCTION, "class": CLASS,
                   "exception": EXCEPTION, "method": METHOD, "attribute": ATTRIBUTE,
                   "property": ATTRIBUTE, "data": DATA, "interface": CLASS}


# Interpreted text without a role (`` `name` ``, not `` `text`_ ``, a hyperlink, nor a
# literal's ``` `` ```): the project's default_role reads it.
_DEFAULT_ROLE = re.compile(r"(?<![`:\w])`([~!]?\.?[A-Za-z_][\w.]*?)(?:\(\))?`(?![`_\w])")
# A numpydoc section's title: a line, then a line of dashes.
_NUMPYDOC_RULE = re.compile(r"[ \t]*-{3,}[ \t]*\r?")
# A name of a numpydoc See Also entry: `:role:`name``, `` `name` `` or name (numpydoc's
# _funcname), each of a line's comma-separated names before its " : description".
_SEE_ALSO_NAME = re.compile(r"(?::(?:py:)?\w+:)?`([~!]?[\w.-]+)`|([\w.-]+)")


def see_also_names(docstring: str) -> list:
    """Return (line index, name) of the names a numpydoc docstring's See Also section lists,
    as written: numpydoc renders each an `:obj:` cross-reference (a line indented deeper than
    the section's names describes the entry above)."""
    lines = docstring.split("\n")
    found, inside, indent = [], False, 0
    for index, line in enumerate(lines):
        titled = index + 1 < len(lines) and _NUMPYDOC_RULE.fullmatch(lines[index + 1]) \
            and line.strip() and not _NUMPYDOC_RULE.fullmatch(line)
        if titled:
            inside, indent = line.strip() == "See Also", len(line) - len(line.lstrip())
            continue
        if not inside or not line.strip() or _NUMPYDOC_RULE.fullmatch(line) \
                or len(line) - len(line.lstrip()) > indent:
            continue
        names = line.split(" : ", 1)[0].strip().rstrip(",.").rstrip(":").rstrip()
        for part in names.split(","):
            match = _SEE_ALSO_NAME.fullmatch(part.strip())
            if match:
                found.append((index, match.group(1) or match.group(2)))
    return found


# A Python description's typed field (Sphinx's PyTypedField, PyField, PyGroupedField): a
# parameter's or variable's type, the return type, an exception raised; each name a link.
_TYPED_FIELD = re.compile(r"[ \t]*:(rtype|type|vartype|raises?|exception|except|param|"
                          r"parameter|arg|argument|key|keyword)\b([^:`]*):(?:[ \t]+(.*))?")
# What separates the names of a type (Sphinx's PyXrefMixin._delimiters).
_TYPE_DELIMITERS = re.compile(r"\s*[\[\](),](?:\s*o[rf]\s)?\s*|\s+o[rf]\s+|\s*\|\s*|\.\.\.")
_TYPE_NAME = re.compile(r"[~!]?\.?[A-Za-z_][\w.]*")


def field_types(line: str) -> list:
    """Return the names a line's typed field links, as Sphinx's Python domain links them:
    `:rtype: X`, `:type name: X`, `:vartype name: X`, `:param X name:` (each name of X, a
    type as `dict[str, Node] or None`) and `:raises E:`; none of any other line."""
    field = _TYPED_FIELD.fullmatch(line.rstrip("\r"))
    if field is None:
        return []
    kind, argument, body = field.group(1), field.group(2).split(), field.group(3) or ""
    if kind in ("rtype", "type", "vartype"):
        written = body
    elif kind in ("raises", "raise", "exception", "except"):
        written = " ".join(argument)
    else:
        written = " ".join(argument[:-1])
    if "`" in written:
        return []  # a role inside: a reference _REFERENCE counts
    return [part for part in _TYPE_DELIMITERS.split(written) if _TYPE_NAME.fullmatch(part)]


def references(text: str, module: str | None = None, within: str | None = None,
               default_role: bool = False, see_also: bool = False) -> Counter:
    """Count the Python objects a reST page (or a docstring of module) cross-references, by
    each name they may mean; within: the class (dotted, with its module) a docstring is of or
    in, where Sphinx looks a name up too.

    `:meth:`~flask.Flask.register_blueprint`` counts for that name; a relative one
    (`:func:`option`` under `.. currentmodule:: click`) for the name as written and under the
    current module, as Sphinx would look it up, and under the class (`:meth:`load`` in
    BytecodeCache's docstring is `jinja2.BytecodeCache.load`); `.name` (a suffix search)
    under "." + name; `!name` for none (Sphinx creates no link). default_role: the project's
    default role is a Python object's (`default_role = "autolink"`), so `` `name` `` is a
    reference too; see_also: numpydoc (or napoleon) renders a docstring's See Also names as
    references.
    """
    counts: Counter[str] = Counter()
    current = module

    def count(written: str):
        if written.startswith("!"):
            return  # Sphinx shows `:func:`!echo`` unlinked
        target = written.lstrip("~")
        names = {target} if target.startswith(".") else {
            target, f"{current}.{target}", *([f"{within}.{target}"] if within else [])}
        counts.update(names - {f"None.{target}"})

    listed = see_also_names(text) if see_also else []
    entries = {index for index, _ in listed}
    for index, line in enumerate(text.split("\n")):
        declared = _CURRENT.match(line) or _AUTODOC_MODULE.match(line)
        if declared:
            current = None if declared.group(1) == "None" else declared.group(1)
        if index in entries:  # its names are numpydoc's references; its description is text
            line = line.partition(" : ")[2]
        for match in _REFERENCE.finditer(line):
            count(match.group(1))
        for name in field_types(line):
            count(name)
        if default_role:
            for match in _DEFAULT_ROLE.finditer(line):
                count(match.group(1))
    for _, name in listed:
        count(name)
    return counts


# A docstring's field of a parameter's or the return's description or type, as Sphinx's
# typehints extension reads them (`:param str name:`, `:type name:`, `:returns:`, `:rtype:`).
_FIELD = re.compile(r"^[ \t]*:(param|type|returns?|rtype)\b([^:]*):", re.MULTILINE)


def _described(docstring: str) -> tuple:
    """Return (the names with a description, the names with a type) of a docstring's fields,
    "return" for the return value's."""
    described, typed = set(), set()
    for field, rest in _FIELD.findall(docstring):
        name = rest.split()[-1] if rest.split() else ""
        if field == "param" and name:
            described.add(name)
            if len(rest.split()) > 1:
                typed.add(name)
        elif field == "type" and name:
            typed.add(name)
        elif field in ("return", "returns"):
            described.add("return")
        elif field == "rtype":
            typed.add("return")
    return described, typed


def annotation_names(signature: str, documented: str | None = None,
                     undocumented_return: bool = False) -> list:
    """Return the dotted names a signature's annotations hold (`"Template"`, `t.Optional`,
    `str` of `(self, name: t.Optional[str]) -> "Template"`), each time it is written: autodoc
    shows each as a link to what it names. A signature Python cannot parse holds none.

    documented: the docstring, where autodoc shows only the annotations it documents
    (autodoc_typehints_description_target "documented": a parameter's where a `:param:` field
    describes it and no `:type:` gives its type, the return's where a `:returns:` does and no
    `:rtype:`); undocumented_return ("documented_params"): the return's unless it is None,
    even undocumented."""
    try:
        tree = ast.parse(f"def f{signature}: pass")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef):
        return []
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                  *filter(None, (arguments.vararg, arguments.kwarg))]
    returns = function.returns
    if documented is not None:
        described, typed = _described(documented)
        parameters = [argument for argument in parameters
                      if argument.arg in described and argument.arg not in typed]
        is_none = isinstance(returns, ast.Constant) and returns.value in (None, "None")
        shown = "return" in described or (undocumented_return and not is_none)
        if "return" in typed or not shown:
            returns = None
    annotations = [argument.annotation for argument in parameters] + [returns]
    names: list = []
    for annotation in filter(None, annotations):
        names.extend(_names_in(annotation))
    return names


def _names_in(node) -> list:
    """Return the dotted names of an annotation expression, a string one's too."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _names_in(ast.parse(node.value, mode="eval").body)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return []
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [".".join([node.id, *reversed(parts)])]
    return [name for child in ast.iter_child_nodes(node) for name in _names_in(child)]


def directives(text: str, breaks: frozenset = frozenset()) -> list:
    """Return a reST page's autodoc directives, each with the module current where it stands
    (breaks: where another file's lines start, LiteralLines')."""
    lines, found, current = text.split("\n"), [], None
    # (indent, name) of the autoclass directives whose content this line is in
    classes: list[tuple[int, str]] = []
    plain: list[tuple[int, str]] = []  # likewise, of the hand-written class descriptions
    literal = LiteralLines(breaks)  # an example's directive (after `::`) is text
    for index, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if line.strip() and literal.is_literal(line.strip(), indent, index):
            continue
        if line.strip():
            for stack in (classes, plain):
                while stack and indent <= stack[-1][0]:
                    stack.pop()
        module = _CURRENT.match(line)
        if module:
            current = None if module.group(1) == "None" else module.group(1)
            continue
        described = _PLAIN_CLASS.match(line)
        if described:
            plain.append((indent, described.group(1)))
            continue
        match = _AUTODOC.match(line)
        if match is None:
            continue
        kind, name, path = match.group(1), match.group(2), match.group(3)
        block = index + 1  # where the directive block's options start
        if not name and not line[match.end():].strip() and block < len(lines):
            # The argument on the directive block's first line (requests-toolbelt's
            # `.. autofunction::` above `    requests_toolbelt.utils.dump.dump_all`): docutils
            # reads a directive's arguments from the block's lines up to a blank or an option.
            argument = _ARGUMENT_LINE.fullmatch(lines[block].rstrip("\r"))
            if argument is not None and len(lines[block]) - len(lines[block].lstrip()) > indent:
                name, path, block = argument.group(1), argument.group(2), block + 1
        options: dict = {}
        last, last_indent = None, 0  # the option read last, and its field marker's indent
        for option_line in lines[block:]:
            option_line = option_line.rstrip("\r")
            option = _OPTION.fullmatch(option_line)
            depth = len(option_line) - len(option_line.lstrip())
            if option is not None:
                last, last_indent = option.group(1), depth
                options[last] = option.group(2) or ""
            elif last is not None and option_line.strip() and depth > last_indent:
                # A field's body goes on on lines indented deeper (`:members: a, b,` then
                # `c, d` below it): one value.
                options[last] = f"{options[last]} {option_line.strip()}".strip()
            else:
                break
        within = classes[-1][1] if classes else None
        if within is None and plain and kind in _CLASS_LEVEL:
            # ClassLevelDocumenter.resolve_name: a member's class is py:class, which a
            # hand-written class description's content has too (pexpect's `.. class:: spawn`
            # holding `.. automethod:: kill` documents pexpect.spawn.kill).
            within = ".".join(name for _, name in plain)
        modname = current
        if path:
            # `.. autofunction:: sympy.integrals.rationaltools::ratint`: autodoc's explicit
            # module (py_ext_sig_re's `module::`), documented at `module.name`, whatever the
            # name's dots (imageio's `.. autoclass:: imageio.core::Format.Reader`).
            modname, name, within = name, path, None
        scope = ".".join(name for _, name in plain) \
            if plain and not classes and kind in _MODULE_LEVEL else None
        found.append(Directive(index + 1, kind, name, modname, options, within, scope,
                               explicit=bool(path)))
        if kind in ("class", "exception") and name:
            # `.. automethod:: render` in its content documents the class's render.
            classes.append((indent, f"{classes[-1][1]}.{name}" if classes else name))
        if kind == "module" and name:
            current = name  # automodule makes its module current, as `.. module::` does
    return found


# The options each autodoc directive takes: its documenter's option_spec. With any other,
# Sphinx logs "An option to autofunction is either unknown or has an invalid value" and renders
# nothing of it (AutodocDirective.run returns no nodes): pytest's `.. autofunction::
# pytest.raises(...)` with `:with: excinfo` has no description, nor id, on its page.
_INDEX_OPTIONS = frozenset({"noindex", "no-index", "no-index-entry"})
_MEMBER_OPTIONS = _INDEX_OPTIONS | {"members", "undoc-members", "inherited-members",
                                    "show-inheritance", "member-order", "exclude-members",
                                    "private-members", "special-members"}
_OPTIONS = {
    "module": _MEMBER_OPTIONS | {"synopsis", "platform", "deprecated", "imported-members",
                                 "ignore-module-all", "no-value"},
    "class": _MEMBER_OPTIONS | {"class-doc-from"},
    "exception": _MEMBER_OPTIONS | {"class-doc-from"},
    "interface": _MEMBER_OPTIONS | {"class-doc-from"},  # InterfaceDocumenter's: the class's
    "data": _INDEX_OPTIONS | {"annotation", "no-value"},
    "attribute": _INDEX_OPTIONS | {"annotation", "no-value"},
}


# The options autodoc_default_options may set: each a documenter takes is also taken negated
# (`:no-members:` of sqlalchemy's `.. autoclass:: count`), which unsets the default.
_DEFAULT_OPTIONS = frozenset({"members", "undoc-members", "inherited-members",
                              "show-inheritance", "private-members", "special-members",
                              "ignore-module-all", "exclude-members", "member-order",
                              "imported-members", "class-doc-from", "no-value"})


# Of those, the flags: their converter, bool_option, returns True whatever it is given, so a
# default of False sets them too (h5netcdf's `"undoc-members": False`).
_FLAG_OPTIONS = frozenset({"undoc-members", "show-inheritance", "imported-members",
                           "ignore-module-all", "no-value"})


# AUTODOC_EXTENDABLE_OPTIONS: a directive's `:members: +a` adds to the default's value.
_EXTENDABLE_OPTIONS = frozenset({"members", "private-members", "special-members",
                                 "exclude-members"})


def with_defaults(directive: Directive, defaults: dict) -> Directive:
    """Return a directive with conf.py's autodoc_default_options (SphinxConf.autodoc_defaults)
    applied as autodoc's process_documenter_options applies them to each option its
    documenter takes: `:no-NAME:` drops the default; a default that is a string yields to the
    directive's own value (or is extended by its `+value`), one that is a flag (None) sets
    the option whatever the directive says (pydicom's `'members': None`); False sets a flag
    (_FLAG_OPTIONS) too and leaves any other option as the directive says."""
    known = _OPTIONS.get(directive.kind, _INDEX_OPTIONS) & _DEFAULT_OPTIONS
    options = dict(directive.options)
    for name in sorted(known):
        negated = options.pop(f"no-{name}", None) is not None
        default = defaults.get(name)
        if name in defaults and not negated and (default is not False or name in _FLAG_OPTIONS):
            default = None if default is False else default
            if name in options and default is not None:
                if name in _EXTENDABLE_OPTIONS and options[name].startswith("+"):
                    options[name] = ",".join([default, options[name][1:]])
            else:
                options[name] = default or ""
        elif name in options:
            options[name] = options[name].lstrip("+")
    return directive if options == directive.options else replace(directive, options=options)


# sphinxcontrib-trio's documenters take more (pytest's `.. autofunction:: pytest.raises(...)`
# with `:with: excinfo`, rendered "with pytest.raises(...) as excinfo").
_TRIO_FUNCTION = frozenset({"async", "decorator", "with", "async-with", "for", "async-for",
                            "no-auto-options"})
# autodocsumm's documenters of modules, classes and exceptions take `:autosummary:` (a table of
# the members, before them) and its kin, and `autosummary-NAME` of each member option NAME
# they take (its AutosummaryDocumenter's option_spec; marshmallow's `.. automodule::
# marshmallow.fields` with `:autosummary:`): they add a table of links, no object.
_AUTODOCSUMM = frozenset({"autosummary", "autosummary-no-nesting", "autosummary-sections",
                          "autosummary-no-titles", "autosummary-force-inline",
                          "autosummary-nosignatures"})
_AUTODOCSUMM_MEMBERS = frozenset({"members", "undoc-members", "inherited-members",
                                  "exclude-members", "private-members", "special-members",
                                  "imported-members", "ignore-module-all"})
# {conf.py's extension: {directive kind: the options its documenter takes besides autodoc's}}
_EXTENSION_OPTIONS = {
    "sphinxcontrib_trio": {
        "function": _TRIO_FUNCTION,
        "method": _TRIO_FUNCTION | {"abstractmethod", "staticmethod", "classmethod",
                                    "property"}},
    "autodocsumm": {kind: _AUTODOCSUMM | {f"autosummary-{name}" for name in
                                          _OPTIONS[kind] & _AUTODOCSUMM_MEMBERS}
                    for kind in ("module", "class", "exception")},
}


def unknown_options(directive: Directive, extensions: tuple = ()) -> list:
    """Return the options of an autodoc directive its documenter does not take (then Sphinx
    renders nothing of the directive), in order; extensions: conf.py's."""
    known = _OPTIONS.get(directive.kind, _INDEX_OPTIONS)
    negated = {f"no-{name}" for name in known & _DEFAULT_OPTIONS}
    for extension in extensions:
        known = known | _EXTENSION_OPTIONS.get(extension, {}).get(directive.kind, frozenset())
    return [name for name in directive.options if name not in known | negated]


_AUTOSUMMARY = re.compile(r"([ \t]*)\.\.[ \t]+autosummary" + DELIMITER + r"[ \t]*")
# An autosummary entry: a dotted name, maybe `~`-shortened, maybe followed by its signature.
_ENTRY = re.compile(r"[ \t]+~?([A-Za-z_][\w.]*)")


@dataclass(frozen=True)
class Summarized:
    """One entry of an autosummary table whose `:toctree:` makes it a stub page of its own."""

    line: int  # 1-based line of the entry
    name: str  # the dotted name Sphinx gives the stub page and the object's id
    toctree: str  # the stub pages' directory, relative to the page's own
    template: str | None = None  # its `:template:`, else autosummary's for the object's kind
    stub: bool = True  # whether its table has a `:toctree:` (a stub page of its own)
    # automodsumm's `:inherited-members:` (True) or `:no-inherited-members:` (False) on the
    # table (sphinx-automodapi's stubs of a class: its bases' members too), None: neither.
    inherited: bool | None = None


def autosummary_entries(text: str, toctree_only: bool = True) -> list:
    """Return the entries of a reST page's `.. autosummary::` tables that have a `:toctree:`
    (toctree_only; else of every table, toctree "" and stub False where it has none).

    Sphinx's autosummary writes a page `TOCTREE/NAME` for each (NAME qualified by the module
    current where the table stands: a currentmodule's, module's or automodule's), documenting
    the object at the id NAME; a `:toctree:` without a value writes it beside the page. Each
    entry of any table is rendered as an `:obj:` cross-reference to its object.
    """
    lines, found, current = text.split("\n"), [], None
    index = 0
    while index < len(lines):
        line = lines[index]
        # An automodule makes its module current too (autodoc writes `.. py:module::` first):
        # the tables of its docstring, and of the page after it, name its objects.
        module = _CURRENT.match(line) or _AUTODOC_MODULE.match(line)
        if module:
            current = None if module.group(1) == "None" else module.group(1)
        table = _AUTOSUMMARY.fullmatch(line.rstrip("\r"))
        index += 1
        if table is None:
            continue
        indent, options = len(table.group(1)), {}
        while index < len(lines):
            option = _OPTION.fullmatch(lines[index].rstrip("\r"))
            if option is None:
                break
            options[option.group(1)] = (option.group(2) or "").strip()
            index += 1
        while index < len(lines):
            body = lines[index].rstrip("\r")
            if body.strip() and len(body) - len(body.lstrip()) <= indent:
                break  # the table's content ended
            entry = _ENTRY.match(body)
            if entry and ("toctree" in options or not toctree_only):
                name = entry.group(1)
                if current and not name.startswith(current + "."):
                    name = f"{current}.{name}"
                found.append(Summarized(index + 1, name,
                                        options.get("toctree", "").strip("/"),
                                        options.get("template") or None,
                                        "toctree" in options,
                                        True if "inherited-members" in options else
                                        False if "no-inherited-members" in options else None))
            index += 1
    return found


# An autodoc directive in an autosummary template: `.. autoaccessormethod:: {{ ... }}`.
_TEMPLATE_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:py:)?auto([a-z]+)" + DELIMITER, re.MULTILINE)


def template_kind(template: str, documenters: dict) -> str | None:
    """Return the kind (DIRECTIVE_KINDS) a stub written with an autosummary template describes
    its object as: that of the one autodoc directive the template writes, `auto` + a kind
    autodoc has or + the objtype of a documenter conf.py registers (documenters:
    SphinxConf.autodocumenters; pandas' accessor_method.rst writes `.. autoaccessormethod::`,
    a method); None where it writes none, several, or one of what is not known."""
    written = {match.group(1) for match in _TEMPLATE_DIRECTIVE.finditer(template)}
    if len(written) != 1:
        return None
    [name] = written
    return DIRECTIVE_KINDS.get(name) or DIRECTIVE_KINDS.get(documenters.get(name, ""))


# A directive a project (or its theme) defines itself, whose one argument is a dotted name:
# jinja2's `.. jinja:filters:: jinja2.defaults.DEFAULT_FILTERS`, `.. autopydantic_model:: a.B`.
_OWN = re.compile(r"[ \t]*\.\.[ \t]+((?:[\w-]+:)?[\w-]+)" + DELIMITER
                  + r"[ \t]+([A-Za-z_]\w*(?:\.\w+)+)[ \t]*")
# What Sphinx and docutils define, read elsewhere (the Python domain, autodoc, autosummary) or
# naming no object (files, versions): never a project's own directive.
_NOT_OWN = frozenset({
    "module", "currentmodule", "function", "class", "method", "attribute", "data", "exception",
    "decorator", "property", "classmethod", "staticmethod", "autosummary", "automodule",
    "autoclass", "autofunction", "automethod", "autoattribute", "autodata", "autoexception",
    "autodecorator", "autoproperty", "autointerface", "include", "literalinclude", "image",
    "figure", "graphviz", "inheritance-diagram", "index", "seealso", "toctree", "code-block",
    "highlight", "option", "cmdoption", "envvar", "program", "describe", "object", "glossary"})
# Domains Sphinx itself has: their directives are its own.
_SPHINX_DOMAINS = ("py:", "std:", "c:", "cpp:", "js:", "rst:", "math:")
_ANY_CURRENT = re.compile(r"[ \t]*\.\.[ \t]+(?:py:)?(?:module|currentmodule)" + DELIMITER
                          + r"[ \t]*(\S+)")


def own_directives(text: str, breaks: frozenset = frozenset()) -> list:
    """Return a page's directives of the project's own whose argument is a dotted name (kind
    "own"), each with the module current where it stands (`jinja-filters` too: Sphinx takes
    any word as the current module's name)."""
    found, current, literal = [], None, LiteralLines(breaks)
    for index, line in enumerate(text.split("\n")):
        if line.strip() and literal.is_literal(line.strip(), len(line) - len(line.lstrip()),
                                               index):
            continue  # an example's, text
        module = _ANY_CURRENT.fullmatch(line.rstrip("\r"))
        if module:
            current = None if module.group(1) == "None" else module.group(1)
            continue
        match = _OWN.fullmatch(line.rstrip("\r"))
        if match is None or match.group(1).startswith(_SPHINX_DOMAINS) \
                or match.group(1).lower() in _NOT_OWN:
            continue
        found.append(Directive(index + 1, "own", match.group(2), current, {}))
    return found


def resolve_own(directive: Directive, package) -> list | None:
    """Return [Documented] of a project's own directive, or None where its argument names
    nothing the source defines (what it documents is not known then).

    A name bound to a dict of the package's functions (`FILTERS = {"default": do_default}`)
    documents each as a function of the current module, at the id `MODULE.KEY` (a function
    under several keys once, by its longest key, with the others as names too), sorted by
    key, as pallets' `jinja:filters` renders them; a name of a class or function is
    documented as `autoclass` with `:members:` would document it (at its dotted name).
    """
    entries = mapping_entries(package, directive.name)
    if entries is None:
        found = resolve(Directive(directive.line, "class", directive.name, None,
                                  {"members": ""}), package)
        return None if found is None else [replace(item, directive=directive)
                                           for item in found]
    keys: dict = {}  # the DocObject's name -> its keys
    for key, (_, obj) in entries.items():
        keys.setdefault(obj.name, []).append(key)
    documented = []
    prefix = f"{directive.module}." if directive.module else ""
    for key, (module, obj) in sorted(entries.items()):
        names = sorted(keys[obj.name], key=lambda name: (-len(name), name))
        if key == names[0]:
            shown_module, shown = package.shown(module, obj)
            documented.append(Documented(prefix + key, shown_module, shown, directive,
                                         tuple(prefix + name for name in names[1:]), True))
    return documented


def resolve_name(name: str, package) -> list | None:
    """Return [Documented] of the object a dotted name names (a module too), or None. An
    instance of a class the package defines is its class (PackageSource.shown: whose docstring
    autodoc shows), described as data."""
    found = package.resolve(name)
    if found is None:
        return None
    module, obj = found
    kind = "module" if obj.kind == MODULE else "data"
    shown_module, shown = package.shown(module, obj)
    if shown.kind in (CLASS, EXCEPTION) and obj.kind not in (CLASS, EXCEPTION):
        return [Documented(name, shown_module, shown, Directive(0, kind, name, None, {}),
                           kind=obj.kind)]
    return [Documented(name, module, obj, Directive(0, kind, name, None, {}))]


def _names(value: str) -> list:
    return [name.strip() for name in value.split(",") if name.strip()]


@dataclass(frozen=True)
class Settings:
    """What of a project's conf.py changes what autodoc documents."""

    # autodoc_inherit_docstrings: an object without a docstring shows its bases' (default).
    inherit_docstrings: bool = True
    # pallets_sphinx_themes' autodoc-skip-member handler (skip_internal): a member whose
    # docstring has a line `:internal:` alone is not documented.
    skip_internal: bool = False
    # autoclass_content: what a class's description shows ("class", "both", "init").
    class_content: str = "class"
    # sphinx.ext.napoleon: a class docstring's Attributes entries are `.. attribute::`
    # descriptions in its content, whatever :members: says (_docstring_attributes).
    napoleon: bool = False
    # SphinxConf.special_members: the special members extensions have autodoc document.
    special_members: tuple = ()

    def keeps_special(self, name: str, own: bool) -> bool:
        """Tell whether an extension has autodoc document a class's special member with a
        docstring of its own (own: the class defines it, not a base)."""
        return any((name in names or "*" in names and name != "__init__") and (own or bases)
                   for names, bases in self.special_members)

    def content_of(self, directive: Directive) -> str:
        """Return what a directive's classes show: its `:class-doc-from:`, else the
        project's autoclass_content (autodoc's member documenters share the options)."""
        return directive.options.get("class-doc-from") or self.class_content


_INTERNAL = re.compile(r"^\s*:internal:\s*$", re.MULTILINE)
# Sphinx's defaults: what a project whose conf.py says nothing of them gets.
DEFAULT_SETTINGS = Settings()


# autodoc's resolve_name: a module-level documenter takes a dotted name's path as its module,
# whatever module is current (Pillow's `.. autofunction:: PIL.features.check` under
# `.. py:currentmodule:: PIL.features` is PIL.features.check, at that id); a class-level one
# takes the path's last part as its class and the rest, where there is a rest, as its module.
_MODULE_LEVEL = frozenset({"function", "decorator", "class", "exception", "data", "interface"})
_CLASS_LEVEL = frozenset({"method", "attribute", "property"})


def _in_current_module(directive: Directive) -> bool:
    """Tell whether autodoc looks a directive's name up in the module current where it stands."""
    dots = directive.name.count(".")
    if directive.kind in _MODULE_LEVEL:
        return dots == 0
    if directive.kind in _CLASS_LEVEL:
        return dots <= 1
    return directive.kind != "module"


def _scoped(documented: list, dotted: str, scope: str) -> list:
    """Return documented under the names the Python domain gives them in a hand-written class
    description's content: its handle_signature puts the class current there before a
    signature without that class's prefix, so `XDGViewer` in `UnixViewer` is
    `PIL.ImageShow.UnixViewer.XDGViewer`, and its member `XDGViewer.show` (autodoc's name
    for it) `...UnixViewer.XDGViewer.XDGViewer.show`."""
    module, _, own = dotted.rpartition(".")
    top = f"{module}.{scope}.{own}"
    return [replace(found, name=top if found.name == dotted else
                    f"{top}.{own}{found.name.removeprefix(dotted)}") for found in documented]


def _imported_module(package, dotted: str) -> tuple | None:
    """Return (Module, DocObject) of the module automodule imports by a dotted name, or None:
    the module itself, even where its package binds that name to something else
    (import_module; scipy's `_lsq.least_squares`, the function as an attribute)."""
    module = package.module(dotted) if dotted else None
    if module is not None and "" in module.objects:
        return module, module.objects[""]
    return package.resolve(dotted) if dotted else None


def resolve(directive: Directive, package, settings: Settings = DEFAULT_SETTINGS) -> list | None:
    """Return [Documented] of a directive (the object, then its members), or None if the
    source defines no object of that name and kind; settings: the project's."""
    candidates = [directive.name]
    if directive.module and (directive.explicit or _in_current_module(directive)):
        candidates.insert(0, f"{directive.module}.{directive.name}")
    if directive.within:
        within = [f"{directive.within}.{directive.name}"]
        if directive.module:
            within.insert(0, f"{directive.module}.{within[0]}")
        candidates = within + candidates
    for dotted in candidates:
        found = _imported_module(package, dotted) if directive.kind == "module" else \
            package.resolve(dotted) or package.through_instance(dotted) if dotted else None
        # As autodoc, any object for any directive, but a module only for automodule.
        if found is not None and (found[1].kind == MODULE) == (directive.kind == "module"):
            module, obj = found
            shown_module, shown = package.shown(module, obj)
            if settings.inherit_docstrings:
                owner = package.resolve(dotted.rpartition(".")[0]) if "." in dotted else None
                shown = inheriting(package, shown_module, shown, owner)
            shown = class_content(package, shown_module, shown, settings.content_of(directive))
            kind = DIRECTIVE_KINDS.get(directive.kind)
            if kind in (CLASS, EXCEPTION) and (
                    obj.kind not in (CLASS, EXCEPTION)
                    or obj.name.rpartition(".")[2] != dotted.rpartition(".")[2]):
                # ClassDocumenter's doc_as_attr: a class under another name than its own, or
                # what is no class (`codes = LookupDict(...)`), is described as an attribute.
                kind = ATTRIBUTE
            documented = [Documented(dotted, shown_module, shown, directive, kind=kind)]
            if directive.kind == "interface":
                return documented + _interface_members(dotted, module, obj, directive)
            if kind in (CLASS, EXCEPTION):
                documented.extend(_docstring_attributes(dotted, module, obj, directive,
                                                        settings))
            # Sphinx's document_members: `:inherited-members:` alone wants all members too.
            if "members" in directive.options or "inherited-members" in directive.options:
                documented.extend(_members(dotted, module, obj, directive, package, top=True,
                                           settings=settings, within=frozenset({obj.name}),
                                           done={item.name.rpartition(".")[2]
                                                 for item in documented[1:]}))
            return _scoped(documented, dotted, directive.scope) if directive.scope \
                else documented
    if directive.kind == "attribute":
        return _runtime_attribute(directive, candidates, package)
    return None


def _runtime_attribute(directive: Directive, candidates: list, package) -> list | None:
    """Return [Documented] of an autoattribute naming an undocumented `self.NAME = ...` of its
    class's __init__, or of a base's (Module.runtime_attributes), else None: autodoc's
    RuntimeInstanceAttributeMixin documents it, without a value (urllib3's `..
    autoattribute:: auto_close` in HTTPResponse's autoclass)."""
    for dotted in candidates:
        owner_name, _, name = dotted.rpartition(".")
        owner = package.resolve(owner_name) if owner_name else None
        if owner is None or owner[1].kind not in (CLASS, EXCEPTION):
            continue
        for module, cls in (owner, *package.bases(*owner)):
            path = cls.name[len(module.name) + 1:]
            found = module.runtime_attributes.get(f"{path}.{name}")
            if found is not None:
                return [Documented(dotted, module, found, directive, kind=ATTRIBUTE)]
    return None


def _member_names(module, obj, options, listed, path: str,
                  settings: Settings | None = None, own: bool = True) -> list:
    """Return the names :members: (with :private-members:, :special-members:) takes of the
    object at path below its module; settings: where a class's, the project's, whose
    extensions may keep its special members (keeps_special; own: the class defines them)."""
    if listed:
        return listed

    def takes(option: str, name: str) -> bool:
        # `:private-members:` takes every private name; `:private-members: _a, _b` those.
        return option in options and (not options[option].strip()
                                      or name in _names(options[option]))

    # A module's __all__ is all autodoc takes of it (get_object_members marks any other
    # member skipped), special or not.
    all_names = module.all_names if obj.kind == MODULE else None

    def wanted(name):
        if all_names is not None and name not in all_names:
            return False
        member = module.objects.get(f"{path}.{name}" if path else name)
        if name == "__doc__":
            return False  # filter_members keeps no `__doc__`, :special-members: or not
        if is_special(name):
            # An autodoc-skip-member handler decides on what autodoc would skip, by the
            # member's own docstring (filter_members' getdoc of it).
            return takes("special-members", name) or settings is not None \
                and member is not None and member.docstring is not None \
                and settings.keeps_special(name, own)
        if all_names is not None:
            return True
        return not is_private_member(name, member) or takes("private-members", name)
    # What __all__ lists that the module imports (pyparsing's `from .core import *`) is a
    # member too: autodoc reads the imported module's attributes, whatever their __module__.
    names = [*obj.members, *(name for name in all_names or () if name not in obj.members)]
    return [name for name in names if wanted(name)]


def _class_alias(package, module, obj) -> tuple:
    """Return (Module, DocObject) of a class or module member as autodoc shows it: without a
    docstring of its own and bound to a class the package defines, that class where the
    member has the class's own name (pytest's `Session.Failed = Failed`, pyparsing's
    `pyparsing_common = common`: autodoc's ClassDocumenter documents the class there, with
    a docstring or, under :undoc-members:, without: celery's `RedisBackend.ResultConsumer =
    ResultConsumer`), else, where the class has a docstring, documented as "alias of" it
    (`session_class = SecureCookieSession`: a link to it by the name it is defined at, as
    autodoc's restify writes it), as a builtin or standard library class is (_outside_class);
    else as it is."""
    if obj.docstring is not None:
        return module, obj
    if obj.kind == ATTRIBUTE and obj.bound is not None:
        # A class body's name is the class's own first, Python's class-scope lookup
        # (pyparsing_unicode's `Korean = Hangul`, Hangul nested above it), else the module's.
        scope = package.resolve(f"{obj.name.rpartition('.')[0]}.{obj.bound}")
        found = scope if scope is not None and scope[1] is not obj \
            and scope[1].kind in (CLASS, EXCEPTION) \
            else package.resolve(f"{module.name}.{obj.bound}")
    elif obj.kind == DATA and obj.alias is not None:
        found = package.resolve(obj.name)  # the name as the module's namespace binds it
    else:
        return module, obj
    if found is None or found[1].kind not in (CLASS, EXCEPTION):
        outside = _outside_class(module, obj)
        return (module, obj) if outside is None else \
            (module, replace(obj, docstring=f"alias of :class:`{outside}`", kind=ATTRIBUTE))
    if found[1].name.rpartition(".")[2] == obj.name.rpartition(".")[2]:
        return found
    if found[1].docstring is None:
        return module, obj
    # ClassDocumenter's doc_as_attr describes it with the attribute directive, a module's too.
    return module, replace(obj, docstring=f"alias of :class:`{found[1].name}`", kind=ATTRIBUTE)


def _outside_class(module, member) -> str | None:
    """Return the builtin or standard library class a module's data or a class's attribute
    without a docstring is bound to, by the name autodoc's restify writes for it (kitchen's
    `StrictDict = defaultdict`: `collections.defaultdict`; `dict_class = dict`: `dict`), or
    None: autodoc's ClassDocumenter takes such a name, its docstring the class's, as "alias
    of" the class."""
    written = member.alias if member.kind == DATA else \
        member.bound if member.kind == ATTRIBUTE else None
    if written is None or member.docstring is not None:
        return None
    found = python_class(module.imported_name(written) or written)
    if found is None:
        return None
    return found.__qualname__ if found.__module__ == "builtins" \
        else f"{found.__module__}.{found.__qualname__}"


def _undocumented_data(package, module, member, imported: bool = False) -> bool:
    """Tell whether a module's member is data without a doc comment or docstring of its own,
    which automodule leaves out, listed or not, :undoc-members: or not: autodoc's
    DataDocumenter takes a module's member only where the source documents it (`isattr`,
    ModuleAnalyzer's attr_docs); a name bound to a class or function is documented as one.
    imported: the member is another module's (module), which the documented module imports:
    its doc comment there is none of the attr_docs autodoc reads, the documented module's."""
    if member.kind != DATA or member.docstring is not None and not imported:
        return False
    bindings = _bindings(package, module, member)
    if not bindings and _outside_class(module, member) is not None:
        return False
    if (member.called or "").rpartition(".")[2] == "partial":
        # functools.partial(F, ...): autodoc unwraps it to F, so FunctionDocumenter takes one
        # of a function; no documenter takes one of a class (fonttools' `AreaPen =
        # partial(GreenPen, func=1)`).
        return not any(found[1].kind == FUNCTION for found in bindings)
    return all(found[1].kind == DATA for found in bindings)


def _bound_elsewhere(package, module, member) -> bool:
    """Tell whether a module's undocumented data is bound to a function, class or method (an
    instance's: Logbook's `debug = _default_logger.debug`) another module defines (pydicom's
    `apply_rescale = apply_modality_lut`, imported from .util) or to a
    standard library class (_outside_class): that object itself, whose __module__ autodoc's
    check_module finds is not the module's."""
    if member.kind != DATA or member.docstring is not None:
        return False
    bound = [found for found in _bindings(package, module, member)
             if found[1].kind in (FUNCTION, METHOD, CLASS, EXCEPTION)]
    return bound[0][0].name != module.name if bound \
        else _outside_class(module, member) is not None


def _bindings(package, module, member) -> list:
    """Return (Module, DocObject) of what a module's assignment names, where the package
    defines it: the name it binds (`Matrix = Dense`), then the function it is bound to or is
    given first (`select = public_factory(Select._create)`); a method of an instance's class
    (`register = registry.register`) too."""
    return [found for written in (member.alias, member.wraps) if written
            for found in [package.resolve_written(module, written)
                          or package.through_instance(f"{module.name}.{written}")]
            if found is not None]


def _described_name(dotted: str, path: str, name: str, member) -> str:
    """Return the name a member of the object autodoc documents as dotted is described by: an
    Attributes entry below a `.. currentmodule::` in its class's docstring is napoleon's
    `.. attribute::` in that module, of the class by the name autodoc gives it there
    (py:class, its path below its module: `mutagen.Picture.type`)."""
    if member.scope is None:
        return f"{dotted}.{name}"
    qualified = ".".join(dotted.split(".")[-(path.count(".") + 1):]) if path else dotted
    return f"{member.scope}.{qualified}.{name}"


def _slots_owner(package, module, obj) -> tuple | None:
    """Return (Module, DocObject) of the nearest base of a class without a `__slots__` of its
    own whose `__slots__` it has, or None: autodoc's get_class_members reads the class's
    `__slots__` attribute, a base's where it has none, and takes each name it lists as the
    class's own member (kombu's pyamqp.Message documents kombu.message.Message's slots)."""
    if obj.kind not in (CLASS, EXCEPTION) or "__slots__" in obj.members:
        return None
    return next(((base_module, base) for base_module, base in package.bases(module, obj)
                 if "__slots__" in base.members), None)


def _interface_members(dotted, module, obj, directive) -> list:
    """Return the Documented entries of the members `.. autointerface::` describes
    (repoze.sphinx.autointerface: pyramid's, zope's): with `:members:`, each method and
    `Attribute` the interface defines itself (namesAndDescriptions), documented or not, or
    the names it lists; none without it."""
    if "members" not in directive.options:
        return []
    listed = directive.options["members"].replace(",", " ").split()
    path = obj.name[len(module.name) + 1:]
    return [Documented(f"{dotted}.{name}", module, member, directive)
            for name in (listed or obj.members)
            for member in [module.objects.get(f"{path}.{name}")]
            if member is not None and member.kind in (METHOD, ATTRIBUTE)
            and not member.section_entry]


def _docstring_attributes(dotted, module, obj, directive, settings: Settings) -> list:
    """Return the Documented entries of a class docstring's Attributes section where napoleon
    renders them, of the Python-domain directives it writes itself (directive_entries), and
    of the members its own autodoc directives name (DocObject.docstring_members): its
    `.. attribute::` descriptions are the docstring's, shown wherever the class is, with
    :members: or not (mutagen's `.. autoclass:: mutagen.oggflac.OggFLAC` describes `info` and
    `tags`)."""
    path = obj.name[len(module.name) + 1:]
    found = []
    for name in obj.members:
        member = module.objects[f"{path}.{name}"]
        if member.section_entry and (settings.napoleon or member.written_directive):
            described = _described_name(dotted, path, name, member)
            found.append(Documented(described, module, member, directive))
            if member.written_directive:  # a `.. class::` it writes describes its own too
                found.extend(_docstring_attributes(described, module, member, directive,
                                                   settings))
    for name in obj.docstring_members:
        member = module.objects[f"{path}.{name}"]
        found.append(Documented(_described_name(dotted, path, name, member), module, member,
                                directive))
    return found


def _members(dotted, module, obj, directive, package, top,
             settings: Settings = DEFAULT_SETTINGS, done: set | None = None,
             within: frozenset = frozenset()) -> list:
    """Return the members :members: documents, recursively, in source order (then those of
    the package's own bases, with :inherited-members:); settings: the project's; done: the
    names described already (_docstring_attributes); within: the classes (dotted) whose
    members are being described around it, whose own are not again (a class bound in
    itself)."""
    options = directive.options
    listed = _names(options.get("members", "")) if top else []
    excluded = set(_names(options.get("exclude-members", "")))
    undocumented = "undoc-members" in options
    owners = [(module, obj)]
    if obj.kind in (CLASS, EXCEPTION) and "inherited-members" in options:
        owners += package.bases(module, obj)
    slots = _slots_owner(package, module, obj) if len(owners) == 1 else None
    if slots is not None:
        owners.append(slots)
    found, done = [], set(done or ())
    for owner_module, owner in owners:
        path = owner.name[len(owner_module.name) + 1:] if owner.name != owner_module.name else ""
        for name in _member_names(owner_module, owner, options, listed, path,
                                  settings if obj.kind in (CLASS, EXCEPTION) else None,
                                  own=owner is obj):
            member_module = owner_module
            member = owner_module.objects.get(f"{path}.{name}" if path else name)
            if member is None and listed and owner.kind in (CLASS, EXCEPTION):
                # get_object_members takes a name :members: lists by getattr, a base's member
                # too (sqlalchemy's `.. autoclass:: BIT` `:members: __init__`: Boolean's).
                member_module, member = package.member_along(owner_module, owner, name) \
                    or (owner_module, None)
            if owner is not obj and slots is not None and (member is None or not member.slot):
                continue  # of the base whose __slots__ the class has, its slots only
            if member is None and (listed or owner_module.all_names is not None) \
                    and owner.kind == MODULE:
                # A name listed (or in __all__) of a module that imports it (falcon 2's
                # `.. automodule:: falcon.testing` lists what it star-imports): autodoc
                # documents it there too.
                imported = package.resolve(f"{owner_module.name}.{name}")
                if imported is not None and imported[1].kind in (CLASS, EXCEPTION) \
                        and imported[1].name.rpartition(".")[2] != name:
                    # A class under another name (`Optional = Opt` in the module it is
                    # imported from): its assignment, documented as "alias of" it.
                    imported = package.binding(f"{owner_module.name}.{name}") or imported
                if imported is not None and imported[1].kind != MODULE:
                    member_module, member = imported
            if name in excluded or name in done or member is None or member.section_entry:
                continue  # a docstring's Attributes entry is the docstring's, not a member
            checks_module = owner.kind == MODULE and owner_module.all_names is None \
                and not listed and "imported-members" not in options
            if checks_module and (member.compiled or _bound_elsewhere(package, owner_module,
                                                                        member)):
                continue  # another module's object: :members: checks __module__ then
            if member.command_object:
                continue  # a click.Command: no documenter of autodoc's takes it as a member
            done.add(name)  # a class's own definition hides its bases', documented or not
            if owner.kind == MODULE and _undocumented_data(
                    package, member_module, member, imported=member_module is not owner_module):
                continue
            shown_module, shown = package.shown(member_module, member)
            shown_module, shown = _class_alias(package, shown_module, shown)
            # A class, or a name autodoc documents as the class it is bound to (kombu's
            # `Connection.Channel = Channel`, pyparsing's `pyparsing_common = common`): its
            # members are described in it too; an instance's (`norm = norm_gen()`) are not.
            nested = (member_module, member) if member.kind in (CLASS, EXCEPTION) else \
                (shown_module, shown) if shown.kind in (CLASS, EXCEPTION) \
                and member.called is None else None
            if settings.inherit_docstrings:
                shown = inheriting(package, shown_module, shown, (owner_module, owner))
            # filter_members' has_doc is the docstring as prepare_docstring leaves it: a blank
            # one written (pint's `""" """`) is none, though it stops inheriting a base's. It
            # holds for a member :members: lists by name too (xmlschema's `:members: copy,
            # lookup_type, ...`: the ones without a docstring are not on its page).
            if (shown.docstring is None or member.docstring == "") and not undocumented \
                    and not (settings.inherit_docstrings
                             and _documented_outside(package, shown_module, shown)):
                continue
            # Whether a member is documented is its own docstring's (filter_members' getdoc),
            # whatever autoclass_content shows of it.
            shown = class_content(package, shown_module, shown, settings.content_of(directive))
            if settings.skip_internal and _INTERNAL.search(shown.docstring or ""):
                continue
            # A module's function bound in a class body (pint's `wraps = registry_helpers.
            # wraps`) is a routine of the class: MethodDocumenter documents it, a method.
            kind = METHOD if shown.kind == FUNCTION and owner.kind in (CLASS, EXCEPTION) \
                else None
            found.append(Documented(_described_name(dotted, path, name, member), shown_module,
                                    shown, directive, kind=kind))
            if nested is not None and nested[1].name not in within:
                entries = _docstring_attributes(f"{dotted}.{name}", *nested, directive, settings)
                found.extend(entries)
                found.extend(_members(f"{dotted}.{name}", *nested, directive, package,
                                      top=False, settings=settings,
                                      done={item.name.rpartition(".")[2] for item in entries},
                                      within=within | {nested[1].name}))
    return found


def _documented_outside(package, module, obj) -> bool:
    """Tell whether a class written without a docstring has one to filter_members all the
    same: its getdoc falls back on inspect.getdoc, which takes the first docstring along the
    MRO but object's, and a base outside the package (a builtin's, the standard library's,
    another package's) has one: `class FooError(ValueError): pass` is described, showing no
    docstring (ClassDocumenter.get_doc inherits none)."""
    return obj.kind in (CLASS, EXCEPTION) and obj.docstring is None and any(
        base.rpartition(".")[2] != "object" for base in package.outside_bases(module, obj))


def reference_targets(text: str) -> list:
    """Return the targets of the Python cross-references in a text (a docstring), as written
    without `~`, `!` and `()`: `:class:`Response <Response>`` gives "Response"."""
    return [match.group(1).lstrip("~!") for match in _REFERENCE.finditer(text)]
