"""A project's autosummary templates, rendered from the package source without Jinja.

Autosummary writes a stub page per entry of a `:toctree:` table by rendering a template
(`_templates/autosummary/class.rst`, else its own) with the object's member lists, then scans
what it wrote line by line for `.. autosummary::` tables with a `:toctree:` and writes their
entries' stubs too (generate.find_autosummary_in_lines), in a reST comment as well: scipy's and
pandas' class.rst list each method and attribute so, in a table the page itself hides. Here such
a template is rendered for one class from what the source defines: its text, `{{ expression }}`,
`{% for item in LIST %}`, `{% if %}`/`{% elif %}`/`{% else %}`, `{% set %}`, `{% block %}` and
`{% extends "!autosummary/..." %}` (autosummary's own parent: its blocks, under the current
module), with whitespace control; an expression is what Python's grammar reads it as, of names,
literals, `not`/`and`/`or`, comparisons, `in`, a string's methods, indexing, `+` and the filters
autosummary registers (`escape`, `underline`) and `join`. A template using anything else is not
rendered (Unrendered): the caller counts it.
"""

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from .docstrings import ATTRIBUTE, CLASS, EXCEPTION, METHOD, DocObject, Module, PackageSource

# A Jinja tag, expression or comment, with its whitespace control marks.
_TAG = re.compile(r"\{([%{#])(-?)(.*?)(-?)([%}#])\}", re.DOTALL)
_CLOSING = {"%": "%", "{": "}", "#": "#"}
# sphinx.util.rst.escape: the characters reST gives a meaning, and a leading dot.
_RST_SYMBOLS = re.compile(r"([!-\-/:-@\[-`{-~])")
# What a string's methods an expression may call: none changes anything.
_STRING_METHODS = frozenset({"startswith", "endswith", "split", "rsplit", "strip", "lstrip",
                             "rstrip", "lower", "upper", "replace", "partition", "rpartition"})
_CONSTANTS = {"true": True, "false": False, "none": None, "True": True, "False": False,
              "None": None}


# A template comes from the archive read, so its rendering is bounded: nested loops over a
# class's members, or `{% set s = s + s %}` in one, would otherwise take time and memory without
# end. Real templates write a few KiB per class (scipy's class.rst: ~100 lines).
MAX_RENDERED_CHARACTERS = 1 << 20  # of output and of any one value an expression makes
MAX_RENDER_STEPS = 200_000  # nodes rendered, each loop's pass over its body counted


class Unrendered(Exception):
    """A template using what this reader does not evaluate (or rendering more than it may)."""


def rst_escape(text: str) -> str:
    """Escape text as sphinx.util.rst.escape does (its reST symbols, a leading dot)."""
    return re.sub(r"^\.", r"\\.", _RST_SYMBOLS.sub(r"\\\1", text))


def _underline(text: str, line: str = "=") -> str:
    if len(text) * (len(line) + 1) > MAX_RENDERED_CHARACTERS:
        raise Unrendered("an underline over MAX_RENDERED_CHARACTERS")
    return f"{text}\n{line * len(text)}"


def _join(items, separator: str = "") -> str:
    texts = [str(item) for item in items]
    if sum(map(len, texts)) + len(separator) * len(texts) > MAX_RENDERED_CHARACTERS:
        raise Unrendered("a join over MAX_RENDERED_CHARACTERS")
    return separator.join(texts)


# The filters autosummary's renderer registers, and Jinja's join.
_FILTERS: dict[str, Callable[..., str]] = {"escape": rst_escape, "e": rst_escape,
                                           "underline": _underline, "join": _join}


