"""An ordered registry of named entries (source forms, formats) that refuses a name twice."""

from collections.abc import Callable, Iterable
from typing import TypeVar

Entry = TypeVar("Entry")


def registry(entries: Iterable[Entry], name_of: Callable[[Entry], str]) -> dict[str, Entry]:
    """Return {name: entry} in the entries' order; refuse two entries of one name."""
    found: dict[str, Entry] = {}
    for entry in entries:
        name = name_of(entry)
        if name in found:
            raise ValueError(f"two registry entries are named {name!r}")
        found[name] = entry
    return found
