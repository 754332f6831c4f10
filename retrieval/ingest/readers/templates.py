"""Docstrings a package assembles at import time, resolved statically where they can be.

pandas writes many docstrings as templates its decorators fill in when the module is imported:
`@Appender(_shared_docs["merge"] % _shared_doc_kwargs)`, `@Substitution(klass="Series")`,
`@doc(NDFrame.fillna, klass="Series")`. Nothing is imported here: the decorator's arguments are
evaluated from the source alone, where each is built of string literals, the module-level names
and `NAME["key"] = ...` entries they are bound to (in this module or the one they are imported
from, entries a module adds to a dict it imports joining it), literal dicts and `dict(...)`, `%`,
`+`, f-strings, `.format(...)` and `dedent(...)`, and the docstrings of the package's own
functions, each name looked up in the class body first for a method's decorator, as Python does.
The argument an undocumented `name = F(...)` gives a package function that sets the `__doc__` of
the function it returns (docstrings.doc_parameter) is read so too, as are a body's or module's
`__doc__ = ...` and the decorators of a function a classmethod binds onto its class. What cannot be
(a value computed by a call, a name from another package) is left as it was and counted; where
it is a piece summed with text or a `@doc` keyword, it alone is left out, and the docstring is
counted as resolved in part.

The object still quotes its own lines (its decorators and header); the assembled docstring is
what its unit is indexed by.
"""

import ast
import contextlib
import dataclasses
import inspect
import operator
import re
import string
import textwrap
from collections.abc import Callable
from typing import NamedTuple

from . import docstrings
from .code_deprecation import base_name
from .docstrings import (
    CLASS,
    EXCEPTION,
    FUNCTION,
    METHOD,
    DictUpdate,
    DocObject,
    Module,
    PackageSource,
)

# How deep a value may refer to other values before it is given up (a cycle, or worse).
_MAX_DEPTH = 24


# A call of a computing function (docstrings.Module.computing_functions) is evaluated at most
# this many times per package (each distinct call once), and `*` makes no text longer than this.
_MAX_CALLS = 10_000
_MAX_TEXT = 1 << 20
# A list comprehension reads at most this many items.
_MAX_ITEMS = 10_000
# Where a class attribute is read from outside the class: after its whole body (class_scope).
_AFTER_BODY = 1 << 62

# The str methods a value may call: pure functions of str and int arguments.
_STR_METHODS = frozenset({"replace", "join", "strip", "lstrip", "rstrip", "upper", "lower",
                          "capitalize", "title", "startswith", "endswith"})

# A comparison's operator (ast.Compare), as Python's; `is` and `is not` only against None.
_COMPARISONS: dict = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b,
                      ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_,
                      ast.IsNot: operator.is_not}

# An operand the source does not give (_Templates.operand), apart from a given None.
_MISSING = object()
# A computing function's statements that end without a return (_Templates.run).
_FELL_THROUGH = object()


# An f-string field's conversion (FormattedValue.conversion: `!r`, `!s`, `!a`), as Python's.
_CONVERSIONS: dict = {ord("r"): repr, ord("s"): str, ord("a"): ascii}


class _Unresolved(Exception):
    """A value the source alone does not give."""


def _within(size: int) -> None:
    """Raise _Unresolved for a text (or list) of more than _MAX_TEXT characters (items): a
    computing function's `text += text` in a row, or a large replacement, makes none."""
    if size > _MAX_TEXT:
        raise _Unresolved("a text longer than this reader makes")


def _bounded(item):
    """Return a value, which is no text or list longer than _MAX_TEXT (_within)."""
    if isinstance(item, (str, list, tuple)):
        _within(len(item))
    return item


# A printf-style conversion's width and precision (`%-10.3s`, `%*d`): what `%` pads text to.
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?")


def _padding_within(spec: str) -> None:
    """Raise _Unresolved where a format spec's width or precision pads one field to more than
    _MAX_TEXT characters (`{x:>99999999999}`): the text it would make is never made."""
    if any(len(width) > 7 or int(width) > _MAX_TEXT for width in re.findall(r"\d+", spec)):
        raise _Unresolved("a width longer than this reader makes")


def _percent_padding_within(text: str) -> None:
    """Apply _padding_within to each `%` conversion of a template; a `*` width (given by an
    argument) is not read."""
    for match in _PERCENT_FIELD.finditer(text):
        if "*" in match.groups():
            raise _Unresolved("a `*` width")
        _padding_within(" ".join(group for group in match.groups() if group))


def _format_padding_within(text: str) -> None:
    """Apply _padding_within to each `.format` field's spec of a template; a spec with a field
    of its own (`{x:{width}}`) is not read."""
    try:
        specs = [spec for _, _, spec, _ in string.Formatter().parse(text) if spec]
    except ValueError as exc:
        raise _Unresolved(str(exc)) from None
    for spec in specs:
        if "{" in spec:
            raise _Unresolved("a format spec with a field of its own")
        _padding_within(spec)


