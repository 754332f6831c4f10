"""Strict JSON decoding: one meaning per document, or a refusal that says why.

The stdlib parser is lenient where a verifiable service must not be: it accepts duplicate keys (last
wins), NaN and Infinity, lone surrogate escapes, and numbers that overflow to infinity. Each of
those would let two different byte strings mean "the same" request, or one request mean two things.
"""

import json
import math
import re

from .errors import UserError

MAX_DEPTH = 32


class StrictJSONError(UserError):
    """The bytes are not one strict JSON document; byte_offset says where, when it is known."""

    def __init__(self, message: str, byte_offset=None):
        super().__init__(message if byte_offset is None else f"{message} at byte {byte_offset}")
        self.byte_offset = byte_offset


def _reject_constant(name):
    raise StrictJSONError(f"{name} is not a JSON number")


def _finite_float(text):
    value = float(text)
    if math.isinf(value):
        raise StrictJSONError(f"number {text[:32]} is too large to represent")
    return value


class NegativeZero(int):
    """The integer written `-0`: equal to 0, but not how an integer is written.

    It decodes apart from 0 so that a validator can refuse it; accepted as 0, `-0` and `0`
    would be two byte strings of one request.
    """


def _integer(text):
    return NegativeZero(0) if text == "-0" else int(text)


class _Refused(Exception):
    """A strict rule broken inside the decoder: _locate finds where, on the error path only."""


def _unique_pairs(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Refused()
    return obj


_decoder = json.JSONDecoder(
    object_pairs_hook=_unique_pairs,
    parse_constant=_reject_constant,
    parse_float=_finite_float,
    parse_int=_integer,
)


def _check_tree(value, depth):
    """Tell whether the tree breaks no rule the decoder cannot see: surrogates and depth."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, str):
        return _encodable(value)
    if isinstance(value, dict):
        return all(_encodable(key) and _check_tree(item, depth + 1) for key, item in value.items())
    if isinstance(value, list):
        return all(_check_tree(item, depth + 1) for item in value)
    return True


def _encodable(text):
    # Surrogate code points survive json.loads only as escapes that did not form a pair.
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _byte_offset(text, index):
    return len(text[:index].encode("utf-8", "surrogatepass"))


# The stdlib's own string scanner, so a string is read exactly as the decoder read it.
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # typeshed omits it
_COLON = re.compile(r"[ \t\r\n]*:")
_VALUE_STARTS = frozenset('{["-0123456789tfn')


def _locate(text) -> StrictJSONError:
    """Return the first strict-rule violation of syntactically valid JSON text, with its place.

    Runs only after a document was refused, so it may be slow: it walks the tokens once, keeping
    each open object's keys, the nesting depth and every string's code points.
    """
    open_keys: list[set | None] = []  # per open container: a set of keys (object) or None (array)
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        # A value (not a key) inside MAX_DEPTH containers is one level too deep (_check_tree).
        too_deep = len(open_keys) >= MAX_DEPTH and char in _VALUE_STARTS and not (
            char == '"' and _COLON.match(text, _scanstring(text, index + 1)[1]))
        if too_deep:
            return StrictJSONError(f"nesting deeper than {MAX_DEPTH}", _byte_offset(text, index))
        if char in "{[":
            open_keys.append(set() if char == "{" else None)
        elif char in "}]":
            open_keys.pop()
        elif char == '"':
            value, end = _scanstring(text, index + 1)
            if not _encodable(value):
                return StrictJSONError("lone surrogate escape in a string",
                                       _byte_offset(text, index))
            is_key = _COLON.match(text, end) is not None
            if is_key and open_keys and open_keys[-1] is not None:
                if value in open_keys[-1]:
                    return StrictJSONError(f"duplicate key {json.dumps(value[:64])}",
                                           _byte_offset(text, index))
                open_keys[-1].add(value)
            index = end
            continue
        index += 1
    return StrictJSONError("the document breaks a strict JSON rule")


def _syntax_message(exc: json.JSONDecodeError) -> str:
    # json's messages name what was expected ("Expecting ',' delimiter"); the place is added.
    if exc.msg == "Extra data":
        return "unexpected data after the JSON value"
    if exc.msg == "Expecting value" and not exc.doc.strip():
        return "empty document: expecting a JSON value"
    message = exc.msg[0].lower() + exc.msg[1:]
    return message[:-3] if message.endswith(" at") else message


def loads_strict(data: bytes):
    """Decode UTF-8 bytes as exactly one strict JSON value, or raise StrictJSONError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StrictJSONError("invalid UTF-8", exc.start) from None
    if text.startswith("\ufeff"):
        raise StrictJSONError("byte order mark before the JSON value", 0)
    try:
        value = _decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise StrictJSONError(_syntax_message(exc), _byte_offset(text, exc.pos)) from None
    except StrictJSONError:
        raise
    except (_Refused, RecursionError):
        # The C scanner recurses once per nesting level; a deep document exhausts the stack
        # before _check_tree could see it. Either way _locate says what and where.
        raise _locate(text) from None
    except ValueError:
        # int() refuses digit strings longer than sys.get_int_max_str_digits().
        raise StrictJSONError("a number has too many digits to represent") from None
    if not _check_tree(value, 1):
        raise _locate(text)
    return value