def _value(node, context: dict):
    """Return what an expression (a Python ast of Jinja's syntax) evaluates to."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in context:
            return context[node.id]
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise Unrendered(f"the name {node.id}")
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item, context) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _value(node.operand, context)
    if isinstance(node, ast.BoolOp):
        values = (_value(item, context) for item in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _value(node.left, context)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _value(comparator, context)
            if not _compare(op, left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, context), _value(node.right, context)
        if _size(left) + _size(right) > MAX_RENDERED_CHARACTERS:
            raise Unrendered("a value over MAX_RENDERED_CHARACTERS")
        try:
            return left + right
        except TypeError as exc:
            raise Unrendered(str(exc)) from None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # a filter
        return _filtered(_value(node.left, context), node.right, context)
    if isinstance(node, ast.Subscript):
        container, index = _value(node.value, context), node.slice
        try:
            if isinstance(index, ast.Slice):
                return container[slice(*(None if part is None else _value(part, context)
                                         for part in (index.lower, index.upper, index.step)))]
            return container[_value(index, context)]
        except (IndexError, KeyError, TypeError) as exc:
            raise Unrendered(str(exc)) from None
    if isinstance(node, ast.Call) and not node.keywords:
        arguments = [_value(argument, context) for argument in node.args]
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _STRING_METHODS:
            owner = _value(func.value, context)
            if isinstance(owner, str):
                try:
                    found = getattr(owner, func.attr)(*arguments)
                except (TypeError, ValueError) as exc:
                    raise Unrendered(str(exc)) from None
                if _size(found) > MAX_RENDERED_CHARACTERS:  # `.replace` grows a string
                    raise Unrendered("a value over MAX_RENDERED_CHARACTERS")
                return found
        if isinstance(func, ast.Name) and func.id == "_" and len(arguments) == 1:
            return arguments[0]  # gettext: the text untranslated
    raise Unrendered(type(node).__name__)


def _size(value) -> int:
    """Return the characters a value is made of (a list's items' summed), to bound it."""
    if isinstance(value, (list, tuple)):
        return sum(_size(item) for item in value) + len(value)
    return len(value) if isinstance(value, str) else 1


def _compare(op, left, right) -> bool:
    try:
        if isinstance(op, ast.In):
            return left in right
        if isinstance(op, ast.NotIn):
            return left not in right
        if isinstance(op, ast.Eq):
            return bool(left == right)
        if isinstance(op, ast.NotEq):
            return bool(left != right)
    except TypeError as exc:
        raise Unrendered(str(exc)) from None
    raise Unrendered(type(op).__name__)


def _filtered(value, node, context: dict):
    name, arguments = node, []
    if isinstance(node, ast.Call) and not node.keywords:
        name, arguments = node.func, [_value(argument, context) for argument in node.args]
    if not isinstance(name, ast.Name) or name.id not in _FILTERS:
        raise Unrendered("a filter")
    try:
        return _FILTERS[name.id](value, *arguments)
    except TypeError as exc:
        raise Unrendered(str(exc)) from None


def _expression(text: str):
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise Unrendered(f"the expression {text.strip()!r}") from None


@dataclass
class _Node:
    """One tag with what it encloses: ("text", text), ("output", expression), ("for", target,
    expression, body, else body), ("if", [(condition, body)...]), ("set", name, expression),
    ("block", name, body)."""

    kind: str
    parts: tuple


def _tokens(template: str) -> list:
    """Split a template into ("text", text) and (tag kind, its text) tokens, whitespace control
    applied: `{%-` strips the whitespace before a tag, `-%}` the whitespace after it."""
    tokens: list = []
    at, strip_next = 0, False
    for match in _TAG.finditer(template):
        opener, before, content, after, closer = match.groups()
        if _CLOSING[opener] != closer:
            raise Unrendered("an unclosed tag")
        text = template[at:match.start()]
        if strip_next:
            text = text.lstrip()
        if before:
            text = text.rstrip()
        tokens.append(("text", text))
        if opener != "#":
            tokens.append((opener, content.strip()))
        at, strip_next = match.end(), bool(after)
    text = template[at:]
    tokens.append(("text", text.lstrip() if strip_next else text))
    return tokens


def _parse(tokens: list, at: int, ends: tuple) -> tuple:
    """Return (the nodes up to a tag whose first word is in ends, where that tag stands)."""
    nodes: list = []
    while at < len(tokens):
        kind, text = tokens[at]
        if kind == "text":
            nodes.append(_Node("text", (text,)))
            at += 1
            continue
        if kind == "{":
            nodes.append(_Node("output", (_expression(text),)))
            at += 1
            continue
        word, _, rest = text.partition(" ")
        if word in ends:
            return nodes, at
        if word == "for":
            target, found, listed = rest.partition(" in ")
            if not found or not target.strip().isidentifier():
                raise Unrendered(f"the loop {text!r}")
            body, at = _parse(tokens, at + 1, ("endfor", "else"))
            otherwise: list = []
            if at < len(tokens) and tokens[at][1] == "else":
                otherwise, at = _parse(tokens, at + 1, ("endfor",))
            nodes.append(_Node("for", (target.strip(), _expression(listed), body, otherwise)))
        elif word == "if":
            branches, condition = [], _expression(rest)
            while True:
                body, at = _parse(tokens, at + 1, ("elif", "else", "endif"))
                branches.append((condition, body))
                if at >= len(tokens) or tokens[at][1].partition(" ")[0] == "endif":
                    break
                closing = tokens[at][1].partition(" ")
                condition = _expression(closing[2]) if closing[0] == "elif" else None
            nodes.append(_Node("if", (branches,)))
        elif word == "set":
            target, found, value = rest.partition("=")
            if not found or not target.strip().isidentifier():
                raise Unrendered(f"the assignment {text!r}")
            nodes.append(_Node("set", (target.strip(), _expression(value))))
        elif word == "block":
            body, at = _parse(tokens, at + 1, ("endblock",))
            nodes.append(_Node("block", (rest.strip(), body)))
        elif word == "extends":
            nodes.append(_Node("extends", (rest.strip().strip("'\""),)))
        else:
            raise Unrendered(f"the tag {word!r}")
        if at >= len(tokens):
            raise Unrendered(f"an unclosed {word}")
        at += 1
    if ends:
        raise Unrendered(f"no {ends[0]}")
    return nodes, at


@dataclass
class _Output:
    """What a rendering has written so far, and how much work it has done (bounded)."""

    parts: list
    characters: int = 0
    steps: int = 0

    def write(self, text: str) -> None:
        self.characters += len(text)
        if self.characters > MAX_RENDERED_CHARACTERS:
            raise Unrendered("an output over MAX_RENDERED_CHARACTERS")
        self.parts.append(text)

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_RENDER_STEPS:
            raise Unrendered("more than MAX_RENDER_STEPS")


def _render(nodes: list, context: dict, out: _Output) -> None:
    for node in nodes:
        out.step()
        if node.kind == "text":
            out.write(node.parts[0])
        elif node.kind == "output":
            value = _value(node.parts[0], context)
            out.write("" if value is None else str(value))
        elif node.kind == "for":
            target, listed, body, otherwise = node.parts
            items = _value(listed, context)
            if not isinstance(items, (list, tuple, set, frozenset, str)):
                raise Unrendered("a loop over no list")
            for item in (sorted(items) if isinstance(items, (set, frozenset)) else items):
                _render(body, context | {target: item}, out)
            if not items:
                _render(otherwise, context, out)
        elif node.kind == "if":
            for condition, body in node.parts[0]:
                if condition is None or _value(condition, context):
                    _render(body, context, out)
                    break
        elif node.kind == "set":
            context[node.parts[0]] = _value(node.parts[1], context)
        elif node.kind == "block":
            _render(node.parts[1], context, out)


def render(template: str, context: dict) -> str:
    """Render an autosummary template with a context (class_context), as autosummary's Jinja
    would, or raise Unrendered. A template extending autosummary's own (`!autosummary/...`)
    renders its blocks, in order, after the parent's `.. currentmodule:: {{ module }}`."""
    # Jinja drops a template's one trailing newline (keep_trailing_newline is off).
    template = template.removesuffix("\n").removesuffix("\r")
    nodes, _ = _parse(_tokens(template), 0, ())
    parents = [node.parts[0] for node in nodes if node.kind == "extends"]
    if parents:
        if not all(parent.startswith("!autosummary/") for parent in parents):
            raise Unrendered(f"extends {parents[0]}")
        nodes = [_Node("text", (f".. currentmodule:: {context.get('module', '')}\n\n",))] + [
            node for node in nodes if node.kind in ("block", "set")]
    out = _Output([])
    _render(nodes, dict(context), out)
    return "".join(out.parts)