def _texts_size(items) -> int:
    """Return how long the texts among items (a list or tuple) are together."""
    return sum(len(item) for item in items if isinstance(item, str)) \
        if isinstance(items, (list, tuple)) else 0


class _ClassScope(NamedTuple):
    """A class body as a name is read in it: its `NAME = value` and `NAME["key"] = value`
    (Module.class_scopes), the class's path below its module, and the line read at (a method
    the body defines above it is bound there)."""

    assigned: dict
    items: dict
    path: str
    line: int


@dataclasses.dataclass(frozen=True)
class _Callable:
    """A function or class of the package that a decorator argument names."""

    module: Module
    obj: DocObject


class _Templates:
    def __init__(self, package: PackageSource):
        self.package = package
        self.components: dict = {}  # DocObject name -> its @doc components (None: in progress)
        self.docs: dict = {}  # DocObject name -> its docstring as assembled (assembled)
        # The class scope (class_scope) a name is looked up in first, where what is
        # read is a method's decorator or what that class body binds; None: the module's.
        self.scope: _ClassScope | None = None
        # The (scope's assignments, name) pairs whose `NAME = value` is being read: NAME in
        # its own value is the binding before it (generic.py's `_shared_docs = {**_shared_docs}`
        # copies the dict it imports).
        self.assigning: set = set()
        # Whether a piece of the docstring being read was left out (a sum's operand the source
        # does not give), and the objects whose docstrings were read so (assembled).
        self.left_out = False
        self.in_part: set = set()
        # The computing function being evaluated: ({its local name: value}, its local names),
        # read before any other scope; None outside one. Each call evaluated (its function's
        # name and arguments -> what it returns, whether a piece was left out) and how many were.
        self.frame: tuple | None = None
        self.returned: dict = {}
        self.calls = 0
        self.functions: dict = {}  # a computing function's name -> its ast (function_node)

    @contextlib.contextmanager
    def _set(self, attribute: str, value):
        """Give the reader's attribute that value within the block."""
        saved = getattr(self, attribute)
        setattr(self, attribute, value)
        try:
            yield
        finally:
            setattr(self, attribute, saved)

    def scoped(self, scope: _ClassScope | None):
        """Read names in scope (a class scope, None: the module's) within the block."""
        return self._set("scope", scope)

    def framed(self, frame: tuple | None):
        """Read names in a computing function's frame (None: none) within the block."""
        return self._set("frame", frame)

    # -- values ---------------------------------------------------------------------------

    def value(self, module: Module, node, depth: int = 0):
        if depth > _MAX_DEPTH:
            raise _Unresolved("too deep")
        depth += 1
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(
                node.value, (str, int, float))):
            return node.value
        if isinstance(node, ast.Name):
            return self.named(module, node.id, depth)
        if isinstance(node, ast.Attribute):
            return self.dotted(module, ast.unparse(node), depth)
        if isinstance(node, ast.Subscript):
            container = self.value(module, node.value, depth)
            key = self.value(module, node.slice, depth) if not isinstance(node.slice, ast.Slice) \
                else slice(*(None if bound is None else self.value(module, bound, depth)
                             for bound in (node.slice.lower, node.slice.upper, node.slice.step)))
            try:
                if isinstance(container, dict) or isinstance(container, (str, tuple, list)) \
                        and isinstance(key, (int, slice)):
                    return container[key]
            except (KeyError, IndexError, TypeError, ValueError):
                pass
            raise _Unresolved("no such entry")
        if isinstance(node, (ast.Tuple, ast.List)):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                raise _Unresolved("a starred element")
            items = [self.value(module, element, depth) for element in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.BinOp):
            return _bounded(self.binary(module, node, depth))
        if isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.IfExp)):
            return self.tested(module, node, depth)
        if isinstance(node, ast.ListComp):
            return self.comprehended(module, node, depth)
        if isinstance(node, ast.Dict):
            found: dict = {}
            for key, item in zip(node.keys, node.values, strict=True):
                if key is None:
                    merged = self.value(module, item, depth)
                    if not isinstance(merged, dict):
                        raise _Unresolved("** of no dict")
                    found.update(merged)
                else:
                    found[self.value(module, key, depth)] = self.value(module, item, depth)
            return found
        if isinstance(node, ast.Call):
            return self.call(module, node, depth)
        if isinstance(node, ast.JoinedStr):
            # torch.optim's `Adam.__doc__ = ... + fr"""...{_maximize_doc}..."""`.
            return self.formatted(node, lambda field: self.value(module, field, depth))
        raise _Unresolved(type(node).__name__)

    def binary(self, module: Module, node: ast.BinOp, depth: int):
        """The value of `+`, `%` or `text * n`, as Python's."""
        if isinstance(node.op, ast.Add):
            left, right = self.operand(module, node.left, depth), self.operand(
                module, node.right, depth)
            if left is _MISSING or right is _MISSING:
                # A piece the source does not give, joined to text (pandas' read_csv: its NA
                # values, `fill(sorted(STR_NA_VALUES))` of a compiled module): the text
                # around it is still the docstring's, and the piece is left out.
                known = left if right is _MISSING else right
                if not isinstance(known, str):
                    raise _Unresolved("a sum of a piece the source does not give")
                self.left_out = True
                left, right = ("", right) if left is _MISSING else (left, "")
        elif isinstance(node.op, (ast.Mod, ast.Mult)):
            left, right = self.value(module, node.left, depth), self.value(module, node.right,
                                                                           depth)
        else:
            raise _Unresolved(type(node.op).__name__)
        if isinstance(node.op, ast.Mult):
            text, times = (left, right) if isinstance(left, str) else (right, left)
            if not isinstance(text, str) or not isinstance(times, int) \
                    or len(text) * max(times, 0) > _MAX_TEXT:
                raise _Unresolved("a product this reader does not make")
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            _percent_padding_within(left)
        try:
            return left + right if isinstance(node.op, ast.Add) \
                else left % right if isinstance(node.op, ast.Mod) else left * right
        except (TypeError, ValueError, KeyError) as exc:
            raise _Unresolved(str(exc)) from None

    def operand(self, module: Module, node, depth: int):
        """The value of one operand of a sum; _MISSING where the source does not give it."""
        try:
            return self.value(module, node, depth)
        except _Unresolved:
            return _MISSING

    def comprehended(self, module: Module, node: ast.ListComp, depth: int) -> list:
        """The items of a list comprehension of one `for NAME in ...` and its `if`s (pandas'
        `[method for method in DatetimeArray._datetimelike_methods if method not in (...)]`)."""
        generator = node.generators[0]
        if len(node.generators) != 1 or generator.is_async \
                or not isinstance(generator.target, ast.Name):
            raise _Unresolved("a comprehension this reader does not follow")
        items = self.value(module, generator.iter, depth)
        if not isinstance(items, (tuple, list)) or len(items) > _MAX_ITEMS:
            raise _Unresolved("a comprehension over no list")
        values, names = (dict(self.frame[0]), set(self.frame[1])) if self.frame else ({}, set())
        names.add(generator.target.id)
        found: list = []
        size = 0
        with self.framed((values, names)):
            for item in items:
                values[generator.target.id] = item
                if all(self.truth(module, test, depth) for test in generator.ifs):
                    found.append(self.value(module, node.elt, depth))
                    size += _texts_size(found[-1:])
                    _within(size)
        return found

    def tested(self, module: Module, node, depth: int):
        """The value of a comparison, `and`/`or`, `not`, `-number` or `a if test else b`, as
        Python's."""
        if isinstance(node, ast.IfExp):
            chosen = node.body if self.truth(module, node.test, depth) else node.orelse
            return self.value(module, chosen, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            number = self.value(module, node.operand, depth)  # `text[:-1]`
            if not isinstance(number, (int, float)):
                raise _Unresolved("the negative of no number")
            return -number
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.Not):
                raise _Unresolved(type(node.op).__name__)
            return not self.truth(module, node.operand, depth)
        if isinstance(node, ast.BoolOp):
            item = None
            for operand in node.values:  # the first false (and) or true (or) one, else the last
                item = self.value(module, operand, depth)
                if self.truth_of(item) != isinstance(node.op, ast.And):
                    break
            return item
        compare = _COMPARISONS.get(type(node.ops[0])) if len(node.ops) == 1 else None
        if compare is None:
            raise _Unresolved("a comparison this reader does not make")
        left, right = self.value(module, node.left, depth), self.value(
            module, node.comparators[0], depth)
        if compare in (operator.is_, operator.is_not) and None not in (left, right):
            raise _Unresolved("an identity of no None")
        try:
            return compare(left, right)
        except TypeError as exc:
            raise _Unresolved(str(exc)) from None

    def truth(self, module: Module, node, depth: int) -> bool:
        """Whether a test's value is true."""
        return self.truth_of(self.value(module, node, depth))

    @staticmethod
    def truth_of(item) -> bool:
        if not isinstance(item, (str, int, float, tuple, list, dict, type(None))):
            raise _Unresolved("the truth of no value")
        return bool(item)

    def keywords(self, module: Module, node: ast.Call, depth: int,
                 lenient: bool = False) -> dict:
        """Return a call's keyword arguments; lenient: a named one the source does not give
        (pandas' `@doc(..., name1=name1)` of a name its classmethod computes) is empty text,
        left out."""
        found: dict = {}
        for keyword in node.keywords:
            item = self.operand(module, keyword.value, depth) if lenient \
                else self.value(module, keyword.value, depth)
            if lenient and item is _MISSING and keyword.arg is not None:
                self.left_out = True
                item = ""
            if keyword.arg is None:
                if not isinstance(item, dict):
                    raise _Unresolved("** of no dict")
                found.update(item)
            else:
                found[keyword.arg] = item
        return found

    def call(self, module: Module, node: ast.Call, depth: int):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "dict" and isinstance(func, ast.Name):
            found: dict = {}
            for argument in node.args:
                merged = self.value(module, argument, depth)
                if not isinstance(merged, dict):
                    raise _Unresolved("dict() of no dict")
                found.update(merged)
            return found | self.keywords(module, node, depth)
        if name == "dedent" and len(node.args) == 1:
            text = self.value(module, node.args[0], depth)
            if isinstance(text, str):
                return textwrap.dedent(text)
        if name == "format" and isinstance(func, ast.Attribute):
            text = self.value(module, func.value, depth)
            if isinstance(text, str):
                arguments = [self.value(module, argument, depth) for argument in node.args]
                _format_padding_within(text)
                try:
                    return text.format(*arguments, **self.keywords(module, node, depth))
                except (IndexError, KeyError, ValueError) as exc:
                    raise _Unresolved(str(exc)) from None
        if name in _STR_METHODS and isinstance(func, ast.Attribute) and not node.keywords:
            text = self.operand(module, func.value, depth)  # else a function of that name
            arguments = [self.value(module, argument, depth) for argument in node.args] \
                if isinstance(text, str) else []
            if isinstance(text, str) and all(isinstance(argument, (str, int, tuple, list))
                                             for argument in arguments) \
                    and not (name == "replace" and arguments[:1] == [""]):
                # (An empty text replaced would be put between every two characters.)
                if name == "replace" and len(arguments) >= 2 and isinstance(arguments[0], str) \
                        and isinstance(arguments[1], str):
                    # What each makes, before it is made.
                    _within(len(text) + text.count(arguments[0])
                            * max(0, len(arguments[1]) - len(arguments[0])))
                elif name == "join" and arguments \
                        and isinstance(arguments[0], (str, list, tuple)):
                    _within(_texts_size(arguments[0]) + len(text) * len(arguments[0]))
                try:
                    return _bounded(getattr(text, name)(*arguments))
                except (TypeError, ValueError) as exc:
                    raise _Unresolved(str(exc)) from None
        if name == "len" and isinstance(func, ast.Name) and len(node.args) == 1 \
                and not node.keywords and self.unbound(module, "len"):
            item = self.value(module, node.args[0], depth)
            if isinstance(item, (str, tuple, list, dict)):
                return len(item)
        if isinstance(func, (ast.Name, ast.Attribute)):
            with contextlib.suppress(_Unresolved):
                callee = self.value(module, func, depth)
                if isinstance(callee, _Callable) and callee.obj.kind == FUNCTION \
                        and callee.obj.name.rpartition(".")[2] in \
                        callee.module.computing_functions:
                    return self.computed(module, node, callee, depth)
        raise _Unresolved(f"a call of {name or 'something'}")

    def unbound(self, module: Module, name: str) -> bool:
        """Whether a name is the builtin of that name where module reads it."""
        return not ((self.frame is not None and name in self.frame[1])
                    or name in module.assigned or name in module.imports
                    or name in module.objects)

    def computed(self, module: Module, node: ast.Call, callee: _Callable, depth: int):
        """What a computing function returns where node (read in module) calls it: its
        statements run over the arguments' values (run), nothing else of the package."""
        function = self.function_node(callee)
        args = function.args
        positional = [argument.arg for argument in [*args.posonlyargs, *args.args]]
        keyword_only = [argument.arg for argument in args.kwonlyargs]
        if len(node.args) > len(positional) \
                or any(isinstance(argument, ast.Starred) for argument in node.args):
            raise _Unresolved("a call of more arguments than the function's")
        given = {parameter: self.value(module, argument, depth)
                 for parameter, argument in zip(positional, node.args, strict=False)}
        for keyword in node.keywords:
            if keyword.arg is None or keyword.arg in given \
                    or keyword.arg not in positional + keyword_only:
                raise _Unresolved("a keyword argument the function does not take")
            given[keyword.arg] = self.value(module, keyword.value, depth)
        defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults,
                            strict=True))
        defaults.update((argument.arg, default) for argument, default
                        in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                        if default is not None)
        with self.scoped(None), self.framed(None):  # defaults read the function's module
            for parameter, default in defaults.items():
                if parameter not in given:
                    given[parameter] = self.value(callee.module, default, depth)
        if len(given) < len(positional) + len(keyword_only):
            raise _Unresolved("a call that leaves a parameter without a value")
        try:
            key: tuple | None = (callee.obj.name, tuple(sorted(given.items())))
            hash(key)
        except TypeError:
            key = None  # a dict argument: evaluated each time
        if key in self.returned:
            returned, left_out = self.returned[key]
            self.left_out = self.left_out or left_out
            return returned
        self.calls += 1
        if self.calls > _MAX_CALLS:
            raise _Unresolved("too many calls")
        names = {target.id for target in ast.walk(function)
                 if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)}
        saved, self.left_out = self.left_out, False
        try:
            with self.scoped(None), self.framed((given, names | given.keys())):
                returned = self.run(callee.module, function.body, depth)
            left_out = self.left_out
        finally:
            self.left_out = saved or self.left_out
        if returned is _FELL_THROUGH:
            raise _Unresolved("a function that returns nothing")
        if key is not None:
            self.returned[key] = (returned, left_out)
        return returned

    def function_node(self, callee: _Callable) -> ast.FunctionDef:
        """The ast of a computing function, parsed again from its module's lines (once)."""
        if callee.obj.name not in self.functions:
            first, last = callee.module.computing_functions[callee.obj.name.rpartition(".")[2]]
            try:
                body = ast.parse("\n".join(callee.module.lines[first - 1:last])).body
            except (SyntaxError, ValueError):  # a Cython module's lines (cython.skeleton)
                body = []
            self.functions[callee.obj.name] = body[0] if body else None
        function = self.functions[callee.obj.name]
        if not isinstance(function, ast.FunctionDef):
            raise _Unresolved("no function at its lines")
        return function

    def run(self, module: Module, statements: list, depth: int):
        """What a computing function's statements return; _FELL_THROUGH if they end without
        a return. A statement it does not follow (or a raise) leaves the call unresolved."""
        assert self.frame is not None
        for statement in statements:
            if isinstance(statement, (ast.Assert, ast.Pass)) or isinstance(
                    statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # an assert holds where the function returns (a docstring: nothing)
            if isinstance(statement, ast.Return) and statement.value is not None:
                return self.value(module, statement.value, depth)
            if isinstance(statement, ast.If):
                returned = self.run(module, statement.body if self.truth(
                    module, statement.test, depth) else statement.orelse, depth)
                if returned is not _FELL_THROUGH:
                    return returned
                continue
            target = statement.targets[0] if isinstance(statement, ast.Assign) \
                and len(statement.targets) == 1 else getattr(statement, "target", None)
            if isinstance(target, ast.Name) and getattr(statement, "value", None) is not None:
                value = statement.value
                if isinstance(statement, ast.AugAssign):
                    value = ast.BinOp(ast.Name(target.id, ast.Load()), statement.op, value)
                self.frame[0][target.id] = self.value(module, value, depth)
                continue
            raise _Unresolved(f"a {type(statement).__name__} statement")
        return _FELL_THROUGH

    def given(self, module: Module, doc, arguments: dict):
        """Return what a function's docstring node (a parameter, or an f-string of them:
        docstrings.doc_parameter) is where it is called with arguments ({parameter: the
        argument's node}, read in module)."""
        if isinstance(doc, ast.Name):
            return self.value(module, arguments[doc.id])
        return self.formatted(doc, lambda field: self.value(module, arguments[field.id]))

    def formatted(self, node: ast.JoinedStr, value_of: Callable) -> str:
        """Return an f-string's text, each field's expression's value given by value_of."""
        text = []
        for part in node.values:
            if not isinstance(part, ast.FormattedValue):
                text.append(str(part.value) if isinstance(part, ast.Constant) else "")
                continue
            item = value_of(part.value)
            # The f-string's conversion (!r, !s, !a, as format() gives it), then its spec.
            convert = _CONVERSIONS.get(part.conversion)
            item = item if convert is None else convert(item)
            spec = "".join(str(value.value) for value in part.format_spec.values
                           if isinstance(value, ast.Constant)) \
                if isinstance(part.format_spec, ast.JoinedStr) else ""
            _padding_within(spec)
            try:
                text.append(format(item, spec))
            except (TypeError, ValueError) as exc:
                raise _Unresolved(str(exc)) from None
        return "".join(text)

    def named(self, module: Module, name: str, depth: int):
        frame = self.frame
        if frame is not None and name in frame[1]:
            if name not in frame[0]:
                raise _Unresolved(f"{name} read before the function binds it")
            return frame[0][name]
        scope = self.scope
        if scope is not None and name in scope.assigned \
                and (id(scope.assigned), name) not in self.assigning:
            return self.bound(module, name, depth, scope.assigned, scope.items)
        if scope is not None:
            # A method the class body defines above the line read (pandas' `@doc(argmax,
            # op="min")` over argmin): the function the name is bound to there.
            member = module.objects.get(f"{scope.path}.{name}")
            if member is not None and member.kind == METHOD and member.end_line < scope.line:
                return _Callable(module, member)
        with self.scoped(None):  # the module's names read the module's
            if name in module.assigned and (id(module.assigned), name) not in self.assigning:
                value = self.bound(module, name, depth, module.assigned, module.items)
            else:
                obj = module.objects.get(name)
                if obj is not None and obj.kind in (CLASS, EXCEPTION, FUNCTION):
                    return _Callable(module, obj)
                value = self.imported(module, name, depth)
                if name in module.items:
                    value = self.with_entries(module, name, depth, value, module.items)
        return value

    def imported(self, module: Module, name: str, depth: int):
        """The value of a name the module imports; {} for one whose value the source does not
        give but that the module adds entries to (its entries alone are known)."""
        if name in module.imports:
            try:
                return self.dotted(module, module.imports[name], depth, absolute=True)
            except _Unresolved:
                if name not in module.items:
                    raise
        elif name not in module.items:
            raise _Unresolved(f"{name} is not bound in the source")
        return {}

    def with_entries(self, module: Module, name: str, depth: int, value, items: dict) -> dict:
        """value (a dict) with the entries a scope's `NAME["key"] = value` add to it.

        Such a statement binds no name: it adds to the dict NAME names where it is (pandas'
        frame.py, in its class body, adds `_shared_docs["items"]` to the dict it imports from
        pandas.core.shared_docs, whose "groupby" entry DataFrame.groupby's docstring reads).
        """
        if not isinstance(value, dict):
            raise _Unresolved(f"{name} is no dict")
        found = dict(value)
        for key, item in items[name].items():
            entry = self.value(module, item, depth)
            if not isinstance(key, DictUpdate):
                found[key] = entry
            elif isinstance(entry, dict):
                found.update(entry)  # `NAME.update(OTHER)`, where it is written
            else:
                raise _Unresolved(f"{name}.update() of no dict")
        return found

    def bound(self, module: Module, name: str, depth: int, assigned: dict, items: dict):
        """The value a scope's `NAME = value` and `NAME["key"] = value` give a name."""
        self.assigning.add((id(assigned), name))
        try:
            value = self.value(module, assigned[name], depth)
        finally:
            self.assigning.discard((id(assigned), name))
        return self.with_entries(module, name, depth, value, items) \
            if isinstance(value, dict) and name in items else value

    def dotted(self, module: Module, dotted: str, depth: int, absolute: bool = False):
        """The value of a dotted name: a module's variable or a function/class/method."""
        if not absolute and self.frame is not None and dotted.partition(".")[0] in self.frame[1]:
            raise _Unresolved("an attribute of a computing function's local name")
        with self.scoped(None), self.framed(None):
            return self._dotted(module, dotted, depth, absolute)

    def _dotted(self, module: Module, dotted: str, depth: int, absolute: bool):
        head, _, rest = dotted.partition(".")
        if not absolute and head in module.imports:
            return self.dotted(module, ".".join(filter(None, (module.imports[head], rest))),
                               depth, absolute=True)
        full = dotted if absolute else f"{module.name}.{dotted}"
        owner_name, _, last = full.rpartition(".")
        if last == "__doc__":
            # A function's or class's __doc__ (statsmodels' `@Appender(DiscreteModel.fit.
            # __doc__)`): its docstring as its own decorators leave it.
            item = self._dotted(module, owner_name, depth + 1, absolute=True)
            if not isinstance(item, _Callable) or depth > _MAX_DEPTH:
                raise _Unresolved(f"{dotted}: no function's or class's __doc__")
            text = self.assembled(item.module, item.obj)
            if not text:
                raise _Unresolved(f"{dotted} is None")
            return text
        owner = self.package.modules.get(owner_name)
        if owner is not None and (last in owner.assigned or last in owner.items):
            return self.named(owner, last, depth)
        if owner is None and owner_name:
            attribute = self.class_attribute(owner_name, last, depth)
            if attribute is not _MISSING:
                return attribute
        found = self.package.resolve(full)
        if found is not None and found[1].kind in (CLASS, EXCEPTION, FUNCTION, METHOD):
            return _Callable(*found)
        raise _Unresolved(f"{dotted} is not defined in the package")

    # -- decorators -----------------------------------------------------------------------

    def class_attribute(self, owner_name: str, name: str, depth: int):
        """The value of a class's `NAME = value` (pandas' `DatetimeArray._field_ops`), read in
        its class body, or its nearest base's that binds it; _MISSING where no class binds it
        (the class's own member, a method, is another matter)."""
        owner = self.package.resolve(owner_name)
        if owner is None or owner[1].kind not in (CLASS, EXCEPTION):
            return _MISSING
        for module, cls in [owner, *((m, base) for m, base, _ in
                                     self.package.base_depths(*owner))]:
            scope = self.class_scope(module, cls.name[len(module.name) + 1:], _AFTER_BODY)
            if scope is not None and name in scope.assigned:
                with self.scoped(scope):
                    return self.named(module, name, depth)
        return _MISSING

    def delegation(self, module: Module, obj: DocObject, call: ast.Call) -> tuple:
        """Return (the member names a DELEGATING_DECORATORS call on a class lists, the dotted
        name of the class it takes them from, whether it replaces a name set before it), read
        where the decorator is (raises _Unresolved)."""
        # inherit_names(names, delegate, ...) sets each name; delegate_names(delegate,
        # accessors, typ, overwrite=False) only those the class has not got yet.
        inherits = base_name(call) == "inherit_names"
        order = ("names", "delegate") if inherits else ("delegate", "names", "typ", "overwrite")
        written: dict = dict(zip(order, call.args, strict=False))
        for keyword in call.keywords:
            if keyword.arg in ("names", "accessors", "delegate", "overwrite"):
                written["names" if keyword.arg == "accessors" else keyword.arg] = keyword.value
        if "names" not in written or "delegate" not in written:
            raise _Unresolved("a delegation of no names or class")
        with self.scoped(self.scope_of(module, obj)):
            names = self.value(module, written["names"])
            delegate = self.value(module, written["delegate"])
            replaces = inherits or "overwrite" in written and self.truth(
                module, written["overwrite"], 0)
        if not isinstance(delegate, _Callable) or delegate.obj.kind not in (CLASS, EXCEPTION) \
                or not isinstance(names, (tuple, list)) \
                or not all(isinstance(name, str) and name.isidentifier() for name in names):
            raise _Unresolved("a delegation this reader does not follow")
        return names, delegate.obj.name, replaces

    def scope_of(self, module: Module, obj: DocObject) -> _ClassScope | None:
        """The class scope an object's decorators are read in: its class body's, if any."""
        return self.class_scope(module, obj.name[len(module.name) + 1:].rpartition(".")[0],
                                obj.start_line)

    @staticmethod
    def class_scope(module: Module, path: str, line: int) -> _ClassScope | None:
        """The scope of the class at path (a module's path below it; "": none) where its body
        is read at line; None for the module's."""
        if not path or module.objects.get(path) is None:
            return None
        assigned, items = module.class_scopes.get(path, ({}, {}))
        return _ClassScope(assigned, items, path, line)

    def doc_components(self, module: Module, obj: DocObject, depth: int) -> list:
        """Return an object's docstring components as pandas' @doc keeps them: (text,
        formatted) pairs, its own docstring first, then what each @doc argument gives."""
        with self.scoped(self.scope_of(module, obj)):
            return self._doc_components(module, obj, depth)

    def _doc_components(self, module: Module, obj: DocObject, depth: int) -> list:
        if obj.name in self.components:
            if self.components[obj.name] is None:
                raise _Unresolved("a cycle")
            return self.components[obj.name]
        self.components[obj.name] = None
        found: list = []
        own = self._before_doc(module, obj)
        decorators = [d for d in obj.templates if base_name(d) == "doc"]
        if not decorators:
            found = [(textwrap.dedent(own or ""), False)] if own else []
        else:
            if own:
                found.append((own, True))
            for argument in decorators[0].args:
                item = self.value(module, argument, depth)
                if isinstance(item, _Callable):
                    found.extend(self.doc_components(item.module, item.obj, depth + 1))
                elif isinstance(item, str):
                    found.append((item, True))
                elif item is not None:
                    raise _Unresolved("a @doc argument that is no docstring")
        self.components[obj.name] = found
        return found

    def assembled(self, module: Module, obj: DocObject) -> str:
        """Return an object's docstring as its decorators leave it (raises _Unresolved), their
        arguments read in its class body's scope first, as Python reads them; once per object,
        from the source's docstring (resolve_templates replaces it with what this returns)."""
        if obj.name not in self.docs:
            saved, self.left_out = self.left_out, False
            with self.scoped(self.scope_of(module, obj)):
                self.docs[obj.name] = self._assembled(module, obj)
            if self.left_out:
                self.in_part.add(obj.name)
            self.left_out = saved
        self.left_out = self.left_out or obj.name in self.in_part
        return self.docs[obj.name]

    def _assembled(self, module: Module, obj: DocObject) -> str:
        text = obj.docstring or ""
        for decorator in obj.templates:  # innermost first
            if base_name(decorator) != "doc":
                text = self._applied(module, decorator, text)
                continue
            params = self.keywords(module, decorator, 0, lenient=True)
            parts = []
            for component, formatted in self.doc_components(module, obj, 0):
                try:
                    parts.append(component.format(**params) if formatted and params
                                 else component)
                except (IndexError, KeyError, ValueError) as exc:
                    raise _Unresolved(str(exc)) from None
            text = "".join(parts)
        return text

    def _before_doc(self, module: Module, obj: DocObject) -> str:
        """Return an object's docstring as the decorators inside its first @doc leave it: the
        decorated function's __doc__ that pandas' doc takes as its own component (read_excel's
        `@doc(...)` above `@Appender(_read_excel_doc)`)."""
        text = obj.docstring or ""
        if obj.assembled:
            # resolve_templates has replaced it with what all its decorators leave (one with
            # a @doc of its own had its components kept while assembled: _doc_components).
            return text
        for decorator in obj.templates:  # innermost first
            if base_name(decorator) == "doc":
                break
            text = self._applied(module, decorator, text)
        return text

    def _applied(self, module: Module, decorator: ast.Call, text: str) -> str:
        """Return a docstring as an Appender or Substitution decorator leaves it."""
        name = base_name(decorator)
        if name == "Appender":
            addendum = self.value(module, decorator.args[0], 0) if decorator.args else ""
            keywords = self.keywords(module, decorator, 0)
            indents = keywords.get("indents", 0)
            if not isinstance(addendum, str) or set(keywords) - {"join", "indents"} \
                    or not isinstance(indents, int):
                raise _Unresolved("an Appender this reader does not follow")
            if indents > 0:
                # pandas.util._decorators.indent: each line after the first indented by
                # four spaces per indent (DataFrame.merge's `@Appender(_merge_doc,
                # indents=2)`).
                addendum = ("\n" + "    " * indents).join(addendum.split("\n"))
            join = str(keywords.get("join", ""))
            if text and addendum and not join and not text[-1].isspace() \
                    and not addendum[0].isspace():
                # A docstring read here is cleaned of the newline before its closing
                # quotes (PEP 257's), which Python's __doc__ keeps: not glued to the next.
                join = "\n"
            # Python dedents the two joined, as written in one class body: the same
            # margin; the docstring read here has lost its own already.
            text = textwrap.dedent(join.join([text, textwrap.dedent(addendum)]))
        elif name == "Substitution":
            values: tuple | dict = (
                tuple(self.value(module, a, 0) for a in decorator.args) if decorator.args
                else self.keywords(module, decorator, 0))
            try:
                text = text % values if text else text
            except (TypeError, ValueError, KeyError) as exc:
                raise _Unresolved(str(exc)) from None
        return text


def resolve_templates(package: PackageSource) -> tuple:
    """Fill in each docstring the package assembles at import time from its decorators, or
    from the argument a function that sets it is called with (`isalnum = _map_and_wrap(
    "isalnum", docstring=...)`: a function, a method in a class body), where the source alone
    gives it; return (how many were, how many of those with a piece the source does not give
    left out, how many were left as written)."""
    templates = _Templates(package)
    resolved = in_part = left = 0
    for module in package.modules.values():
        for path, obj in list(module.objects.items()):
            doc, arguments, routine = docstrings.docstring_argument(package, module, obj) \
                or (None, {}, False)
            if not obj.templates and doc is None and obj.doc_expression is None:
                continue
            templates.left_out = False
            try:
                if obj.doc_expression is not None:
                    # A body's `__doc__ = EXPR`: EXPR as the body evaluates it, a class's
                    # names read in its own scope first; the module's `NAME.__doc__ = EXPR`
                    # after it, in the module's.
                    line = obj.doc_expression.lineno
                    inside = obj.start_line <= line <= obj.end_line
                    with templates.scoped(templates.class_scope(module, path, line)
                                          if inside else None):
                        text = templates.value(module, obj.doc_expression)
                    if not isinstance(text, str):
                        raise _Unresolved("a docstring that is no string")
                elif doc is not None:
                    with templates.scoped(templates.scope_of(module, obj)):
                        text = templates.given(module, doc, arguments)
                    if not isinstance(text, str):
                        raise _Unresolved("a docstring that is no string")
                else:
                    text = templates.assembled(module, obj)
            except (_Unresolved, RecursionError):
                left += 1
                continue
            resolved += 1
            in_part += templates.left_out
            if routine:
                obj = docstrings.made_function(obj)
            module.objects[path] = dataclasses.replace(
                obj, docstring=inspect.cleandoc(text) if text.strip() else obj.docstring,
                assembled=bool(text.strip()))
    if resolved:
        package.changed()
    return resolved, in_part, left


def delegated_members(package: PackageSource) -> tuple:
    """Record in package.delegated the members each class's DELEGATING_DECORATORS set on it
    where the source gives the names they list and the class they take them from (pandas'
    `DatetimeProperties`, whose `year` is DatetimeArray's: `Series.dt.year`); return (how many
    names were, how many decorators were left unread)."""
    templates = _Templates(package)
    found = left = 0
    for module in package.modules.values():
        for obj in list(module.objects.values()):
            for call in reversed(obj.delegations):  # innermost first, as Python applies them
                try:
                    names, delegate, replaces = templates.delegation(module, obj, call)
                except (_Unresolved, RecursionError):
                    left += 1
                    continue
                members = package.delegated.setdefault(obj.name, {})
                for name in names:
                    if replaces or name not in members:
                        members[name] = delegate
                found += len(names)
    if found:
        package.changed()
    return found, left


def mapping_entries(package: PackageSource, dotted: str) -> dict | None:
    """Return {key: (Module, DocObject)} of the module-level dict a dotted name is bound to
    (`FILTERS = {"default": do_default, ...}`, followed through imports: jinja2's
    `defaults.DEFAULT_FILTERS`), each string key whose value is a function or class the package
    defines; None if the name is bound to no dict literal. An entry the source alone does not
    give (a builtin, another package's function) is left out."""
    templates = _Templates(package)
    owner_name, _, name = dotted.rpartition(".")
    owner = package.modules.get(owner_name)
    for _ in range(_MAX_DEPTH):
        if owner is None or name not in owner.imports or name in owner.assigned:
            break
        owner_name, _, name = owner.imports[name].rpartition(".")
        owner = package.modules.get(owner_name)
    if owner is None:
        return None
    node = owner.assigned.get(name)
    if not isinstance(node, ast.Dict):
        return None
    written = [(key.value, item) for key, item in zip(node.keys, node.values, strict=True)
               if isinstance(key, ast.Constant) and isinstance(key.value, str)]
    found = {}
    for key, item in [*written, *owner.items.get(name, {}).items()]:
        if isinstance(key, DictUpdate):
            continue  # another dict's entries: their keys are not written here
        try:
            value = templates.value(owner, item)
        except (_Unresolved, RecursionError):
            continue
        if isinstance(value, _Callable):
            found[key] = (value.module, value.obj)
    return found
