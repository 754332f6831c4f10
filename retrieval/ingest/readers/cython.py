"""A Cython module's Python face as Python source, line for line (a `.pyx` file).

Autodoc documents a compiled Cython module by importing it: its `def`/`cpdef` functions,
`class`/`cdef class` types and their `def` methods, each with the docstring written under it
(pandas' `Timestamp` in pandas/_libs/tslibs/timestamps.pyx). What is C only (`cdef`
functions, `cimport`, C declarations) is not in the module. skeleton() keeps those Python
definitions, their decorators and docstrings, the module's imports and simple statements that
parse as Python, each on the line it stands on, and blanks the rest, so the docstring reader
parses it with `ast` and quotes the `.pyx` file's own lines.
"""

import ast
import io
import re
import tokenize

# A definition's header: `def`/`cpdef` (maybe typed: `cpdef int64_t name(`) or `class`/
# `cdef class` (maybe `cdef public class`), its name right before its parameters or bases.
_DEF = re.compile(r"(async[ \t]+)?(?:cp)?def\b(.*?)(\w+)[ \t]*\(")
_CLASS = re.compile(r"(?:cdef[ \t]+(?:public[ \t]+|api[ \t]+)*)?class[ \t]+(\w+)")
# An attribute a Cython class gives Python: `cdef readonly int64_t n`, `cdef public object a, b`,
# or each line of a `cdef readonly:` block.
_DECLARED = re.compile(r"cdef[ \t]+(?:readonly|public)\b[ \t]*")
# A C declaration's names: `object weekmask, holidays`, `ndarray[int64_t] values`, `int *p`.
_DECLARED_NAME = re.compile(r"[*&]*(\w+)(?:\[[^\]]*\])?\s*$")
# An instance attribute __init__ sets (read as the docstring reader reads a Python __init__).
_SELF_ATTRIBUTE = re.compile(r"self\.\w+\s*(?::[^=]*)?=[^=]")
# How deep a bracket takes (or leaves) what follows it.
_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
# A parameter's name: the last word before its default (`int n=1`, `ndarray[int64_t] values`).
_PARAMETER = re.compile(r"(\*{0,2})\s*(\w+)\s*(?:not\s+None\s*)?$")


def _logical_lines(text: str) -> list:
    """Return (first row, indent, source, whether it opens a block: ends in `:`) of each
    logical line (0-based rows)."""
    found, start, previous = [], None, None
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                          tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if start is None:
            start = token.start
        if token.type == tokenize.NEWLINE:
            found.append((start[0] - 1, token.start[0] - 1, start[1],
                          previous is not None and previous.string == ":"))
            start = None
        previous = token
    lines = text.split("\n")
    return [(first, indent, "\n".join(lines[first:last + 1])[indent:], compound)
            for first, last, indent, compound in found]


def _closing(text: str, opening: int) -> int | None:
    """Return the offset of the bracket closing the one at opening, or None."""
    depth = 0
    for at in range(opening, len(text)):
        depth += _BRACKETS.get(text[at], 0)
        if depth == 0:
            return at
    return None


def _split(parameters: str) -> list:
    """Split a parameter list at its top-level commas."""
    parts, depth, current = [], 0, ""
    for char in parameters:
        depth += _BRACKETS.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current] if current.strip() else parts


def _parameter(text: str) -> str | None:
    """Return one Cython parameter as Python (`int n=1` -> `n=1`), or None."""
    head, equals, default = text.partition("=")
    head = head.partition(":")[0]  # `how: str`, annotated as in Python
    if head.strip() in ("*", "/"):
        return head.strip()
    found = _PARAMETER.search(head.strip())
    if found is None:
        return None
    return f"{found.group(1)}{found.group(2)}" + (f"={default.strip()}" if equals else "")


def _definition(source: str) -> str | None:
    """Return a Python-visible definition's header as Python, or None (C only, or unread)."""
    found = _DEF.match(source)
    if found and not source.startswith("cdef"):
        opening = found.end() - 1
        closing = _closing(source, opening)
        if closing is None:
            return None
        parameters = [_parameter(part) for part in _split(source[opening + 1:closing])]
        named = [parameter for parameter in parameters if parameter is not None]
        if len(named) < len(parameters):
            return None
        header = f"{found.group(1) or ''}def {found.group(3)}({', '.join(named)}):"
    elif found := _CLASS.match(source):
        rest = source[found.end():].lstrip()
        closing = _closing(rest, 0) if rest.startswith("(") else None
        bases = rest[:closing + 1] if closing is not None else ""
        header = f"class {found.group(1)}{bases}:"
    else:
        return None
    return header if _parses(header + " ...") else None