def _cdef_class(module: Module, cls: DocObject) -> bool:
    """Tell whether a class is a Cython extension type (`cdef class`, in a .pyx file)."""
    if not cls.path.endswith(".pyx"):
        return False
    header = next((line.strip() for line in module.lines[cls.start_line - 1:cls.end_line]
                   if not line.strip().startswith("@")), "")
    return header.startswith("cdef ")


def class_members(package: PackageSource, module: Module, cls: DocObject) -> dict:
    """Return {name: (DocObject, whether the class itself defines it)} of what dir() of a class
    has that the source defines: its own members and its bases' the package defines, the
    nearest definition of each. An entry of a class docstring's Attributes section is none
    (numpydoc renders it on the class's page; no member by that name), but of a Cython
    `cdef class`, which has no instance __dict__: what its instances have is its descriptors
    (`cdef readonly`, `property n:`), which the Cython reader does not all read (scipy's
    cKDTree.n)."""
    found: dict = {}
    for owner_module, owner in [(module, cls), *(
            (base_module, base) for base_module, base, _ in
            package.base_depths(module, cls))]:
        below = owner.name[len(owner_module.name) + 1:]
        for member in owner.members:
            obj = owner_module.objects[f"{below}.{member}"]
            if obj.path == owner.path and owner.start_line <= obj.start_line <= owner.end_line \
                    and not _cdef_class(owner_module, owner):
                continue  # an entry of its docstring's Attributes section
            found.setdefault(member, (obj, owner is cls))
    return found


