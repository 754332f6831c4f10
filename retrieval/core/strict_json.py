"""Strict JSON decoding: one meaning per document, or a refusal that says why.

The stdlib parser is lenient where a verifiable service must not be: it accepts duplicate keys (last
wins), NaN and Infinity, lone surrogate escapes, and numbers that overflow to infinity. Each of those
would let two different byte strings mean "the same" request, or one request mean two things.
"""

import json
import math

MAX_DEPTH = 32


class StrictJSONError(ValueError):
    """The bytes are not one strict JSON document."""


def _reject_constant(name):
    raise StrictJSONError(f"non-finite number {name} is not JSON")


def _finite_float(text):
    value = float(text)
    if math.isinf(value):
        raise StrictJSONError(f"number {text[:32]} cannot be represented")
    return value


class NegativeZero(int):
    """The integer written `-0`: equal to 0, but not how an integer is written.

    It decodes apart from 0 so that a validator can refuse it; accepted as 0, `-0` and `0`
    would be two byte strings of one request.
    """


def _integer(text):
    return NegativeZero(0) if text == "-0" else int(text)


def _unique_pairs(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise StrictJSONError(f"duplicate object key {key[:64]!r}")
            seen.add(key)
    return obj


_decoder = json.JSONDecoder(
    object_pairs_hook=_unique_pairs,
    parse_constant=_reject_constant,
    parse_float=_finite_float,
    parse_int=_integer,
)


def _check_tree(value, depth):
    """Reject lone surrogates and nesting deeper than MAX_DEPTH."""
    if depth > MAX_DEPTH:
        raise StrictJSONError(f"nesting deeper than {MAX_DEPTH}")
    if isinstance(value, str):
        _check_string(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_string(key)
            _check_tree(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_tree(item, depth + 1)


def _check_string(text):
    # Surrogate code points survive json.loads only as escapes that did not form a pair.
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise StrictJSONError("lone surrogate escape in a string") from None


def loads_strict(data: bytes):
    """Decode UTF-8 bytes as exactly one strict JSON value, or raise StrictJSONError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StrictJSONError(f"invalid UTF-8 at byte {exc.start}") from None
    if text.startswith("\ufeff"):
        raise StrictJSONError("byte order mark before the JSON value")
    try:
        value = _decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except StrictJSONError:
        raise
    except RecursionError:
        # The C scanner recurses once per nesting level; a deep document exhausts the stack
        # before _check_tree could see it.
        raise StrictJSONError(f"nesting deeper than {MAX_DEPTH}") from None
    except ValueError as exc:
        # int() refuses digit strings longer than sys.get_int_max_str_digits().
        raise StrictJSONError(f"number cannot be represented: {str(exc)[:80]}") from None
    _check_tree(value, 1)
    return value