def _is_string(source: str) -> bool:
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return len(body) == 1 and isinstance(body[0], ast.Expr) \
        and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def skeleton(text: str) -> str:
    """Return a Cython module's Python definitions, docstrings, imports and plain statements,
    each on its own line, every other line blank (raises SyntaxError if it is not tokenized)."""
    try:
        logical = _logical_lines(text)
    except (tokenize.TokenError, IndentationError) as exc:
        raise SyntaxError(str(exc)) from None
    out = [""] * (text.count("\n") + 1)
    # Open blocks, innermost last: [indent, kind ("class", "def", "declared": a `cdef
    # readonly:` block, or "skip": a block whose body is blanked), header row, whether its body
    # kept a statement, whether it has one at all, the def's name, the row last kept, the
    # indent of its body's statements, a `__get__`'s class access read so far
    # (_class_access)].
    stack: list = []
    pending: list = []  # decorators waiting for the definition they decorate
    for first, indent, source, compound in logical:
        while stack and stack[-1][0] >= indent:
            _close(stack.pop(), out)
        if stack and stack[-1][1] == "declared":
            _declare(out, first, stack[-1][0], source, stack[-2])
            continue
        if stack and stack[-1][1] != "class":
            inside = stack[-1]
            string = not compound and _is_string(source)
            if inside[1] == "def" and not inside[4] and string:
                _keep(out, first, indent, source)  # the function's docstring
                inside[3] = True
            elif inside[1] == "def" and inside[5] == "__get__" and len(stack) >= 2 \
                    and stack[-2][1] == "class" and inside[8] != "done":
                _class_access(inside, out, first, indent, source, compound)
            elif inside[1] == "def" and inside[5] == "__init__" and len(stack) >= 2 \
                    and stack[-2][1] == "class" and inside[7] in (None, indent) and (
                        _SELF_ATTRIBUTE.match(source) and _parses(source)
                        or string and inside[6] == first - 1):
                # An instance attribute and the string documenting it.
                _keep(out, first, indent, source)
                inside[3], inside[6] = True, first + source.count("\n")
            inside[4] = True
            inside[7] = indent if inside[7] is None else inside[7]
            continue
        declared = _DECLARED.match(source)
        if declared and stack and stack[-1][1] == "class":
            if compound:
                stack.append([indent, "declared", first, True, True, None, None, None, None])
            else:
                _declare(out, first, indent, source[declared.end():], stack[-1])
            continue
        if source.startswith("@"):
            pending.append((first, indent, source))
            continue
        header = _definition(source) if compound else None
        decorators, pending = pending, []
        if header is not None:
            for decorator in decorators:
                if _parses(decorator[2] + "\ndef f(): ..."):
                    _keep(out, *decorator)
            out[first] = " " * indent + header
            _kept(stack)
            stack.append([indent, "class" if header.startswith("class") else "def", first,
                          False, False, header.partition("(")[0].split()[-1], None, None,
                          None])
        elif compound:
            stack.append([indent, "skip", first, True, True, None, None, None, None])
        elif _parses(source):
            _keep(out, first, indent, source)
            _kept(stack)
    while stack:
        _close(stack.pop(), out)
    return "\n".join(out)


# What a descriptor's `__get__` begins with where it is read on a class: `if obj is None:`.
_ON_CLASS = re.compile(r"if[ \t]+\w+[ \t]+is[ \t]+None[ \t]*:")


def _class_access(block: list, out: list, row: int, indent: int, source: str,
                  compound: bool):
    """Keep the first statement of a class's `__get__` (block) where it is `if obj is None:`
    over a `return`, which tells what the descriptor is read on a class (the docstring
    reader's class_access): its header waits in block[8] for the `return` below it; any other
    statement ends the look ("done")."""
    waiting = block[8]
    if waiting is None and compound and _ON_CLASS.fullmatch(source.strip()):
        block[8] = (row, indent, source)
        return
    if waiting is not None and not compound and indent > waiting[1] \
            and source.startswith("return") and _parses(f"{waiting[2]}\n    {source}"):
        _keep(out, *waiting)
        _keep(out, row, indent, source)
        block[3] = True
    block[8] = "done"


def _declare(out: list, row: int, indent: int, declaration: str, owner: list):
    """Write the attributes a C declaration in a class body declares (`n: object`), at the
    class body's indent, on the declaration's row."""
    names = []
    for part in _split(declaration.partition("#")[0]):
        found = _DECLARED_NAME.search(part.partition("=")[0].strip())
        if found is not None:
            names.append(f"{found.group(1)}: object")
    if names and _parses("; ".join(names)):
        out[row] = " " * indent + "; ".join(names)
        owner[3] = True


def _kept(stack: list):
    if stack:
        stack[-1][3] = True


def _keep(out: list, first: int, indent: int, source: str):
    for row, line in enumerate(source.split("\n"), first):
        out[row] = (" " * indent + line) if row == first else line


def _close(block: list, out: list):
    """End a block: a definition whose body kept nothing gets `...` after its header."""
    if not block[3]:
        out[block[2]] += " ..."