def class_context(package: PackageSource, module: Module, cls: DocObject, fullname: str) -> dict:
    """Return the names autosummary renders a class's template with, from what the source
    defines (generate_autosummary_content): `members`, `inherited_members`, `methods` and
    `all_methods`, `attributes` and `all_attributes` (each in dir() order, of class_members),
    and `fullname`, `module`, `objname`, `name`, `objtype`, `underline`. `module` is the
    longest prefix of the name that is a module, as autosummary's split_full_qualified_name
    finds it by importing."""
    members = class_members(package, module, cls)
    kinds = {member: obj.kind for member, (obj, _) in members.items()}
    own = {member for member, (_, defines) in members.items() if defines}
    parts = fullname.split(".")
    cut = package.module_cut(parts, len(parts) - 1)
    modname = ".".join(parts[:cut]) if cut else parts[0]
    qualname = fullname[len(modname) + 1:]
    all_methods = sorted(member for member, kind in kinds.items() if kind == METHOD)
    all_attributes = sorted(member for member, kind in kinds.items() if kind == ATTRIBUTE)
    return {
        "fullname": fullname, "module": modname, "objname": qualname, "name": qualname,
        "objtype": "class", "underline": "=" * len(fullname),
        "members": sorted(kinds), "inherited_members": set(kinds) - own,
        "all_methods": all_methods, "all_attributes": all_attributes,
        # What autosummary calls public: no leading "_", and __init__ among methods.
        "methods": [name for name in all_methods
                    if not name.startswith("_") or name == "__init__"],
        "attributes": [name for name in all_attributes if not name.startswith("_")],
    }


def _binds_class(package: PackageSource, obj: DocObject) -> bool:
    """Tell whether a class attribute is bound to a class the package defines (`name =
    Other`, documented or not: its class body's binding of it, Module.class_scopes)."""
    parts = obj.name.split(".")
    module = package.module(".".join(parts[:package.module_cut(parts, len(parts) - 1)]))
    if module is None:
        return False
    owner, _, member = obj.name[len(module.name) + 1:].rpartition(".")
    value = module.class_scopes.get(owner, ({},))[0].get(member)
    written = obj.bound or (ast.unparse(value) if isinstance(value, (ast.Name, ast.Attribute))
                            else None)
    found = package.resolve_written(module, written) if written else None
    return found is not None and found[1].kind in (CLASS, EXCEPTION)


# automodsumm_included_members' default: the special methods automodsumm lists among methods.
AUTOMODSUMM_INCLUDED = ("__init__", "__call__")


def automodsumm_context(package: PackageSource, module: Module, cls: DocObject, fullname: str,
                        inherited: bool = False) -> dict:
    """Return the names automodsumm (sphinx-automodapi) renders a class's template with
    (generate_automodsumm_docs), from what the source defines: `methods` and `attributes`,
    those the class itself defines (its bases' too where inherited:
    automodsumm_inherited_members, `:inherited-members:`), public or AUTOMODSUMM_INCLUDED,
    sorted, a property among attributes (automodsumm_properties_are_attributes); `fullname`,
    `module` and `objname` split at the name's last dot, `name`, `objtype`, `underline`."""
    members = {member: obj for member, (obj, own) in
               class_members(package, module, cls).items() if own or inherited}
    methods = sorted(member for member, obj in members.items() if obj.kind == METHOD
                     and (not member.startswith("_") or member in AUTOMODSUMM_INCLUDED))
    # An attribute bound to a class (astropy's `data_class = AASTexData`) is of the class
    # documenter's type, neither attribute nor method.
    attributes = sorted(member for member, obj in members.items() if obj.kind == ATTRIBUTE
                        and not member.startswith("_") and not _binds_class(package, obj))
    modname, _, objname = fullname.rpartition(".")
    return {"fullname": fullname, "module": modname, "objname": objname, "name": objname,
            "objtype": "class", "underline": "=" * len(objname), "members": sorted(members),
            "methods": methods, "attributes": attributes, "noindex": False}
