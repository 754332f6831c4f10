"""PEP 508 environment markers, evaluated for a target interpreter: the standard library alone.

`python_version >= "3.8" and (sys_platform == "linux" or extra == "socks")`: a marker is an `or`
of `and`s of comparisons, parenthesised at will; each compares a variable of the target's
environment (python_version, python_full_version, sys_platform, platform_system,
platform_machine, os_name, implementation_name, extra, and the rest of PEP 508's list) with a
quoted string, or two of them. The version operators (`<`, `<=`, `==`, `!=`, `>=`, `>`, `~=`,
`===`) compare as PEP 440 versions where both sides are versions (`==` and `!=` take a `.*`
prefix), else as strings; `in` and `not in` as Python's substring test. `extra` compares PEP
685-normalised names. The version order is index_fetch's (held to packaging's by its tests).
"""

import os
import platform
import re
import sys
from collections.abc import Mapping

from ..core.names import normal_version, normalized_name, version_key


class MarkerError(ValueError):
    """A marker that is not PEP 508's grammar, or names a variable it does not define."""


VARIABLES = ("python_version", "python_full_version", "os_name", "sys_platform",
             "platform_release", "platform_system", "platform_version", "platform_machine",
             "platform_python_implementation", "implementation_name",
             "implementation_version", "extra")
# The spellings of PEP 345 and setuptools' that old metadata still carries, as packaging reads them.
_ALIASES = {"os.name": "os_name", "sys.platform": "sys_platform",
            "platform.version": "platform_version", "platform.machine": "platform_machine",
            "platform.python_implementation": "platform_python_implementation",
            "python_implementation": "platform_python_implementation"}
# PEP 751's sets, which a lock file's markers test with `in` and `not in`.
_SETS = ("extras", "dependency_groups")
_TOKEN = re.compile(r"""\s*(?:
    (?P<string>'[^']*'|"[^"]*")
  | (?P<op>===|==|!=|<=|>=|~=|<|>)
  | (?P<paren>[()])
  | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
)""", re.VERBOSE)


def target_environment(python: str | None = None, extras=(), groups=()) -> dict:
    """Return the marker variables of this interpreter, or of Python `python` (X.Y[.Z]) here.

    extras: the extras asked for; a marker's `extra == "x"` holds for any of them. groups: the
    dependency groups asked for (PEP 751's `dependency_groups`; pins.py reads them too).
    """
    implementation = sys.implementation
    info = implementation.version
    full = f"{info.major}.{info.minor}.{info.micro}"
    if info.releaselevel != "final":
        full += info.releaselevel[0] + str(info.serial)
    environment: dict = {
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "python_full_version": platform.python_version(),
        "os_name": os.name, "sys_platform": sys.platform,
        "platform_release": platform.release(), "platform_system": platform.system(),
        "platform_version": platform.version(), "platform_machine": platform.machine(),
        "platform_python_implementation": platform.python_implementation(),
        "implementation_name": implementation.name, "implementation_version": full,
    }
    if python:
        if not re.fullmatch(r"[0-9]+\.[0-9]+(?:\.[0-9]+)?", python):
            raise MarkerError(f"--python {python}: give X.Y or X.Y.Z (3.11, 3.12.4)")
        parts = python.split(".")
        environment["python_version"] = ".".join(parts[:2])
        environment["python_full_version"] = python if len(parts) == 3 else python + ".0"
        environment["implementation_version"] = environment["python_full_version"]
    # PEP 685 normalises an extra's name as PEP 503 does a distribution's.
    environment["extras"] = frozenset(normalized_name(extra) for extra in extras)
    # PEP 735 normalises a group's name the same way.
    environment["dependency_groups"] = frozenset(normalized_name(group) for group in groups)
    return environment


def _tokens(text: str) -> list:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise MarkerError(f"marker {text!r}: cannot read it at {text[position:].strip()!r}")
        kind = match.lastgroup or ""
        value = match.group(kind)
        tokens.append((kind, value))
        position = match.end()
    return tokens


