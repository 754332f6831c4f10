"""The shape checks of snapshot documents: each refusal names the field, as `where: message`."""

import math
import re
from pathlib import Path
from typing import NoReturn

from .errors import UserError
from .strict_json import StrictJSONError, loads_strict

_HEX64 = re.compile(r"[0-9a-f]{64}")


class SnapshotError(UserError):
    """A snapshot file is missing, malformed, or does not match its own digests."""


def json_file(path: Path):
    """Return a snapshot file's strict JSON; raise SnapshotError naming it, except that a file
    that is not there raises FileNotFoundError (for the files a snapshot may leave out)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return loads_strict(data)
    except StrictJSONError as exc:
        raise SnapshotError(f"{path}: not strict JSON: {exc}") from None


def fail(where: str, message: str) -> NoReturn:
    """Refuse the document: raise SnapshotError naming the field."""
    raise SnapshotError(f"{where}: {message}")


def json_object(value, where: str, required, optional=()) -> dict:
    """Return value if it is an object with every required field and no field not named."""
    if not isinstance(value, dict):
        fail(where, "must be an object")
    for key in required:
        if key not in value:
            fail(where, f"missing field {key!r}")
    unknown = [key for key in value if key not in required and key not in optional]
    if unknown:
        fail(where, f"unknown field {unknown[0]!r}")
    return value


def string(value, where: str) -> str:
    """Return value if it is a string that is not blank."""
    if not isinstance(value, str) or not value.strip():
        fail(where, "must be a non-empty string")
    return value


def string_or_none(value, where: str) -> str | None:
    """Return value if it is None or a string that is not blank."""
    if value is not None and (not isinstance(value, str) or not value.strip()):
        fail(where, "must be a non-empty string or null")
    return value


def integer(value, where: str, minimum: int) -> int:
    """Return value if it is an integer (not a bool) of at least minimum."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        fail(where, f"must be an integer >= {minimum}")
    return value


def number(value, where: str) -> float:
    """Return value as a float if it is a finite number (an integer or a float, not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        fail(where, "must be a finite number")
    return float(value)


def digest(value, where: str) -> str:
    """Return value if it is a SHA-256 hex digest as the service writes them."""
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        fail(where, "must be 64 lowercase hex digits")
    return value
