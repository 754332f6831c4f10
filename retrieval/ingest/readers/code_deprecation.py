"""A deprecation a definition's code states, read with `ast` (nothing is imported or run).

A release often deprecates a function only in code: `warnings.warn("query_bulk is deprecated,
use query", FutureWarning)` as the first thing its body does, a helper of the package's own
(`sympy_deprecation_warning(...)`, matplotlib's `_api.warn_deprecated("3.6", ...)`), or a
decorator (`@deprecated("1.2")`, `@_api.deprecated("3.6")`, scikit-learn's `@deprecated(msg)`),
while its docstring says nothing. Each becomes the object's `deprecated` version note
(core/notes.py), as a `.. deprecated::` directive in its docstring would, so a unit, a lookup
and a diff between releases see it. Only what deprecates the object itself counts: a warning
at the top level of its body (a class's: of its `__init__`), not one under an `if` (a
deprecated argument or value: `if criterion == "mse": warnings.warn(...)`), and a decorator
named `deprecated` (not pandas' `deprecate_kwarg`, which deprecates an argument).
"""

import ast
import re

from ...core.notes import VersionNote

# The warning categories that say a deprecation: Python's own, a package's own named so
# (SymPyDeprecationWarning, MatplotlibDeprecationWarning), and FutureWarning, which the Python
# docs give to "deprecated features when those warnings are intended for end users".
_CATEGORY = re.compile(r"^(?:\w*Deprecat\w*Warning|FutureWarning)$")
# A package's own helper that warns of a deprecation: its name says both words
# (`warn_deprecated`, `sympy_deprecation_warning`), and no argument's (`warn_deprecated_kwarg`).
_HELPER = re.compile(r"(?=.*warn)(?=.*deprecat)(?!.*(?:arg|param|kw|alias|attr))", re.IGNORECASE)
# A version as a decorator or helper gives it first (`@_api.deprecated("3.6")`).
_VERSION = re.compile(r"^v?\d+(?:\.\w+)+$")
# Keyword arguments that name the version deprecated in.
_VERSION_KEYWORDS = ("since", "version", "deprecated_since_version", "deprecated_in")
_SPACE = re.compile(r"\s+")


def code_deprecation(node) -> VersionNote | None:
    """Return the deprecation a function's or class's code states (a class: its decorators or
    its `__init__`'s body), or None."""
    for decorator in node.decorator_list:
        if base_name(decorator) == "deprecated":
            return _note(decorator if isinstance(decorator, ast.Call) else None)
    body = node.body
    if isinstance(node, ast.ClassDef):
        init = next((s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and s.name == "__init__"), None)
        body = init.body if init is not None else []
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            warning = _deprecation_warned(statement.value)
            if warning is not None:
                return _note(warning)
    return None


def base_name(node) -> str:
    """Return the last part of the name a decorator, call or base names (`_api.deprecated(...)`
    -> deprecated), or "" for another expression."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _deprecation_warned(call: ast.Call) -> ast.Call | None:
    """Return the call that says a deprecation a statement's call warns of, or None:
    `warn(message, category)` of a deprecation category, `warn(Category(message))` and
    `Category(...).warn()` (sympy before 1.10) the category's call, or a helper whose name says
    it."""
    name = base_name(call)
    if name == "warn":
        made = call.func.value if isinstance(call.func, ast.Attribute) else None
        if not isinstance(made, ast.Call) and call.args:
            made = call.args[0]
        if isinstance(made, ast.Call) and _CATEGORY.match(base_name(made)):
            return made
        category = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "category"), None)
        return call if category is not None and _CATEGORY.match(base_name(category)) else None
    return call if _HELPER.match(name) else None


def _note(call: ast.Call | None) -> VersionNote:
    """Return the note of a deprecating call or decorator: its version (a first argument that
    is one, or a keyword naming it) and its message (its first string argument that is not the
    version, an f-string's literal parts kept and its fields as written)."""
    if call is None:
        return VersionNote("deprecated", "", "")
    texts = [_text(arg) for arg in call.args]
    texts += [_text(k.value) for k in call.keywords
              if k.arg in ("message", "msg", "extra", "feature")]
    version = next((text for text in texts if text and _VERSION.match(text)), "")
    version = version or next((_text(k.value) for k in call.keywords
                               if k.arg in _VERSION_KEYWORDS and _text(k.value)), "")
    message = next((text for text in texts if text and text != version), "")
    return VersionNote("deprecated", version.lstrip("v"), _SPACE.sub(" ", message).strip())


def _text(node) -> str:
    """Return a string literal's value (an f-string's parts, fields as written), else ""."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(part) if isinstance(part, ast.Constant) else
                       "{" + ast.unparse(part.value) + "}" for part in node.values
                       if isinstance(part, (ast.Constant, ast.FormattedValue)))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # "a " + "b"
        return _text(node.left) + _text(node.right)
    if isinstance(node, ast.Call) and base_name(node) == "dedent" and node.args:
        return _text(node.args[0])
    return ""