class _Parser:
    """marker := and ('or' and)*; and := atom ('and' atom)*; atom := '(' marker ')' | cmp."""

    def __init__(self, text: str, environment: Mapping):
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.environment = environment

    def fail(self, what: str):
        raise MarkerError(f"marker {self.text!r}: {what}")

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else (None, None)

    def take(self):
        token = self.peek()
        if token[0] is None:
            self.fail("ends too soon")
        self.at += 1
        return token

    def marker(self) -> bool:
        value = self.conjunction()
        while self.peek() == ("word", "or"):
            self.at += 1
            right = self.conjunction()  # parsed even when the answer is known
            value = value or right
        return value

    def conjunction(self) -> bool:
        value = self.atom()
        while self.peek() == ("word", "and"):
            self.at += 1
            right = self.atom()
            value = value and right
        return value

    def atom(self) -> bool:
        if self.peek() == ("paren", "("):
            self.at += 1
            value = self.marker()
            if self.take() != ("paren", ")"):
                self.fail("a '(' is not closed")
            return value
        left_is_extra, left = self.operand()
        kind, op = self.take()
        if kind == "word" and op == "not":
            if self.take() != ("word", "in"):
                self.fail("'not' must be followed by 'in'")
            op = "not in"
        elif not (kind == "op" or (kind == "word" and op == "in")):
            self.fail(f"{op!r} is not a comparison")
        right_is_extra, right = self.operand()
        if left_is_extra or right_is_extra:
            return _compare_extra(left, op, right, self.environment["extras"])
        return compare(left, op, right)

    def operand(self) -> tuple:
        """Return (whether it is `extra`, its value)."""
        kind, value = self.take()
        if kind == "string":
            return False, value[1:-1]
        if kind == "word":
            name = _ALIASES.get(value, value)
            if name == "extra":
                return True, None
            if name in VARIABLES:
                return False, self.environment[name]
            if name in _SETS:  # PEP 751's lock markers: `"cli" in extras`
                return False, self.environment.get(name, frozenset())
        self.fail(f"{value!r} is not a marker variable or a quoted string")
        raise AssertionError  # fail raises


def _compare_extra(left, op: str, right, extras) -> bool:
    """`extra == "name"` (either way round): whether name is an extra asked for."""
    name = normalized_name(right if left is None else left or "")
    if op == "==":
        return name in extras
    if op == "!=":
        return name not in extras
    raise MarkerError(f"extra compared with {op!r}: only == and != compare extras")


def _release(version: str) -> list:
    match = re.match(r"(?:[0-9]+!)?([0-9]+(?:\.[0-9]+)*)", version)
    return [int(part) for part in match.group(1).split(".")] if match else []


def compare(left, op: str, right) -> bool:
    """Evaluate `left op right`: PEP 440 where both are versions, else as Python's strings."""
    if isinstance(right, frozenset):
        right = {normalized_name(name) for name in right}
        left = normalized_name(left)
        if op not in ("in", "not in"):
            raise MarkerError(f"{op} compares strings, not a set: use in or not in")
    if op == "in":
        return left in right
    if op == "not in":
        return left not in right
    if op == "===":
        return left == right
    wildcard = op in ("==", "!=") and right.endswith(".*")
    if wildcard and normal_version(left) is not None \
            and normal_version(right[:-2]) is not None:
        prefix = _release(normal_version(right[:-2]) or "")
        release = _release(normal_version(left) or "")
        release += [0] * max(0, len(prefix) - len(release))
        return (release[:len(prefix)] == prefix) == (op == "==")
    if normal_version(left) is None or normal_version(right) is None:
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        if op in ("<", "<=", ">", ">="):
            return {"<": left < right, "<=": left <= right, ">": left > right,
                    ">=": left >= right}[op]
        raise MarkerError(f"{left!r} {op} {right!r}: {op} compares versions only")
    ours, theirs = version_key(left), version_key(right)
    if op == "~=":
        prefix = _release(normal_version(right) or "")
        if len(prefix) < 2:
            raise MarkerError(f"~={right}: a compatible release needs two parts at least")
        release = _release(normal_version(left) or "")
        return ours >= theirs and release[:len(prefix) - 1] == prefix[:-1]
    return {"==": ours == theirs, "!=": ours != theirs, "<": ours < theirs,
            "<=": ours <= theirs, ">": ours > theirs, ">=": ours >= theirs}[op]


def evaluate(marker: str, environment: Mapping) -> bool:
    """Return whether a PEP 508 marker holds in environment (target_environment's)."""
    parser = _Parser(marker, environment)
    if not parser.tokens:
        return True
    value = parser.marker()
    if parser.at != len(parser.tokens):
        parser.fail(f"{parser.tokens[parser.at][1]!r} is left over")
    return value
